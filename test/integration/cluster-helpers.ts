/**
 * Requests for cluster tests. Each goes on a connection of its own, so the kernel spreads them
 * over the nodes sharing the port, as it would a crowd of clients.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { LogLine, TestCluster } from '../fixtures/cluster.js';

export interface Reply<T = Record<string, unknown>> {
  readonly status: number;
  readonly body: T;
}

/** One request on a fresh connection; a connection error or 60 s without an answer is status 0. */
export function call<T = Record<string, unknown>>(c: TestCluster, method: string, path: string, body?: unknown): Promise<Reply<T>> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port: c.port, method, path, agent: false, headers: { ...c.headers, ...(payload === undefined ? {} : { 'content-length': Buffer.byteLength(payload) }) }, timeout: 60_000 },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // Left as text for the assertion message.
          }
          resolve({ status: res.statusCode ?? 0, body: parsed as T });
        });
        res.on('error', () => resolve({ status: 0, body: {} as T }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, body: {} as T }));
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** Creates a comment on `urlId`; returns its id. */
export async function comment(c: TestCluster, urlId: string, extra: Record<string, unknown> = {}): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const r = await call<{ comment: { _id: string } }>(c, 'POST', '/api/v1/comments', {
      commenterName: 'Ann',
      comment: `On ${urlId}`,
      url: `https://example.com${urlId}`,
      urlId,
      locale: 'en_us',
      ...extra,
    });
    if (r.status === 200) return r.body.comment._id;
    assert.ok(attempt < 20 && r.status === 503, `comment on ${urlId}: ${r.status} ${JSON.stringify(r.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Runs `count` tasks, at most `width` at a time. */
export async function pool<T>(count: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await task(i);
      }
    }),
  );
  return out;
}

/** Every node's log lines of one event. */
export function logsOf(c: TestCluster, event: string): (LogLine & { node: string })[] {
  return c.nodes.flatMap((node) => node.logs.filter((line) => line.event === event).map((line) => ({ ...line, node: node.name })));
}

/**
 * No actor was active twice: along the log of every key (activations from every node, in the
 * order this process read them), the lease epoch never goes back. An activation under an older
 * epoch after one under a newer would be a node serving a shard it no longer held.
 */
export function assertNoDuplicateActivation(c: TestCluster): number {
  const byKey = new Map<string, { epoch: number; node: string; at: number }[]>();
  for (const line of logsOf(c, 'actor-activated')) {
    const list = byKey.get(String(line['key'])) ?? [];
    list.push({ epoch: Number(line['epoch']), node: line.node, at: line.at });
    byKey.set(String(line['key']), list);
  }
  for (const [key, list] of byKey) {
    list.sort((a, b) => a.at - b.at);
    for (let i = 1; i < list.length; i++) {
      assert.ok(list[i]!.epoch >= list[i - 1]!.epoch, `${key} activated on ${list[i]!.node} under epoch ${list[i]!.epoch} after ${list[i - 1]!.node} under ${list[i - 1]!.epoch}`);
    }
  }
  return byKey.size;
}

/** Waits until a request gets through (after a failure), up to `ms`. */
export async function untilServing(c: TestCluster, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await call(c, 'GET', '/api/v1/me');
    if (r.status === 200) return;
    if (Date.now() > deadline) assert.fail(`the cluster did not serve again within ${ms} ms: ${r.status} ${JSON.stringify(r.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
