/**
 * `/api/v1/tenant-packages`: the packages a white-label tenant makes for the tenants it
 * manages (docs/identity.md). A package is written only by the tenant managing its tenant,
 * with the manager's own package as the ceiling; the tenant it is for may read it.
 */
import { TenantKind } from '../../actors/tenant/tenant-actor.js';
import { TENANT_COLLECTIONS } from '../../actors/tenant/collections.js';
import { allowsWhiteLabel, FLEX_OPTIONAL, FLEX_REQUIRED, MAX_FIELDS, packageView, type TenantPackageDoc } from '../../actors/tenant/packages.js';
import type { TenantSnapshot } from '../../actors/tenant/tenant-admin.js';
import { DirectoryKind } from '../../actors/user/directory-actor.js';
import { ApiError } from '../../engine/errors.js';
import { perObjects, route, type RouteRequest, type Schema } from '../route.js';
import { ownCredential, reachTenant } from '../tenant-reach.js';
import { nullableText, text } from './page-context.js';
import { bool } from './user-fields.js';

const PACKAGE_PAGE_SIZE = 100;
const amount: Schema = { type: 'number', minimum: 0, maximum: 1e15 };
const nullableAmount: Schema = { type: ['number', 'null'], minimum: 0, maximum: 1e15 };

const FIELDS: Record<string, Schema> = {
  tenantId: text(64, 1),
  name: text(1000),
  monthlyCostUSD: nullableAmount,
  yearlyCostUSD: nullableAmount,
  monthlyStripePlanId: nullableText(256),
  yearlyStripePlanId: nullableText(256),
  templateId: text(64),
  forWhoText: { anyOf: [text(10_000), { type: 'array', items: text(10_000), maxItems: 50 }] },
  featureTaglines: { type: 'array', items: text(10_000), maxItems: 50 },
  hasWhiteLabeling: bool,
  hasDebranding: bool,
  hasLLMSpamDetection: bool,
  hasAuditing: bool,
  hasFlexPricing: bool,
  enableSAML: bool,
  ...Object.fromEntries([...MAX_FIELDS, ...FLEX_REQUIRED, ...FLEX_OPTIONAL].map((field) => [field, amount])),
};
const BODY: Schema = { type: 'object', properties: FIELDS };
const PATCH_BODY: Schema = { type: 'object', properties: FIELDS, minProperties: 1 };
const ID_PARAM: Schema = { type: 'object', properties: { id: text(64, 1) }, required: ['id'] };

/** The package `id` and its tenant, when the request may read it (its tenant is within reach). */
async function reachPackage(req: RouteRequest<unknown, unknown>, id: string): Promise<{ pkg: TenantPackageDoc; owner: TenantSnapshot }> {
  const stored = await req.app.store.get<TenantPackageDoc>(TENANT_COLLECTIONS.tenantPackages, id);
  if (stored === undefined) throw new ApiError('not-found', `No package ${id}.`);
  const owner = await reachTenant(req, stored.tenantId);
  return { pkg: await req.app.system.ask(TenantKind, owner.tenant._id, 'getPackage', { packageId: id }), owner };
}

/**
 * The ceiling of packages for `owner`: its manager's package in use. Only the manager (by its
 * own key, or by its key naming the managed tenant) writes them.
 */
async function managerPackage(req: RouteRequest<unknown, unknown>, owner: TenantSnapshot): Promise<TenantPackageDoc> {
  const keyTenant = req.auth!.keyTenantId;
  if (owner.tenant._id === keyTenant) throw new ApiError('own-tenant-package');
  if (owner.tenant.managedByTenantId !== keyTenant) throw new ApiError('unauthorized', 'Only the tenant managing this tenant writes its packages.');
  const manager = await req.app.system.ask(TenantKind, keyTenant, 'read', null);
  if (manager.package === null) throw new ApiError('no-package');
  if (!allowsWhiteLabel(manager.package)) throw new ApiError('white-labeling-not-allowed');
  return manager.package;
}

function writeRoute(method: 'PATCH' | 'PUT') {
  return route<Record<string, unknown>, Record<string, unknown>>({
    method,
    path: '/api/v1/tenant-packages/:id',
    access: 'tenant',
    params: ID_PARAM,
    body: method === 'PATCH' ? PATCH_BODY : BODY,
    handle: async (req) => {
      const { pkg, owner } = await reachPackage(req, req.params['id']!);
      const parent = await managerPackage(req, owner);
      const saved = await req.app.system.ask(TenantKind, owner.tenant._id, 'savePackage', { packageId: pkg._id, input: req.body, replace: method === 'PUT', parent });
      return { tenantPackage: packageView(saved) };
    },
  });
}

export const tenantPackageRoutes = [
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/api/v1/tenant-packages/:id',
    access: 'tenant',
    params: ID_PARAM,
    handle: async (req) => ({ tenantPackage: packageView((await reachPackage(req, req.params['id']!)).pkg) }),
  }),
  route<{ skip?: number }, undefined, { tenantPackages: Record<string, unknown>[] }>({
    method: 'GET',
    path: '/api/v1/tenant-packages',
    access: 'tenant',
    query: { type: 'object', properties: { skip: { type: 'integer', minimum: 0, maximum: 100_000_000 } } },
    credits: (_req, result) => perObjects(result.tenantPackages.length, 10),
    handle: async (req) => {
      const { app, tenantId, query } = req;
      const managed = ownCredential(req) ? await app.system.ask(DirectoryKind, tenantId, 'managedIds', null) : [];
      const found = await app.system.ask(DirectoryKind, tenantId, 'listPackages', { tenantIds: [tenantId, ...managed], skip: query.skip ?? 0, limit: PACKAGE_PAGE_SIZE });
      return { tenantPackages: found.map(packageView) };
    },
  }),
  route<Record<string, unknown>, Record<string, unknown>>({
    method: 'POST',
    path: '/api/v1/tenant-packages',
    access: 'tenant',
    body: BODY,
    handle: async (req) => {
      const targetId = typeof req.body['tenantId'] === 'string' ? req.body['tenantId'] : req.tenantId;
      if (targetId === req.auth!.keyTenantId) throw new ApiError('own-tenant-package');
      const owner = await reachTenant(req, targetId);
      const parent = await managerPackage(req, owner);
      const saved = await req.app.system.ask(TenantKind, owner.tenant._id, 'savePackage', { packageId: null, input: req.body, replace: true, parent });
      return { tenantPackage: packageView(saved) };
    },
  }),
  writeRoute('PATCH'),
  writeRoute('PUT'),
  route<Record<string, unknown>, undefined>({
    method: 'DELETE',
    path: '/api/v1/tenant-packages/:id',
    access: 'tenant',
    params: ID_PARAM,
    handle: async (req) => {
      const { pkg, owner } = await reachPackage(req, req.params['id']!);
      await managerPackage(req, owner);
      await req.app.system.ask(TenantKind, owner.tenant._id, 'deletePackage', { packageId: pkg._id });
      return {};
    },
  }),
];
