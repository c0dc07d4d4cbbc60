/**
 * Which sites may host a tenant's widget: its domain configurations decide. A browser names
 * the page a request comes from (`Origin`, else `Referer`); when the tenant has configured at
 * least one domain, the public routes refuse browsers on any other site with 403
 * `domain-not-allowed`, and answer CORS only for the sites they admit. A tenant with no domain
 * configured admits only local development sites (`localhost`, its subdomains, and loopback
 * addresses), unless the operator opts in to every site (`OPEN_SITES_WITHOUT_DOMAINS`): the
 * list fails closed, so deleting a tenant's last domain never re-admits the deleted site.
 * Requests that name no site are not made by a browser page (servers, command-line tools) and
 * are not refused for it.
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

/** Whether a site (`host[:port]`) is a local development one: `localhost` (and its subdomains) or a loopback address. */
export function isLocalSite(site: string): boolean {
  const host = site.startsWith('[') ? site.slice(0, site.indexOf(']') + 1) : site.replace(/:\d+$/, '');
  return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/**
 * Refuses `site` (from `requestSite`) unless `domains` admits it; with no domain, only local
 * sites are admitted, or every site when `openWithoutDomains`.
 */
export function assertSiteAllowed(domains: readonly string[], site: string | undefined, openWithoutDomains = false): void {
  if (site === undefined) return;
  if (domains.length === 0) {
    if (openWithoutDomains || isLocalSite(site)) return;
    throw new ApiError(
      'domain-not-allowed',
      `This site has no domain configured, so only localhost may host its widget${site === 'null' ? '' : ` (not ${site})`}: add the domain with POST /api/v1/domain-configs.`,
    );
  }
  if (site === 'null' || !siteAllowed(domains, site)) {
    throw new ApiError('domain-not-allowed', `This site is not one of the domains configured to host this widget${site === 'null' ? '' : ` (${site})`}.`);
  }
}

const TENANT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Checks the site of a browser request (from `requestSite`) to a tenant's public route.
 * Settings are usually a published view (no message); the check then completes without awaiting.
 */
export function checkSite(system: ActorSystem, tenantId: string, site: string | undefined, openWithoutDomains = false): void | Promise<void> {
  if (site === undefined) return;
  if (!TENANT_ID.test(tenantId)) throw new ApiError('invalid-tenant-id');
  const settings = tenantSettings(system, tenantId, null);
  if (settings instanceof Promise) return settings.then((s) => assertSiteAllowed(s.allowedDomains, site, openWithoutDomains));
  assertSiteAllowed(settings.allowedDomains, site, openWithoutDomains);
}
