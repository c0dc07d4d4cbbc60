import { TenantKind } from '../actors/tenant/tenant-actor.js';
import { clock } from '../engine/clock.js';
import { ApiError } from '../engine/errors.js';
import { authenticate, type AuthInfo } from './auth.js';
import { beginCharge, type CallCharge } from './billing.js';
import { parseQuery } from './query.js';
import { errorReply, successReply } from './respond.js';
import { type AnyRoute, type Method, type RouteRequest, type Schema } from './route.js';
import { Router } from './router.js';
import type { AppServices } from './services.js';
import type { IncomingRequest, RequestHandler, Responder } from './uws.js';
import { compile, type Check } from './validation.js';

interface CompiledRoute {
  readonly spec: AnyRoute;
  readonly checkQuery: Check;
  readonly checkParams: Check | undefined;
  readonly checkBody: Check | undefined;
}

type Headers = [string, string][];

const CREDENTIAL_PARAMS: Schema = { tenantId: { type: 'string' }, API_KEY: { type: 'string' } };
const EMPTY_QUERY: Schema = { type: 'object', properties: {} };
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

function compileRoute(spec: AnyRoute): CompiledRoute {
  const query = spec.query ?? EMPTY_QUERY;
  const withCredentials =
    spec.access === 'tenant'
      ? { ...query, properties: { ...CREDENTIAL_PARAMS, ...(query['properties'] as Schema | undefined) } }
      : query;
  return {
    spec,
    checkQuery: compile('query', withCredentials, spec.missingCodes),
    checkParams: spec.params ? compile('path', spec.params, spec.missingCodes) : undefined,
    checkBody: spec.body ? compile('body', spec.body, spec.missingCodes) : undefined,
  };
}

function parseBody(req: IncomingRequest, route: CompiledRoute): unknown {
  const raw = req.body;
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
  if (type !== undefined && type !== '' && !JSON_TYPE.test(type)) throw new ApiError('unsupported-media-type');
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new ApiError('invalid-json', `The request body is not valid JSON: ${(err as Error).message}`);
  }
  route.checkBody(body);
  return body;
}

function corsHeaders(req: IncomingRequest): Headers {
  const origin = req.headers['origin'];
  if (!origin) return [];
  return [
    ['access-control-allow-origin', origin],
    ['access-control-allow-credentials', 'true'],
    ['vary', 'origin'],
  ];
}

/**
 * Builds the handler for every HTTP request: route, authenticate, validate, run, charge,
 * answer. Schemas are compiled here, once. Refused requests reach no actor beyond the
 * credential check, so they change nothing.
 */
export function createPipeline(routes: readonly AnyRoute[], app: AppServices): RequestHandler {
  const router = new Router<CompiledRoute>();
  for (const spec of routes) router.add(spec.method, spec.path, compileRoute(spec));

  async function run(route: CompiledRoute, req: IncomingRequest, params: Record<string, string>, res: Responder): Promise<void> {
    const spec = route.spec;
    const headers: Headers = spec.access === 'public' ? corsHeaders(req) : [];
    let auth: AuthInfo | undefined;
    let charge: CallCharge | undefined;
    try {
      const query = parseQuery(req.query);
      if (spec.access === 'tenant') auth = await authenticate(req, query, app);
      route.checkParams?.(params);
      route.checkQuery(query);
      const body = parseBody(req, route);
      const request: RouteRequest = {
        method: req.method as Method,
        path: req.path,
        params,
        query,
        body,
        headers: req.headers,
        get ip() {
          return req.ip;
        },
        auth,
        tenantId: auth?.tenantId ?? '',
        app,
        setHeader: (name, value) => void headers.push([name, value]),
      };
      if (auth !== undefined) charge = beginCharge(app, auth.tenantId, spec, request);
      let result = await spec.handle(request);
      if (charge !== undefined) result = await charge.succeeded(result);
      res.send(successReply(result, headers));
    } catch (err) {
      res.send(errorReply(err, headers));
      if (charge !== undefined) await charge.failed();
      else if (auth !== undefined) app.system.tell(TenantKind, auth.tenantId, 'charge', { credits: 0, counts: { apiErrorCount: 1 }, at: clock.now() });
    }
  }

  return (req, res) => {
    let match;
    try {
      match = router.match(req.method, req.path);
    } catch (err) {
      res.send(errorReply(err));
      return;
    }
    if (match === undefined) {
      res.send(errorReply(new ApiError('route-not-found', `No route for ${req.method} ${req.path}.`)));
      return;
    }
    if ('allowed' in match) {
      const widgetPath = match.routes.some((r) => r.spec.access === 'public');
      if (req.method === 'OPTIONS' && widgetPath) {
        res.send({
          status: 204,
          body: '',
          headers: [
            ...corsHeaders(req),
            ['access-control-allow-methods', match.allowed.join(', ')],
            ['access-control-allow-headers', req.headers['access-control-request-headers'] || 'content-type'],
            ['access-control-max-age', '600'],
          ],
        });
        return;
      }
      const allow = match.allowed.join(', ');
      res.send(errorReply(new ApiError('method-not-allowed', `${req.method} is not accepted here; use ${allow}.`), [['allow', allow]]));
      return;
    }
    void run(match.value, req, match.params, res);
  };
}
