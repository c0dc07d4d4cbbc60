/** A white-label setup for tests: a parent tenant with a package, and tenants it manages. */
import assert from 'node:assert/strict';
import { createApiKey, type ProvisionedTenant } from '../../actors/tenant/provision.js';
import type { TestServer } from '../fixtures/server.js';
import { as, call, ok } from './identity-helpers.js';

type Json = Record<string, unknown>;

/** Every field a package must have, with limits small enough to sit under any test parent. */
export function packageBody(extra: Json = {}): Json {
  return {
    name: 'Basic',
    monthlyCostUSD: 10,
    yearlyCostUSD: null,
    maxMonthlyPageLoads: 1000,
    maxMonthlyAPICredits: 1000,
    maxMonthlyComments: 1000,
    maxConcurrentUsers: 100,
    maxTenantUsers: 5,
    maxSSOUsers: 1000,
    maxModerators: 5,
    maxDomains: 3,
    hasDebranding: false,
    forWhoText: 'Small sites',
    featureTaglines: ['Fast'],
    hasFlexPricing: false,
    ...extra,
  };
}

/** Creates a tenant managed by the server's tenant (or `parent`), with an API key of its own. */
export async function managedTenant(t: TestServer, name: string, parent: ProvisionedTenant = t.tenant, extra: Json = {}): Promise<ProvisionedTenant> {
  const created = ok(await call<{ tenant: Json }>(t, 'POST', '/api/v1/tenants', { ...as(parent), body: { name, domainConfiguration: [{ domain: `${name.toLowerCase().replace(/\W/g, '')}.example.com` }], ...extra } }));
  const tenantId = created.tenant['id'] as string;
  assert.equal(created.tenant['managedByTenantId'], parent.tenantId);
  return { tenantId, apiKey: await createApiKey(t.server.services.store, tenantId), apiSecret: '' };
}

/** Gives a managed tenant a package (made by its parent) and puts it in use; answers its id. */
export async function usePackage(t: TestServer, child: ProvisionedTenant, extra: Json = {}, parent: ProvisionedTenant = t.tenant): Promise<string> {
  const pkg = ok(await call<{ tenantPackage: Json }>(t, 'POST', '/api/v1/tenant-packages', { ...as(parent), body: packageBody({ tenantId: child.tenantId, ...extra }) }));
  const id = pkg.tenantPackage['_id'] as string;
  ok(await call(t, 'PATCH', `/api/v1/tenants/${child.tenantId}`, { ...as(parent), body: { packageId: id } }));
  return id;
}
