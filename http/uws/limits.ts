import type { Reply } from './types.js';

/**
 * Limits the wrapper applies to every request it is handed (uWebSockets.js itself drops, with
 * no answer, requests it cannot parse: see docs/operations.md for those and for the reverse
 * proxy settings that keep them away).
 */
export const REQUEST_LIMITS = {
  /** Path and query together, in characters: longer gets 414. */
  maxUrlLength: 8192,
  /** Header names and values together, in characters: more gets 431. */
  maxHeaderBytes: 16_384,
} as const;

/** The wrapper's own refusals, with their catalog codes (for the refusal counts). */
const CODES = new WeakMap<Reply, string>();
function refusal(status: number, code: string, reason: string): Reply {
  const reply = { status, body: JSON.stringify({ status: 'failed', code, reason }) };
  CODES.set(reply, code);
  return reply;
}

/** The catalog code of one of the wrapper's refusals. */
export function refusalCode(reply: Reply): string {
  return CODES.get(reply) ?? 'bad-request';
}

const URI_TOO_LONG = refusal(414, 'uri-too-long', `The request URL is longer than ${REQUEST_LIMITS.maxUrlLength} characters.`);
const HEADERS_TOO_LARGE = refusal(431, 'headers-too-large', `The request headers are larger than ${REQUEST_LIMITS.maxHeaderBytes} characters.`);
const BAD_LENGTH = refusal(400, 'bad-request', 'Content-Length must be one decimal number (it was repeated with different values, or malformed).');
const DECIMAL = /^\d{1,15}$/;

/** The answer to a body over its limit (413). */
export const TOO_LARGE = JSON.stringify({ status: 'failed', code: 'body-too-large', reason: 'The request body is larger than the server accepts.' });
/** RFC 6455 §4.1: the handshake's Connection header holds the token "upgrade". */
export const UPGRADE_TOKEN = /(^|,)[ \t]*upgrade[ \t]*(,|$)/i;
/** The refusal of a handshake without that token. */
export const NOT_AN_UPGRADE = refusal(400, 'bad-request', 'A websocket handshake needs the token "Upgrade" in its (first) Connection header.');

/** What `malformed` reads of a copied request. */
export interface RequestShape {
  readonly path: string;
  readonly query: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Characters of all header names and values. */
  readonly headerBytes: number;
}

/** The refusal of a request the wrapper sees but will not handle, or undefined. */
export function malformed(request: RequestShape): Reply | undefined {
  if (request.path.length + request.query.length > REQUEST_LIMITS.maxUrlLength) return URI_TOO_LONG;
  if (request.headerBytes > REQUEST_LIMITS.maxHeaderBytes) return HEADERS_TOO_LARGE;
  const length = request.headers['content-length'];
  if (length !== undefined && !DECIMAL.test(length)) return BAD_LENGTH;
  return undefined;
}
