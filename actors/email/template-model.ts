/** Email templates: their rules and API shapes, as pure functions the actors call. */
import { createHash } from 'node:crypto';
import { ApiError } from '../../engine/errors.js';
import type { DomainConfigDoc } from '../tenant/domain-configs.js';
import { definitionOf, type EmailTemplateDefinition, translationsFor } from '../../email/definitions.js';
import type { EmailTemplateDoc, RenderErrorDoc, Translations } from './protocol.js';

/** The wildcard domain: a template for every domain without one of its own. */
export const WILDCARD = '*';

/** Templates listed per page (the specification's page size). */
export const TEMPLATE_PAGE_SIZE = 100;

/** Templates one tenant may have. */
export const MAX_TEMPLATES_PER_TENANT = 1000;

/** Distinct render errors kept per template; the least recent is dropped for a new one. */
export const MAX_RENDER_ERRORS_PER_TEMPLATE = 100;

/** A template's uniqueness slot: one per (emailTemplateId, domain), null and `*` being one. */
export function slotOf(emailTemplateId: string, domain: string | null): string {
  return `${emailTemplateId} ${domain ?? WILDCARD}`;
}

/** The definition of an id, or `invalid-email-template-id`. */
export function requireDefinition(emailTemplateId: string): EmailTemplateDefinition {
  const definition = definitionOf(emailTemplateId);
  if (definition === undefined) {
    throw new ApiError('invalid-email-template-id', `"${emailTemplateId}" is not an emailTemplateId; GET /api/v1/email-templates/definitions lists them.`);
  }
  return definition;
}

/**
 * A template's domain as stored: null (absent), `*`, or one of the tenant's configured domains
 * (compared lower-cased); another domain is refused with the list of valid ones.
 */
export function checkTemplateDomain(raw: string | null | undefined, configs: readonly DomainConfigDoc[]): string | null {
  if (raw === undefined || raw === null) return null;
  const domain = raw.trim().toLowerCase();
  if (domain === WILDCARD) return WILDCARD;
  if (configs.some((c) => c.domain === domain)) return domain;
  const valid = configs.map((c) => c.domain);
  throw new ApiError(
    'domain-invalid',
    valid.length === 0
      ? `The domain "${raw}" matches no domain configuration: this tenant has none (add one with POST /api/v1/domain-configs, or use "*").`
      : `The domain "${raw}" matches no domain configuration of this tenant. Valid domains: ${valid.join(', ')} (or "*").`,
  );
}

/**
 * The domain configuration for a host (a comment's site): the one named exactly, else the
 * closest `*.` pattern covering it.
 */
export function domainConfigFor(configs: readonly DomainConfigDoc[], host: string | null): DomainConfigDoc | undefined {
  if (host === null) return undefined;
  const wanted = host.toLowerCase();
  const exact = configs.find((c) => c.domain === wanted);
  if (exact !== undefined) return exact;
  let best: DomainConfigDoc | undefined;
  for (const c of configs) {
    if (!c.domain.startsWith('*.')) continue;
    const suffix = c.domain.slice(1);
    if (wanted.endsWith(suffix) && (best === undefined || c.domain.length > best.domain.length)) best = c;
  }
  return best;
}

/** The API shape (`CustomEmailTemplate`). */
export function templateView(doc: EmailTemplateDoc): Record<string, unknown> {
  return {
    _id: doc._id,
    tenantId: doc.tenantId,
    emailTemplateId: doc.emailTemplateId,
    displayName: doc.displayName,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
    updatedByUserId: doc.updatedByUserId,
    domain: doc.domain,
    ejs: doc.ejs,
    translationOverridesByLocale: doc.translationOverridesByLocale,
    testData: doc.testData,
  };
}

/** The API shape (`EmailTemplateRenderErrorResponse`). */
export function renderErrorView(doc: RenderErrorDoc): Record<string, unknown> {
  return {
    id: doc._id,
    tenantId: doc.tenantId,
    customTemplateId: doc.customTemplateId,
    error: doc.error,
    count: doc.count,
    createdAt: doc.createdAt,
    lastOccurredAt: doc.lastOccurredAt,
  };
}

/** The id of a template's render error: one per template and message. */
export function renderErrorId(templateId: string, error: string): string {
  return `${templateId}-${createHash('sha256').update(error).digest('hex').slice(0, 16)}`;
}

/** What the render pool takes for a template (or a definition's default) with its locals. */
export function renderInput(
  definition: EmailTemplateDefinition,
  template: { ejs: string; translationOverridesByLocale?: Translations } | null,
  data: Readonly<Record<string, unknown>>,
  locale: string | null,
): { ejs: string; subject: string; data: Record<string, unknown> } {
  const text = translationsFor(definition, locale, template?.translationOverridesByLocale);
  return { ejs: template?.ejs ?? definition.defaultEJS, subject: text['SUBJECT'] ?? '', data: { ...data, TEXT: text } };
}

/**
 * The test data a template is checked with: the caller's merged over its definition's, so
 * a preview or a check never fails on a field (often one the subject reads) the caller did
 * not send. Plain objects merge key by key at every depth; any other value replaces.
 */
export function testDataOf(definition: EmailTemplateDefinition, testData: Record<string, unknown> | undefined): Record<string, unknown> {
  return mergeOver(definition.defaultTestData, testData ?? {});
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mergeOver(base: Readonly<Record<string, unknown>>, over: Readonly<Record<string, unknown>>): Record<string, unknown> {
  // Object.fromEntries defines own properties: a `__proto__` key from JSON stays a plain key.
  const merged = Object.fromEntries(Object.entries(base)) as Record<string, unknown>;
  const entries: [string, unknown][] = Object.entries(over).map(([key, value]) => {
    const under = Object.hasOwn(merged, key) ? merged[key] : undefined;
    return [key, isPlainObject(under) && isPlainObject(value) ? mergeOver(under, value) : value];
  });
  return Object.fromEntries([...Object.entries(merged), ...entries]) as Record<string, unknown>;
}

/** The locale a template is checked in: the test data's, else the default. */
export function localeOf(data: Readonly<Record<string, unknown>>): string | null {
  return typeof data['locale'] === 'string' ? data['locale'] : null;
}
