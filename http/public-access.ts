/**
 * The door of the public (widget) routes: per-client limits, the site check, and CORS. Browsers
 * call these routes from the pages that host the widget, with credentials (the anonymous
 * session cookie), so CORS names the caller's origin; it does so only for sites the tenant
 * admits, and never for `Origin: null`.
 */
import { ApiError } from '../engine/errors.js';
import { limitKey } from './client-address.js';
import { checkSite, requestSite } from './site-check.js';
import { PROFILES_CHANNEL } from './live/sub-channel.js';
import type { AppServices } from './services.js';
import type { IncomingRequest } from './uws/index.js';

type Headers = [string, string][];

/**
 * CORS for widget routes: the caller's origin, with credentials. Never for `Origin: null`
 * (sandboxed frames, `file:` and `data:` pages, some redirects): any page can make its requests
 * carry it, so allowing it with credentials would allow everyone.
 */
export function corsHeaders(req: IncomingRequest): Headers {
  const origin = req.headers['origin'];
  if (!origin || origin === 'null') return [];
  return [
    ['access-control-allow-origin', origin],
    ['access-control-allow-credentials', 'true'],
    ['vary', 'origin'],
  ];
}

/**
 * The tenant a public route names: its `:tenantId`, else its `tenantId` query parameter (the
 * widget's flag, block and notification routes), which may also be the tenant's `tenantIdWS`.
 */
function namedTenant(app: AppServices, params: Readonly<Record<string, string>>, rawQuery: string): string | undefined {
  const named = params['tenantId'] ?? (rawQuery.includes('tenantId=') ? (new URLSearchParams(rawQuery).get('tenantId') ?? undefined) : undefined);
  // The per-user channel's log names no tenant: its route checks the site of the user's tenant.
  if (named === PROFILES_CHANNEL) return undefined;
  return named === undefined || named === '' ? undefined : (app.liveIds.tenantOf(named) ?? named);
}

/**
 * Admits a request to a public route, or throws its refusal: for routes of a tenant, the site
 * the browser calls from; then the client's budget of requests, and of writes for methods
 * other than GET. The CORS headers are added to `headers` unless the site was refused, so that
 * a browser on an admitted site can read every answer, refusals included.
 */
export function admitPublic(app: AppServices, req: IncomingRequest, params: Readonly<Record<string, string>>, headers: Headers): void | Promise<void> {
  const tenantId = namedTenant(app, params, req.query);
  let checked: void | Promise<void>;
  try {
    checked = tenantId === undefined ? undefined : checkSite(app.system, tenantId, requestSite(req.headers), app.config.openSitesWithoutDomains);
  } catch (err) {
    throw refused(err, req, headers);
  }
  if (checked instanceof Promise) {
    return checked.then(
      () => spend(app, req, headers),
      (err: unknown) => {
        throw refused(err, req, headers);
      },
    );
  }
  spend(app, req, headers);
}

/** A refusal of the site check: readable by the browser unless it is the site that was refused. */
function refused(err: unknown, req: IncomingRequest, headers: Headers): unknown {
  if (!(err instanceof ApiError && err.code === 'domain-not-allowed')) headers.push(...corsHeaders(req));
  return err;
}

function spend(app: AppServices, req: IncomingRequest, headers: Headers): void {
  headers.push(...corsHeaders(req));
  const client = limitKey(req.ip);
  app.limits.requests.spend(client, 'requests');
  if (req.method !== 'GET' && req.method !== 'OPTIONS') app.limits.writes.spend(client, 'writes');
}
