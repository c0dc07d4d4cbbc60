/**
 * Creating tenants and API keys: used by the CLI and by the first start on an empty database.
 * These write straight to storage because they create what no running actor holds yet; a
 * running tenant actor picks up a new key the first time it is presented.
 */
import { clock } from '../../engine/clock.js';
import { hashSecret, newId, newSecret } from '../../engine/ids.js';
import type { Store, WriteOp } from '../../storage/store.js';
import { TENANT_COLLECTIONS as C } from './collections.js';
import type { ApiKeyDoc, TenantDoc, TenantPackageDoc } from './tenant-actor.js';

export interface NewTenant {
  name: string;
  email?: string;
  /** Monthly API credit allowance; omitted means unlimited. */
  monthlyCredits?: number;
  /** With an allowance: keep serving past it and record the overage. */
  flex?: boolean;
  /** The parent tenant that manages this one (white labelling). */
  managedByTenantId?: string;
}

export interface ProvisionedTenant {
  tenantId: string;
  apiKey: string;
  apiSecret: string;
  packageId?: string;
}

/** Creates a tenant with one API key (and a package when an allowance is given). */
export async function createTenant(store: Store, spec: NewTenant): Promise<ProvisionedTenant> {
  const name = spec.name.trim();
  if (name.length === 0 || name.length > 200) throw new Error('tenant name must be 1 to 200 characters');
  if (spec.email !== undefined && spec.email.length > 300) throw new Error('tenant email must be at most 300 characters');
  const now = clock.now();
  const tenantId = newId(now);
  const apiSecret = newSecret();
  const ops: WriteOp[] = [];
  let packageId: string | undefined;
  if (spec.monthlyCredits !== undefined) {
    packageId = newId(now);
    const pkg: TenantPackageDoc = {
      _id: packageId,
      tenantId,
      name: `${spec.flex ? 'Flex' : 'Fixed'} ${spec.monthlyCredits} credits`.slice(0, 50),
      maxMonthlyAPICredits: spec.monthlyCredits,
      hasFlexPricing: spec.flex === true,
      createdAt: new Date(now).toISOString(),
    };
    ops.push({ op: 'insert', collection: C.tenantPackages, doc: pkg });
  }
  const tenant: TenantDoc = {
    _id: tenantId,
    name,
    email: spec.email ?? null,
    signUpDate: new Date(now).toISOString(),
    packageId: packageId ?? null,
    apiSecret,
    ...(spec.managedByTenantId === undefined ? {} : { managedByTenantId: spec.managedByTenantId }),
  };
  ops.push({ op: 'insert', collection: C.tenants, doc: tenant });
  const { doc: key, apiKey } = newKey(tenantId, now);
  ops.push({ op: 'insert', collection: C.apiKeys, doc: key });
  await store.commit(ops);
  return packageId === undefined ? { tenantId, apiKey, apiSecret } : { tenantId, apiKey, apiSecret, packageId };
}

/** Adds an API key to an existing tenant. */
export async function createApiKey(store: Store, tenantId: string): Promise<string> {
  const tenant = await store.get<TenantDoc>(C.tenants, tenantId);
  if (tenant === undefined) throw new Error(`no tenant ${tenantId}`);
  const { doc, apiKey } = newKey(tenantId, clock.now());
  await store.commit([{ op: 'insert', collection: C.apiKeys, doc }]);
  return apiKey;
}

/** True when no tenant exists yet. */
export async function noTenants(store: Store): Promise<boolean> {
  return (await store.find(C.tenants, {}, { limit: 1 })).length === 0;
}

function newKey(tenantId: string, now: number): { doc: ApiKeyDoc; apiKey: string } {
  const apiKey = newSecret(32);
  return { apiKey, doc: { _id: newId(now), tenantId, hash: hashSecret(apiKey), createdAt: new Date(now).toISOString() } };
}
