/**
 * Which sites may host a tenant's widget: its domain configurations decide. A browser names
 * the page a request comes from (`Origin`, else `Referer`); when the tenant has configured at
 * least one domain, the public routes refuse browsers on any other site with 403
 * `domain-not-allowed`, and answer CORS only for the sites they admit. A tenant with no domain
 * configured admits every site (the development default). Requests that name no site are not
 * made by a browser page (servers, command-line tools) and are not refused for it.
 */
import { siteAllowed } from '../actors/tenant/domain-configs.js';
import { tenantSettings } from '../actors/tenant/tenant-actor.js';
import type { ActorSystem } from '../engine/actor-system.js';
import { ApiError } from '../engine/errors.js';

/** The site (host, and port when given) of the page a browser request comes from, lower-cased; undefined when none is named. */
export function requestSite(headers: Readonly<Record<string, string>>): string | undefined {
  const named = headers['origin'] || headers['referer'];
  if (!named || named === 'null') return named === 'null' ? 'null' : undefined;
  try {
    return new URL(named).host.toLowerCase() || 'null';
  } catch {
    return 'null';
  }
}

/** Refuses `site` (from `requestSite`) unless `domains` is empty or admits it. */
export function assertSiteAllowed(domains: readonly string[], site: string | undefined): void {
  if (domains.length === 0 || site === undefined) return;
  if (site === 'null' || !siteAllowed(domains, site)) {
    throw new ApiError('domain-not-allowed', `This site is not one of the domains configured to host this widget${site === 'null' ? '' : ` (${site})`}.`);
  }
}

const TENANT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Checks the site of a browser request (from `requestSite`) to a tenant's public route.
 * Settings are usually a published view (no message); the check then completes without awaiting.
 */
export function checkSite(system: ActorSystem, tenantId: string, site: string | undefined): void | Promise<void> {
  if (site === undefined) return;
  if (!TENANT_ID.test(tenantId)) throw new ApiError('invalid-tenant-id');
  const settings = tenantSettings(system, tenantId, null);
  if (settings instanceof Promise) return settings.then((s) => assertSiteAllowed(s.allowedDomains, site));
  assertSiteAllowed(settings.allowedDomains, site);
}
