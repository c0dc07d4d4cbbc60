/**
 * `/api/v1/tenants`: white labelling. A tenant whose package allows it creates and manages
 * tenants of its own (one level only); its key acts on them. Rules and codes: docs/identity.md.
 */
import { purgeTenant } from '../../actors/jobs/tenant-purge-actor.js';
import { TenantKind } from '../../actors/tenant/tenant-actor.js';
import type { TenantSnapshot } from '../../actors/tenant/tenant-admin.js';
import { tenantView } from '../../actors/tenant/tenant-record.js';
import { DirectoryKind } from '../../actors/user/directory-actor.js';
import { ApiError } from '../../engine/errors.js';
import { perObjects, route, type Schema } from '../route.js';
import { reachTenant } from '../tenant-reach.js';
import { imageSrc, link, nullableText, text } from './page-context.js';
import { bool } from './user-fields.js';

/** Tenants listed per page. */
const TENANT_PAGE_SIZE = 100;

const DOMAIN: Schema = {
  type: 'object',
  properties: {
    id: text(64),
    domain: text(253),
    emailFromName: nullableText(200),
    emailFromEmail: nullableText(300),
    logoSrc: { ...imageSrc(2048, true) },
    logoSrc100px: { ...imageSrc(2048, true) },
    footerUnsubscribeURL: link(2048),
    emailHeaders: { type: 'object', additionalProperties: text(1000), maxProperties: 50 },
    createdAt: text(64),
    autoAddedDate: text(64),
    siteType: { type: 'integer', enum: [0, 1] },
    wpSyncToken: nullableText(256),
    wpSynced: bool,
    wpURL: nullableText(2048),
    disableUnsubscribeLinks: bool,
  },
  required: ['domain'],
};

const FIELDS: Record<string, Schema> = {
  name: text(1000),
  email: nullableText(1000),
  signUpDate: { type: 'number', minimum: 0, maximum: 8_640_000_000_000_000 },
  packageId: nullableText(64),
  paymentFrequency: { type: 'number' },
  billingInfoValid: bool,
  billingHandledExternally: bool,
  createdBy: text(256),
  isSetup: bool,
  domainConfiguration: { type: 'array', items: DOMAIN, maxItems: 100 },
  billingInfo: {
    type: 'object',
    properties: { name: text(500), address: text(500), city: text(500), state: text(500), zip: text(100), country: text(100), currency: nullableText(16), email: text(320) },
    required: ['name', 'address', 'city', 'state', 'zip', 'country'],
  },
  stripeCustomerId: text(256),
  stripeSubscriptionId: text(256),
  stripePlanId: text(256),
  enableProfanityFilter: bool,
  enableSpamFilter: bool,
  removeUnverifiedComments: bool,
  unverifiedCommentsTTLms: { type: 'number', minimum: 0 },
  commentsRequireApproval: bool,
  autoApproveCommentOnVerification: bool,
  sendProfaneToSpam: bool,
  deAnonIpAddr: { type: 'number' },
  meta: { type: ['object', 'null'], propertyNames: { pattern: '^[^.$]{1,100}$' }, additionalProperties: nullableText(2000), maxProperties: 100 },
};

const CREATE_BODY: Schema = { type: 'object', properties: FIELDS, required: ['name', 'domainConfiguration'] };
const UPDATE_BODY: Schema = { type: 'object', properties: { ...FIELDS, managedByTenantId: text(64) }, minProperties: 1 };
const ID_PARAM: Schema = { type: 'object', properties: { id: text(64, 1) }, required: ['id'] };

const view = (s: TenantSnapshot) => tenantView(s.tenant, s.domains, s.package);

/** The `meta` filter: URI-encoded JSON of string (or null) values. */
function metaFilter(raw: string | undefined): Record<string, unknown> | null {
  if (raw === undefined || raw === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ApiError('invalid-param', 'meta must be URI-encoded JSON: an object of keys and values.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || Object.values(parsed).some((v) => v !== null && typeof v !== 'string')) {
    throw new ApiError('invalid-param', 'meta must be a JSON object whose values are strings.');
  }
  return parsed as Record<string, unknown>;
}

export const tenantRoutes = [
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/api/v1/tenants/:id',
    access: 'tenant',
    params: ID_PARAM,
    handle: async (req) => ({ tenant: view(await reachTenant(req, req.params['id']!)) }),
  }),
  route<{ skip?: number; meta?: string }, undefined, { tenants: Record<string, unknown>[] }>({
    method: 'GET',
    path: '/api/v1/tenants',
    access: 'tenant',
    query: { type: 'object', properties: { skip: { type: 'integer', minimum: 0, maximum: 100_000_000 }, meta: text(8192) } },
    credits: (_req, result) => perObjects(result.tenants.length, 10),
    handle: async ({ app, tenantId, query }) => {
      const meta = metaFilter(query.meta);
      const found = await app.system.ask(DirectoryKind, tenantId, 'listTenants', { skip: query.skip ?? 0, limit: TENANT_PAGE_SIZE, meta });
      return { tenants: found.map(view) };
    },
  }),
  route<Record<string, unknown>, Record<string, unknown>>({
    method: 'POST',
    path: '/api/v1/tenants',
    access: 'tenant',
    body: CREATE_BODY,
    missingCodes: { name: 'name-invalid' },
    handle: async ({ app, tenantId, body }) => ({ tenant: view(await app.system.ask(TenantKind, tenantId, 'createChild', { input: body })) }),
  }),
  route<Record<string, unknown>, Record<string, unknown>>({
    method: 'PATCH',
    path: '/api/v1/tenants/:id',
    access: 'tenant',
    params: ID_PARAM,
    body: UPDATE_BODY,
    handle: async (req) => {
      const target = await reachTenant(req, req.params['id']!);
      const own = target.tenant._id === req.auth!.keyTenantId;
      return { tenant: view(await req.app.system.ask(TenantKind, target.tenant._id, 'updateTenant', { input: req.body, own })) };
    },
  }),
  route<{ su?: boolean; sure?: boolean }, undefined>({
    method: 'DELETE',
    path: '/api/v1/tenants/:id',
    access: 'tenant',
    params: ID_PARAM,
    query: { type: 'object', properties: { su: bool, sure: bool } },
    handle: async (req) => {
      if (req.query.su !== true && req.query.sure !== true) throw new ApiError('unsure');
      const target = await reachTenant(req, req.params['id']!, true);
      await purgeTenant(req.app.system, target.tenant._id);
      return {};
    },
  }),
];
