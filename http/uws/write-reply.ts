import { STATUS_CODES } from 'node:http';
import type uWS from 'uWebSockets.js';
import type { Reply } from './types.js';

const STATUS_LINES = new Map<number, string>();
function statusLine(status: number): string {
  let line = STATUS_LINES.get(status);
  if (line === undefined) {
    line = `${status} ${STATUS_CODES[status] ?? 'Unknown'}`;
    STATUS_LINES.set(status, line);
  }
  return line;
}

/** Writes the status line and headers (the caller corks when outside a uWebSockets.js callback). */
export function writeHead(res: uWS.HttpResponse, reply: Omit<Reply, 'body'>): void {
  res.writeStatus(statusLine(reply.status));
  res.writeHeader('content-type', reply.contentType ?? 'application/json; charset=utf-8');
  if (reply.headers) for (const [name, value] of reply.headers) res.writeHeader(name, value);
}

/** Writes a whole response. */
export function writeReply(res: uWS.HttpResponse, reply: Reply, closeConnection = false): void {
  writeHead(res, reply);
  // A 304 has no body, and a Content-Length on it would have to be the full answer's (RFC 9110
  // §8.6): none is sent (the wrapper never refuses a request with a 304, so it keeps the connection).
  if (reply.status === 304) res.endWithoutBody();
  else res.end(reply.body, closeConnection);
}
