/** The one place that turns results and errors into HTTP replies, in each route's dialect. */
import { ApiError } from '../engine/errors.js';
import { toApiError } from '../engine/storage-errors.js';
import { log } from '../engine/log.js';
import { countRefusal } from '../engine/metrics/http-meters.js';
import { html, htmlPage } from './html.js';
import { CustomReply, type Dialect, RawJson, type RouteResult } from './route.js';
import type { Reply } from './uws/index.js';

type Headers = ReadonlyArray<readonly [string, string]>;

/**
 * A success reply; on `api` routes `status: success` is added to bodies that do not carry a
 * status, on `oauth` routes bodies go as returned. A `CustomReply` goes as composed.
 */
export function successReply(result: RouteResult, headers?: Headers, dialect: Dialect = 'api'): Reply {
  if (result instanceof CustomReply) {
    const all = headers === undefined || headers.length === 0 ? result.headers : [...headers, ...result.headers];
    return { status: result.status, body: result.body, contentType: result.contentType, headers: all };
  }
  const body = result instanceof RawJson ? result.json : JSON.stringify(dialect !== 'api' || 'status' in result ? result : { status: 'success', ...result });
  return headers === undefined ? { status: 200, body } : { status: 200, body, headers };
}

/** An error reply in the route's dialect, with the catalogued HTTP status and `Retry-After` when the error has one. */
export function errorReply(err: unknown, headers?: Headers, dialect: Dialect = 'api'): Reply {
  const error = err instanceof ApiError ? err : toApiError(err);
  if (!(err instanceof ApiError)) log.error('unhandled-error', { err });
  countRefusal(error.code);
  const retryAfter = error.extra?.['retryAfter'];
  if (typeof retryAfter === 'number') headers = [...(headers ?? []), ['retry-after', String(retryAfter)]];
  if (dialect === 'page') return successReply(errorPage(error), headers);
  let status = error.status;
  let body: string;
  if (dialect === 'oauth') {
    const name = oauthError(error);
    // RFC 6749 §5.2: a malformed request is a 400, whatever the server's own code says (415, 422).
    if (name === 'invalid_request') status = 400;
    body = JSON.stringify({ error: name, error_description: error.message });
  } else body = JSON.stringify({ status: 'failed', code: error.code, reason: error.message, ...error.extra });
  return headers === undefined || headers.length === 0 ? { status, body } : { status, body, headers };
}

/**
 * The RFC 6749 `error` of a refusal: `oauth-*` codes name it (`oauth-invalid-grant` is
 * `invalid_grant`); a malformed request is `invalid_request`; 429 is `rate_limited`; the
 * server's own failures are `temporarily_unavailable` (503) and `server_error`.
 */
export function oauthError(error: ApiError): string {
  if (error.code.startsWith('oauth-')) return error.code.slice('oauth-'.length).replaceAll('-', '_');
  if (error.status === 429) return 'rate_limited';
  if (error.status === 503 || error.status === 504) return 'temporarily_unavailable';
  if (error.status >= 500) return 'server_error';
  return 'invalid_request';
}

/** A refusal as an HTML page: what went wrong, in words, with the catalogued status. */
function errorPage(error: ApiError): CustomReply {
  const title = error.code === 'not-signed-in' ? 'Sign in required' : error.status === 403 ? 'Not allowed' : error.status >= 500 ? 'Try again later' : 'This request cannot be completed';
  return htmlPage(error.status, title, html`<h1>${title}</h1><p>${error.message}</p><p class="muted">Code: ${error.code}</p>`);
}
