/** Domain configurations: which sites may host the widget, and their email settings. */
import { ApiError } from '../../engine/errors.js';
import type { Doc } from '../../storage/store.js';

/** Fields a caller may set (AddDomainConfigParams / UpdateDomainConfigParams in the API). */
export interface DomainConfigInput {
  domain?: string;
  emailFromName?: string;
  emailFromEmail?: string;
  logoSrc?: string;
  logoSrc100px?: string;
  footerUnsubscribeURL?: string;
  emailHeaders?: Record<string, string>;
}

export interface DomainConfigDoc extends Doc, Omit<DomainConfigInput, 'domain'> {
  tenantId: string;
  domain: string;
  createdAt: string;
}

export const DOMAIN_CONFIG_FIELDS = [
  'emailFromName',
  'emailFromEmail',
  'logoSrc',
  'logoSrc100px',
  'footerUnsubscribeURL',
  'emailHeaders',
] as const;

const HOST = /^(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*(:\d{1,5})?$/;

/** Lower-cases and checks a domain (`example.com`, `*.example.com`, `localhost:3000`). */
export function normalizeDomain(raw: string): string {
  const domain = raw.trim().toLowerCase();
  if (domain.length === 0 || domain.length > 253 || !HOST.test(domain)) {
    throw new ApiError('invalid-domain', `"${raw}" is not a valid domain.`);
  }
  return domain;
}

/**
 * Whether a site (a host, with its port when not the scheme's default: `blog.example.com`,
 * `localhost:3000`) is one of the configured domains or a subdomain of one. A domain without
 * a port covers every port; `*.example.com` covers the subdomains of example.com only.
 */
export function siteAllowed(domains: readonly string[], site: string): boolean {
  const colon = site.lastIndexOf(':');
  const hasPort = colon > 0 && !site.endsWith(']') && /^\d+$/.test(site.slice(colon + 1));
  const host = hasPort ? site.slice(0, colon) : site;
  for (const domain of domains) {
    const wildcard = domain.startsWith('*.');
    const bare = wildcard ? domain.slice(2) : domain;
    const portAt = bare.lastIndexOf(':');
    const domainHost = portAt > 0 ? bare.slice(0, portAt) : bare;
    if (portAt > 0 && (!hasPort || site.slice(colon + 1) !== bare.slice(portAt + 1))) continue;
    if ((!wildcard && host === domainHost) || host.endsWith(`.${domainHost}`)) return true;
  }
  return false;
}

/** The API shape (APIDomainConfiguration). */
export function domainConfigView(doc: DomainConfigDoc): Record<string, unknown> {
  const { _id, tenantId: _tenantId, ...rest } = doc;
  return { id: _id, ...rest };
}

/** What a configuration keeps across a replacement: its id, tenant and creation time. */
export function identityOf(doc: DomainConfigDoc): Pick<DomainConfigDoc, '_id' | 'tenantId' | 'createdAt'> {
  return { _id: doc._id, tenantId: doc.tenantId, createdAt: doc.createdAt };
}

/** A new or replaced configuration from a full input; `base` keeps identity and creation time. */
export function buildDomainConfig(base: Pick<DomainConfigDoc, '_id' | 'tenantId' | 'createdAt'>, domain: string, input: DomainConfigInput): DomainConfigDoc {
  const doc: DomainConfigDoc = { ...base, domain };
  for (const field of DOMAIN_CONFIG_FIELDS) {
    if (input[field] !== undefined) (doc as Record<string, unknown>)[field] = input[field];
  }
  return doc;
}
