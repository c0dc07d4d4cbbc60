import type { ErrorCode } from '../engine/errors.js';
import type { UsageCounts } from '../actors/tenant/usage.js';
import type { AuthInfo } from './auth.js';
import type { AppServices } from './services.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call a route:
 * - `tenant`: an API key or bearer token of the tenant; every call is charged credits;
 * - `public`: widgets in browsers, no credential and no credits (CORS with credentials);
 * - `oauth`: the OAuth endpoints and pages (docs/oauth.md): no credential, no credits, the
 *   client's public request budget; never widget CORS, since the consent pages read the
 *   sign-in cookie and no other site may read them;
 * - `open`: infrastructure such as health checks.
 */
export type Access = 'tenant' | 'public' | 'oauth' | 'open';

/**
 * How a route answers:
 * - `api` (the default): JSON with `status: success` added, refusals as `APIError`;
 * - `oauth`: JSON as the handler returns it, refusals as RFC 6749 `{error, error_description}`;
 * - `page`: HTML pages and redirects (the handler returns a `CustomReply`), refusals as an HTML page.
 */
export type Dialect = 'api' | 'oauth' | 'page';

/** A JSON schema, as ajv takes it. */
export type Schema = Record<string, unknown>;

/** An already serialised JSON body: the fast path for answers an actor keeps ready. */
export class RawJson {
  constructor(readonly json: string | Buffer) {}
}

/** A whole answer a handler composes itself: an HTML page, a redirect, JSON with another status. */
export class CustomReply {
  constructor(
    readonly status: number,
    readonly body: string | Buffer,
    readonly contentType: string,
    readonly headers: ReadonlyArray<readonly [string, string]> = [],
  ) {}
}

/**
 * A JSON answer too large to hold at once, sent in parts as they are made (`status` included
 * by the handler): memory holds one part at a time, whatever the size of the whole.
 */
export class StreamedJson {
  /** `contentType`: another type than JSON for the same streaming (a CSV download). */
  constructor(
    readonly parts: AsyncIterable<string>,
    readonly contentType?: string,
  ) {}
}

/** A handler's answer: a body (the server adds `status: success` on `api` routes), raw JSON, a streamed answer, or a whole reply. */
export type RouteResult = Record<string, unknown> | RawJson | CustomReply | StreamedJson;

/** What a handler sees of a request: validated and typed. */
export interface RouteRequest<Q = Record<string, unknown>, B = unknown> {
  readonly method: Method;
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  readonly query: Q;
  /** The query string as received (for caches keyed by it). */
  readonly rawQuery: string;
  readonly body: B;
  readonly headers: Readonly<Record<string, string>>;
  readonly ip: string;
  /** The credential, on `tenant` routes. */
  readonly auth: AuthInfo | undefined;
  /** The authenticated tenant on `tenant` routes; empty elsewhere. */
  readonly tenantId: string;
  readonly app: AppServices;
  /** Adds a response header (a cookie, say). */
  setHeader(name: string, value: string): void;
}

/** One endpoint: its schemas beside its handler, compiled once at start-up. */
export interface RouteSpec<Q = any, B = any, R extends RouteResult = RouteResult> {
  readonly method: Method;
  readonly path: string;
  readonly access: Access;
  /** Object schema of the query; `tenantId` and `API_KEY` are added on tenant routes. */
  readonly query?: Schema;
  /** Object schema of the path parameters. */
  readonly params?: Schema;
  /** Schema of the JSON body (of the form fields, with `form`); a route without one refuses any body. */
  readonly body?: Schema;
  /** The body is `application/x-www-form-urlencoded` (its fields are text; a repeated name is an array). */
  readonly form?: boolean;
  /** The handler takes the body as bytes (a `Buffer`, empty when none was sent) and checks it itself: uploads. */
  readonly rawBody?: boolean;
  /** How the route answers (default `api`). */
  readonly answers?: Dialect;
  /**
   * `anyone`: every answer says `Access-Control-Allow-Origin: *` (no credentials), and CORS
   * preflights are answered: for endpoints browsers call without cookies (OAuth's token endpoint).
   */
  readonly cors?: 'anyone';
  /**
   * The body's `tenantId` names the tenant when neither the `X-TENANT-ID` header nor the query
   * does (the API description puts it there for some routes). The body is then read before
   * the credential is checked.
   */
  readonly tenantInBody?: boolean;
  /** Specific codes for missing required fields, such as `urlId` → `missing-url-id`. */
  readonly missingCodes?: Readonly<Record<string, ErrorCode>>;
  /**
   * Credits charged for a successful call (default 1). A function makes the cost variable:
   * it is then reported to the caller as `creditsCost`.
   */
  readonly credits?: number | ((req: RouteRequest<Q, B>, result: R) => number);
  /** Daily usage counters a successful call adds to. */
  readonly usage?: UsageCounts | ((req: RouteRequest<Q, B>, result: R) => UsageCounts);
  handle(req: RouteRequest<Q, B>): Promise<R> | R;
}

/** Any route, as the registry and the pipeline hold them. */
export type AnyRoute = RouteSpec<any, any, any>;

/** Declares a route with its types checked against its handler. */
export function route<Q = Record<string, unknown>, B = undefined, R extends RouteResult = RouteResult>(spec: RouteSpec<Q, B, R>): RouteSpec<Q, B, R> {
  return spec;
}

/** Credits for a list that costs one per `per` objects returned, at least one. */
export function perObjects(count: number, per: number): number {
  return Math.max(1, Math.ceil(count / per));
}
