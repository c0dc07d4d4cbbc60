/**
 * HTTP families: requests by route pattern, method and status class; latency per route
 * pattern; body bytes; refusals by error code. Labels come only from the route table and the
 * error catalog, never from a raw path, so a flood of distinct URLs adds no series: requests no
 * route matches count under the pattern `unmatched`.
 */
import { Count, CountFamily, LATENCY_BUCKETS, Timing, TimingFamily } from './families.js';
import { metricsState, PREFIX, register, TIMING_SAMPLE } from './registry.js';

/**
 * Children of the per-route families are made when routes are compiled (five status classes a
 * route, and its preflight): the route table bounds them, so the cap only has to exceed it.
 */
const ROUTE_SERIES_CAP = 8000;

const requests = register(
  new CountFamily('counter', `${PREFIX}http_requests_total`, 'HTTP requests answered, by route pattern, method and status class.', ['route', 'method', 'status_class'], ROUTE_SERIES_CAP),
);
const latency = register(
  new TimingFamily(
    `${PREFIX}http_request_duration_seconds`,
    `Time from a request read to its answer written, by route pattern and method; one request in ${TIMING_SAMPLE} per route is timed (counts: ${PREFIX}http_requests_total).`,
    LATENCY_BUCKETS,
    ['route', 'method'],
    ROUTE_SERIES_CAP,
  ),
);
const requestBytes = register(new CountFamily('counter', `${PREFIX}http_request_body_bytes_total`, 'Request body bytes received, by route pattern.', ['route'], ROUTE_SERIES_CAP));
const responseBytes = register(new CountFamily('counter', `${PREFIX}http_response_body_bytes_total`, 'Response body size sent, by route pattern (bytes of binary bodies, characters of text ones).', ['route'], ROUTE_SERIES_CAP));
const refusals = register(new CountFamily('counter', `${PREFIX}http_refusals_total`, 'Refused requests and websocket upgrades, by error code (the error catalog).', ['code']));
const tenantRequests = register(
  new CountFamily('counter', `${PREFIX}tenant_http_requests_total`, 'Authenticated API requests of the tenants named in METRICS_TENANTS, by status class.', ['tenant', 'status_class'], 400),
);

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;

/** Tenants given their own series (`METRICS_TENANTS`), with their children by status class. */
const tenants = new Map<string, Count[]>();

/** At most this many tenants may be named: each adds five series. */
export const MAX_METRICS_TENANTS = 50;

/** Names the tenants whose authenticated requests get their own series (opt-in, bounded). */
export function watchTenants(ids: readonly string[]): void {
  tenants.clear();
  for (const id of ids.slice(0, MAX_METRICS_TENANTS)) {
    if (!tenants.has(id)) tenants.set(id, CLASSES.map((c) => tenantRequests.child(id, c)));
  }
}

function statusIndex(status: number): number {
  const i = Math.floor(status / 100) - 1;
  return i < 0 ? 0 : i > 4 ? 4 : i;
}

/**
 * The children of one route pattern and method, resolved once when the route is compiled: a
 * request then costs a clock read (when metrics are on) and a few additions.
 */
export class RouteMeter {
  readonly #byClass: Count[];
  readonly #latency: Timing;
  readonly #requestBytes: Count;
  readonly #responseBytes: Count;
  #tick = 0;

  constructor(method: string, pattern: string) {
    this.#byClass = CLASSES.map((c) => requests.child(pattern, method, c));
    this.#latency = latency.child(pattern, method);
    this.#requestBytes = requestBytes.child(pattern);
    this.#responseBytes = responseBytes.child(pattern);
  }

  /** A start mark for `end`: the clock for a sampled request when metrics are on, else 0 (not timed). */
  start(): number {
    return metricsState.on && ++this.#tick % TIMING_SAMPLE === 0 ? performance.now() : 0;
  }

  /** Counts an answered request; `tenantId` when it was authenticated. */
  end(started: number, status: number, body: string | Buffer, requestBody: Buffer | undefined, tenantId?: string): void {
    const index = statusIndex(status);
    this.#byClass[index]!.n++;
    if (started !== 0) this.#latency.observe((performance.now() - started) / 1000);
    if (requestBody !== undefined) this.#requestBytes.n += requestBody.length;
    this.#responseBytes.n += body.length;
    if (tenantId !== undefined && tenants.size > 0) {
      const children = tenants.get(tenantId);
      if (children !== undefined) children[index]!.n++;
    }
  }
}

const meters = new Map<string, RouteMeter>();

/** The meter of a route pattern and method (made once, shared). */
export function routeMeter(method: string, pattern: string): RouteMeter {
  const m = METHODS.has(method) ? method : 'OTHER';
  const key = `${m} ${pattern}`;
  let meter = meters.get(key);
  if (meter === undefined) meters.set(key, (meter = new RouteMeter(m, pattern)));
  return meter;
}

/** Requests no route pattern matched, whatever their path and method. */
export const UNMATCHED = routeMeter('OTHER', 'unmatched');

const refusalChildren = new Map<string, Count>();

/** Counts a refusal by its catalog code. */
export function countRefusal(code: string): void {
  let child = refusalChildren.get(code);
  if (child === undefined) refusalChildren.set(code, (child = refusals.child(code)));
  child.n++;
}

/** Families of this module, for tests of their bounds. */
export const HTTP_FAMILIES = { requests, latency, refusals, tenantRequests } as const;
