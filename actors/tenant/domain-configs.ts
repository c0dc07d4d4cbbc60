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
