/**
 * Creating tenants and API keys: used by the CLI and by the first start on an empty database.
 * These write straight to storage because they create what no running actor holds yet; a
 * running tenant actor picks up a new key the first time it is presented.
 */
import { clock } from '../../engine/clock.js';
import { hashSecret, newId, newSecret } from '../../engine/ids.js';
import { DuplicateKeyError } from '../../storage/errors.js';
import type { Store, WriteOp } from '../../storage/store.js';
import { TENANT_COLLECTIONS as C } from './collections.js';
import { claimWrites } from '../user/claims.js';
import type { ApiKeyDoc, TenantDoc, TenantPackageDoc } from './tenant-actor.js';
import { tenantClaims } from './tenant-admin.js';

export interface NewTenant {
  name: string;
  email?: string;
  /** Monthly API credit allowance; omitted means unlimited. */
  monthlyCredits?: number;
  /** With an allowance: keep serving past it and record the overage. */
  flex?: boolean;
  /** White labelling: how many tenants it may manage (`maxWhiteLabeledTenants`). */
  whiteLabeledTenants?: number;
  /** Its package records every API call (reads too) in the audit log (`hasAuditing`). */
  auditing?: boolean;
  /** The package's `maxTenantUsers` (omitted: unlimited). */
  maxTenantUsers?: number;
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
  if (spec.monthlyCredits !== undefined || spec.whiteLabeledTenants !== undefined || spec.auditing !== undefined || spec.maxTenantUsers !== undefined) {
    packageId = newId(now);
    const credits = spec.monthlyCredits === undefined ? 'unlimited' : `${spec.flex ? 'Flex' : 'Fixed'} ${spec.monthlyCredits}`;
    // Limits not given are unlimited (null): what a tenant it manages may have is then unbounded too.
    const pkg: TenantPackageDoc = {
      _id: packageId,
      tenantId,
      name: `${credits} credits`.slice(0, 50),
      maxMonthlyAPICredits: spec.monthlyCredits ?? null,
      hasFlexPricing: spec.flex === true,
      hasWhiteLabeling: (spec.whiteLabeledTenants ?? 0) > 0,
      maxWhiteLabeledTenants: spec.whiteLabeledTenants ?? 0,
      hasAuditing: spec.auditing === true,
      maxTenantUsers: spec.maxTenantUsers ?? null,
      monthlyCostUSD: null,
      yearlyCostUSD: null,
      hasDebranding: false,
      forWhoText: '',
      featureTaglines: [],
      createdAt: new Date(now).toISOString(),
    };
    ops.push({ op: 'insert', collection: C.tenantPackages, doc: pkg });
  }
  const tenant: TenantDoc = {
    _id: tenantId,
    name,
    email: spec.email?.trim().toLowerCase() ?? null,
    signUpDate: new Date(now).toISOString(),
    packageId: packageId ?? null,
    apiSecret,
    ...(spec.managedByTenantId === undefined ? {} : { managedByTenantId: spec.managedByTenantId }),
  };
  ops.push({ op: 'insert', collection: C.tenants, doc: tenant }, ...claimWrites([], tenantClaims(tenant)));
  const { doc: key, apiKey } = newKey(tenantId, now);
  ops.push({ op: 'insert', collection: C.apiKeys, doc: key });
  try {
    await store.commit(ops);
  } catch (err) {
    if (err instanceof DuplicateKeyError) throw new Error(`another tenant has the email ${spec.email}`);
    throw err;
  }
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
