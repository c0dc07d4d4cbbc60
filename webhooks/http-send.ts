/**
 * One webhook request over `node:http`/`node:https`: no redirects followed, one deadline for the
 * whole exchange, at most a kilobyte of the answer kept, connections kept alive per receiver.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';

/** What a receiver answered. */
export interface SendAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The start of the body (at most `MAX_BODY_KEPT` characters). */
  readonly body: string;
}

/** Characters of an answer kept (for `lastError`). */
export const MAX_BODY_KEPT = 1000;
const MAX_HEADERS_KEPT = 30;
const MAX_HEADER_VALUE = 300;

/** A delivery that got no answer in time. */
export class SendTimeoutError extends Error {
  override readonly name = 'SendTimeoutError';
}

export interface SendOptions {
  readonly timeoutMs: number;
  readonly lookup: LookupFunction;
}

// Idle connections are closed before the receiver's own keep-alive timeout when it sends one
// (`Keep-Alive: timeout=5`); one it closed first is retried once (see `send`).
const agents = {
  http: new http.Agent({ keepAlive: true, maxFreeSockets: 256 }),
  https: new https.Agent({ keepAlive: true, maxFreeSockets: 256 }),
};

/** Closes idle kept-alive connections (at shutdown). */
export function closeIdleConnections(): void {
  agents.http.destroy();
  agents.https.destroy();
}

function once(url: URL, method: string, headers: Record<string, string>, body: Buffer, options: SendOptions, deadline: number): Promise<{ answer: SendAnswer } | { error: Error; reused: boolean }> {
  return new Promise((resolve) => {
    const secure = url.protocol === 'https:';
    let settled = false;
    let reused = false;
    const finish = (value: { answer: SendAnswer } | { error: Error; reused: boolean }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    const req = (secure ? https : http).request(url, { method, headers, agent: secure ? agents.https : agents.http, lookup: options.lookup }, (res) => {
      const kept: Buffer[] = [];
      let keptBytes = 0;
      res.on('data', (chunk: Buffer) => {
        if (keptBytes < MAX_BODY_KEPT * 4) {
          kept.push(chunk);
          keptBytes += chunk.length;
        }
      });
      res.on('end', () => finish({ answer: { status: res.statusCode ?? 0, headers: keptHeaders(res.headers), body: Buffer.concat(kept).toString('utf8').slice(0, MAX_BODY_KEPT) } }));
      res.on('error', (err) => finish({ error: err, reused }));
    });
    req.on('socket', () => {
      reused = req.reusedSocket;
    });
    req.on('error', (err) => finish({ error: err, reused }));
    const timer = setTimeout(() => {
      const err = new SendTimeoutError(`no answer within ${options.timeoutMs} ms`);
      req.destroy(err);
      finish({ error: err, reused: false });
    }, Math.max(1, deadline - Date.now()));
    req.end(body);
  });
}

/**
 * Sends one request and resolves with the answer (any status: a 3xx is an answer, never
 * followed). Rejects when there is none: refused connection, reset, forbidden address, or
 * nothing within `timeoutMs`. A kept-alive connection the receiver had just closed is retried
 * once on a new one.
 */
export async function send(url: URL, method: string, headers: Record<string, string>, body: Buffer, options: SendOptions): Promise<SendAnswer> {
  const deadline = Date.now() + options.timeoutMs;
  let result = await once(url, method, headers, body, options, deadline);
  if ('error' in result && result.reused && !(result.error instanceof SendTimeoutError) && Date.now() < deadline) {
    result = await once(url, method, headers, body, options, deadline);
  }
  if ('error' in result) throw result.error;
  return result.answer;
}

function keptHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  let n = 0;
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined || n++ >= MAX_HEADERS_KEPT) continue;
    out[name] = (Array.isArray(value) ? value.join(', ') : value).slice(0, MAX_HEADER_VALUE);
  }
  return out;
}
