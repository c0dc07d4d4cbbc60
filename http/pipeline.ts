import { clock } from '../engine/clock.js';
import { ApiError } from '../engine/errors.js';
import { log } from '../engine/log.js';
import { isUtf8 } from 'node:buffer';
import { AuditedCall, readEntry, type ReadRoute } from './audit.js';
import { authenticate, type AuthInfo, bearerChallenge } from './auth.js';
import { beginCharge, type CallCharge } from './billing.js';
import { parseQuery, type Query } from './query.js';
import { limitKey } from './client-address.js';
import { assertStorable } from './input-guard.js';
import { admitPublic } from './public-access.js';
import { errorReply, successReply } from './respond.js';
import { type AnyRoute, type Method, type RouteRequest, type Schema, StreamedJson } from './route.js';
import { Router } from './router.js';
import type { AppServices } from './services.js';
import type { IncomingRequest, Reply, RequestHandler, Responder } from './uws/index.js';
import { compile, type Check } from './validation.js';
import { routeMeter, UNMATCHED, type RouteMeter } from '../engine/metrics/http-meters.js';

interface CompiledRoute {
  readonly spec: AnyRoute;
  /**
   * GET routes: queries already parsed and validated, by query string, frozen (shared by every
   * request that sends the same string, as a busy widget does).
   */
  readonly queries: Map<string, Query> | undefined;
  readonly checkQuery: Check;
  readonly checkParams: Check | undefined;
  readonly checkBody: Check | undefined;
  /** Its metrics children, resolved once. */
  readonly meter: RouteMeter;
}

type Headers = [string, string][];

const CREDENTIAL_PARAMS: Schema = { tenantId: { type: 'string' }, API_KEY: { type: 'string' } };
const EMPTY_QUERY: Schema = { type: 'object', properties: {} };
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(?:;|$)/i;

function compileRoute(spec: AnyRoute): CompiledRoute {
  const query = spec.query ?? EMPTY_QUERY;
  const withCredentials =
    spec.access === 'tenant'
      ? { ...query, properties: { ...CREDENTIAL_PARAMS, ...(query['properties'] as Schema | undefined) } }
      : query;
  return {
    spec,
    queries: spec.method === 'GET' ? new Map() : undefined,
    checkQuery: compile('query', withCredentials, spec.missingCodes),
    checkParams: spec.params ? compile('path', spec.params, spec.missingCodes) : undefined,
    checkBody: spec.body ? compile('body', spec.body, spec.missingCodes) : undefined,
    meter: routeMeter(spec.method, spec.path),
  };
}

function parseBody(req: IncomingRequest, route: CompiledRoute): unknown {
  const raw = req.body;
  if (route.spec.rawBody) return raw ?? Buffer.alloc(0);
  const empty = raw === undefined || raw.length === 0;
  if (route.checkBody === undefined) {
    if (!empty) throw new ApiError('unexpected-param', 'This endpoint takes no request body.');
    return undefined;
  }
  if (empty) {
    const body = {};
    route.checkBody(body);
    return body;
  }
  const type = req.headers['content-type'];
  if (route.spec.form) {
    if (type === undefined || !FORM_TYPE.test(type)) throw new ApiError('unsupported-media-type', 'The request body must be application/x-www-form-urlencoded.');
    if (!isUtf8(raw)) throw new ApiError('invalid-unicode', 'The request body is not valid UTF-8.');
    const fields = parseQuery(raw.toString('utf8'));
    route.checkBody(fields);
    return fields;
  }
  if (type !== undefined && type !== '' && !JSON_TYPE.test(type)) throw new ApiError('unsupported-media-type');
  // Decoding would silently replace invalid bytes, storing other text than was sent.
  if (!isUtf8(raw)) throw new ApiError('invalid-unicode', 'The request body is not valid UTF-8.');
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new ApiError('invalid-json', `The request body is not valid JSON: ${(err as Error).message}`);
  }
  assertStorable(body);
  route.checkBody(body);
  return body;
}

/** The tenant a body names, on routes whose body may (see `RouteSpec.tenantInBody`). */
function bodyTenant(body: unknown): string | undefined {
  const named = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['tenantId'] : undefined;
  return typeof named === 'string' && named !== '' ? named : undefined;
}

/** CORS for endpoints anyone may call from a browser without cookies (`cors: 'anyone'`). */
const ANYONE: [string, string] = ['access-control-allow-origin', '*'];

/** The answer to a CORS preflight of a path accepting `allowed`. */
function preflightHeaders(req: IncomingRequest, allowed: readonly string[]): Headers {
  return [
    ['access-control-allow-methods', allowed.join(', ')],
    ['access-control-allow-headers', req.headers['access-control-request-headers'] || 'content-type'],
    ['access-control-max-age', '600'],
  ];
}

/** Most query strings remembered per GET route. */
const QUERIES_PER_ROUTE = 1000;

function remember(queries: Map<string, Query>, raw: string, query: Query): void {
  if (queries.size >= QUERIES_PER_ROUTE) queries.clear();
  for (const value of Object.values(query)) if (Array.isArray(value)) Object.freeze(value);
  queries.set(raw, Object.freeze(query));
}

/** What a handler sees of a request. A class, not a literal with closures: one is made per call. */
class CallRequest implements RouteRequest {
  readonly method: Method;
  readonly path: string;
  readonly rawQuery: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly tenantId: string;
  readonly #req: IncomingRequest;
  readonly #replyHeaders: Headers;

  constructor(
    req: IncomingRequest,
    readonly params: Readonly<Record<string, string>>,
    readonly query: Record<string, unknown>,
    readonly body: unknown,
    readonly auth: AuthInfo | undefined,
    readonly app: AppServices,
    replyHeaders: Headers,
  ) {
    this.#req = req;
    this.#replyHeaders = replyHeaders;
    this.method = req.method as Method;
    this.path = req.path;
    this.rawQuery = req.query;
    this.headers = req.headers;
    this.tenantId = auth?.tenantId ?? '';
  }

  get ip(): string {
    return this.#req.ip;
  }

  setHeader(name: string, value: string): void {
    this.#replyHeaders.push([name, value]);
  }
}

/**
 * Sends a streamed answer (already a success: charged, audited). A part that fails later can
 * no longer change the status: the connection is cut, so the client sees an incomplete answer,
 * and the failure is logged.
 */
async function streamAnswer(res: Responder, headers: Headers, first: IteratorResult<string>, rest: AsyncIterator<string>, contentType?: string): Promise<void> {
  if (first.done === true) {
    res.send(errorReply(new Error('a streamed answer made no part'), headers));
    return;
  }
  try {
    await res.stream({ status: 200, headers, ...(contentType === undefined ? {} : { contentType }) }, first.value, rest);
  } catch (err) {
    log.error('stream-cut', { err });
  }
}

/** The request handler, and a way to wait for the requests it is still answering. */
export interface Pipeline {
  readonly handle: RequestHandler;
  /** Resolves once no request is being answered (true), or after `timeoutMs` (false). */
  settle(timeoutMs: number): Promise<boolean>;
}

/**
 * Builds the handler for every HTTP request: route, authenticate, validate, run, charge,
 * answer. Schemas are compiled here, once. Refused requests reach no actor beyond the
 * credential check, so they change nothing. Nothing is awaited that is already at hand: a
 * read answered from published views completes within the socket callback.
 */
export function createPipeline(routes: readonly AnyRoute[], app: AppServices): Pipeline {
  const router = new Router<CompiledRoute>();
  for (const spec of routes) router.add(spec.method, spec.path, compileRoute(spec));
  let inFlight = 0;
  const readRoute: ReadRoute = (path) => {
    const found = router.match('GET', path);
    return found !== undefined && 'value' in found ? { route: found.value.spec, params: found.params } : undefined;
  };

  async function run(route: CompiledRoute, req: IncomingRequest, params: Record<string, string>, res: Responder): Promise<void> {
    const spec = route.spec;
    const headers: Headers = [];
    let auth: AuthInfo | undefined;
    let charge: CallCharge | undefined;
    const started = route.meter.start();
    inFlight++;
    try {
      if (spec.cors === 'anyone') headers.push(ANYONE);
      if (spec.access === 'public') {
        const admitted = admitPublic(app, req, params, headers);
        if (admitted instanceof Promise) await admitted;
      } else if (spec.access === 'oauth') app.limits.requests.spend(limitKey(req.ip), 'requests');
      const known = route.queries?.get(req.query);
      const query = known ?? parseQuery(req.query);
      // Read first only where the body may name the tenant: otherwise the credential is checked before any body is parsed.
      const early = spec.tenantInBody ? parseBody(req, route) : undefined;
      if (spec.access === 'tenant') {
        const authenticated = authenticate(req, query, app, bodyTenant(early));
        auth = authenticated instanceof Promise ? await authenticated : authenticated;
      }
      route.checkParams?.(params);
      if (known === undefined) {
        route.checkQuery(query);
        if (route.queries !== undefined) remember(route.queries, req.query, query);
      }
      const body = spec.tenantInBody ? early : parseBody(req, route);
      const request = new CallRequest(req, params, query, body, auth, app, headers);
      if (auth !== undefined) charge = beginCharge(app, auth.tenantId, spec, request);
      // Calls that change data of an audited tenant are recorded (http/audit.ts).
      const audit = auth?.audited === true && spec.method !== 'GET' ? new AuditedCall(request, readRoute) : undefined;
      if (audit !== undefined) await audit.start();
      const handled = spec.handle(request);
      let result = handled instanceof Promise ? await handled : handled;
      // A streamed answer's first part is made before it counts as a success: a refusal there is an ordinary error reply.
      const stream = result instanceof StreamedJson ? result.parts[Symbol.asyncIterator]() : undefined;
      const first = stream === undefined ? undefined : await stream.next();
      if (charge !== undefined) {
        const settled = charge.succeeded(result);
        result = settled instanceof Promise ? await settled : settled;
      }
      if (audit !== undefined) await audit.finish(result);
      // Reads of an audited tenant are recorded in batches, off the request path
      // (http/audit-batcher.ts); the answer waits only while the tenant's backlog is full.
      if (auth?.audited === true && spec.method === 'GET') {
        const backlogged = app.audits.add(readEntry(request, clock.now()));
        if (backlogged !== undefined) await backlogged;
      }
      if (stream !== undefined) {
        await streamAnswer(res, headers, first!, stream, (result as StreamedJson).contentType);
        route.meter.end(started, 200, '', req.body, auth?.tenantId);
        return;
      }
      const reply = successReply(result, headers, spec.answers);
      res.send(reply);
      route.meter.end(started, reply.status, reply.body, req.body, auth?.tenantId);
    } catch (err) {
      const challenge = spec.access === 'tenant' ? bearerChallenge(err, req.method) : undefined;
      if (challenge !== undefined) headers.push(['www-authenticate', challenge]);
      const reply = errorReply(err, headers, spec.answers);
      res.send(reply);
      route.meter.end(started, reply.status, reply.body, req.body, auth?.tenantId);
      if (charge !== undefined) await charge.failed();
      else if (auth !== undefined) app.charges.add(auth.tenantId, 0, { apiErrorCount: 1 }, clock.now(), false);
    } finally {
      inFlight--;
    }
  }

  /** Answers a request that reached no handler, counted under `meter`. */
  const answer = (req: IncomingRequest, res: Responder, reply: Reply, meter: RouteMeter, started: number) => {
    res.send(reply);
    meter.end(started, reply.status, reply.body, req.body);
  };

  const handle: RequestHandler = (req, res) => {
    let match;
    try {
      match = router.match(req.method, req.path);
    } catch (err) {
      answer(req, res, errorReply(err), UNMATCHED, UNMATCHED.start());
      return;
    }
    if (match === undefined) {
      answer(req, res, errorReply(new ApiError('route-not-found', `No route for ${req.method} ${req.path}.`)), UNMATCHED, UNMATCHED.start());
      return;
    }
    if ('allowed' in match) {
      // Preflights and wrong methods count under the path's pattern, with their own method.
      const meter = routeMeter(req.method, match.routes[0]!.spec.path);
      const started = meter.start();
      if (req.method === 'OPTIONS' && match.routes.some((r) => r.spec.cors === 'anyone')) {
        answer(req, res, { status: 204, body: '', headers: [ANYONE, ...preflightHeaders(req, match.allowed)] }, meter, started);
        return;
      }
      const widgetPath = match.routes.some((r) => r.spec.access === 'public');
      if (req.method === 'OPTIONS' && widgetPath) {
        void preflight(req, res, match.params, match.allowed).then((reply) => meter.end(started, reply.status, reply.body, req.body));
        return;
      }
      const allow = match.allowed.join(', ');
      answer(req, res, errorReply(new ApiError('method-not-allowed', `${req.method} is not accepted here; use ${allow}.`), [['allow', allow]]), meter, started);
      return;
    }
    void run(match.value, req, match.params, res);
  };

  /** A browser's CORS preflight of a widget route: admitted sites get the methods and headers. */
  async function preflight(req: IncomingRequest, res: Responder, params: Record<string, string>, allowed: readonly string[]): Promise<Reply> {
    const headers: Headers = [];
    let reply: Reply;
    try {
      const admitted = admitPublic(app, req, params, headers);
      if (admitted instanceof Promise) await admitted;
      headers.push(...preflightHeaders(req, allowed));
      reply = { status: 204, body: '', headers };
    } catch (err) {
      reply = errorReply(err, headers);
    }
    res.send(reply);
    return reply;
  }

  async function settle(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (inFlight > 0) {
      if (Date.now() >= deadline) return false;
      await new Promise((r) => setTimeout(r, 5));
    }
    return true;
  }

  return { handle, settle };
}
