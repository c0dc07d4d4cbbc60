/**
 * A closed-loop HTTP/1.1 load driver over raw keep-alive sockets, for loads whose every request
 * must differ in a way neither wrk-less fallback can express (autocannon's connections all
 * replay one request list from its start, so per-request readers would collide). Each
 * connection sends one request, reads its answer (uWebSockets.js answers carry
 * `Content-Length`), records the latency and sends the next. It runs in the bench process:
 * compare only figures it measured in the same run (subject and its floor alike).
 */
import { connect, type Socket } from 'node:net';
import { createHistogram } from 'node:perf_hooks';

/** What one run measured. */
export interface RawLoadResult {
  readonly requests: number;
  readonly rps: number;
  readonly non2xx: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/**
 * Drives `origin` for `seconds` with `connections` sockets; `request(i)` makes the i-th request
 * (the whole HTTP/1.1 text: request line, headers, blank line, body).
 */
export async function rawLoad(origin: string, connections: number, seconds: number, request: (i: number) => string): Promise<RawLoadResult> {
  const url = new URL(origin);
  const latency = createHistogram();
  let next = 0;
  let done = 0;
  let non2xx = 0;
  const end = performance.now() + seconds * 1000;
  const one = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const socket: Socket = connect({ host: url.hostname, port: Number(url.port) });
      socket.setNoDelay(true);
      let buffer: Buffer = Buffer.alloc(0);
      let sentAt = 0;
      const send = () => {
        if (performance.now() >= end) {
          socket.end();
          resolve();
          return;
        }
        sentAt = performance.now();
        socket.write(request(next++));
      };
      socket.on('connect', send);
      socket.on('error', reject);
      socket.on('data', (chunk: Buffer) => {
        buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
        for (;;) {
          const head = buffer.indexOf('\r\n\r\n');
          if (head < 0) return;
          const text = buffer.subarray(0, head).toString('latin1');
          const length = Number(/content-length:\s*(\d+)/i.exec(text)?.[1] ?? 0);
          if (buffer.length < head + 4 + length) return;
          buffer = buffer.subarray(head + 4 + length);
          const status = Number(text.slice(9, 12));
          if (status < 200 || status > 299) non2xx++;
          done++;
          latency.record(Math.max(1, Math.round((performance.now() - sentAt) * 1000)));
          send();
        }
      });
    });
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, one));
  const elapsed = (performance.now() - started) / 1000;
  return { requests: done, rps: done / elapsed, non2xx, p50Ms: latency.percentile(50) / 1000, p99Ms: latency.percentile(99) / 1000 };
}
