/** The one place that turns results and errors into HTTP replies. */
import { ApiError } from '../engine/errors.js';
import { toApiError } from '../engine/storage-errors.js';
import { log } from '../engine/log.js';
import { RawJson, type RouteResult } from './route.js';
import type { Reply } from './uws.js';

type Headers = ReadonlyArray<readonly [string, string]>;

/** A success reply; `status: success` is added to bodies that do not carry a status. */
export function successReply(result: RouteResult, headers?: Headers): Reply {
  const body = result instanceof RawJson ? result.json : JSON.stringify('status' in result ? result : { status: 'success', ...result });
  return headers === undefined ? { status: 200, body } : { status: 200, body, headers };
}

/** An `APIError` reply: `{status: "failed", code, reason, ...extra}` with the catalogued HTTP status. */
export function errorReply(err: unknown, headers?: Headers): Reply {
  const error = err instanceof ApiError ? err : toApiError(err);
  if (!(err instanceof ApiError)) log.error('unhandled-error', { err });
  const body = JSON.stringify({ status: 'failed', code: error.code, reason: error.message, ...error.extra });
  const retryAfter = error.extra?.['retryAfter'];
  if (typeof retryAfter === 'number') headers = [...(headers ?? []), ['retry-after', String(retryAfter)]];
  return headers === undefined || headers.length === 0 ? { status: error.status, body } : { status: error.status, body, headers };
}
