/** JSON calls of a benchmark's server with its demo credentials; anything but 200 throws. */
import type { ServerProcess } from './processes.js';

/** Calls `path` on `server`, answering the parsed body of a 200 (and throwing otherwise). */
export async function callApi<T = Record<string, unknown>>(server: ServerProcess, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...server.authHeaders, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}
