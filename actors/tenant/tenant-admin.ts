/**
 * The tenant actor's white-label work: managed tenants created by their parent, changes to a
 * tenant's record, and the packages of a managed tenant. Each runs inside the actor of the
 * tenant it changes (the parent's, for a creation), and commits its documents in one batch
 * with the global claim of the tenant's email, so a taken email refuses the whole write.
 */
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { newId, newSecret } from '../../engine/ids.js';
import { DuplicateKeyError } from '../../storage/errors.js';
import type { StoreReader } from '../../engine/actor.js';
import type { WriteOp } from '../../storage/store.js';
import { claimsOf, claimWrites, type ClaimDoc, UNIQUE_CLAIMS } from '../user/claims.js';
import { TENANT_COLLECTIONS as C } from './collections.js';
import { buildDomainConfig, type DomainConfigDoc, type DomainConfigInput, DOMAIN_CONFIG_FIELDS, normalizeDomain } from './domain-configs.js';
import { allowsWhiteLabel, checkAgainstParent, MAX_PACKAGES_PER_TENANT, type TenantPackageDoc, writePackage } from './packages.js';
import { type TenantDoc, writeTenant } from './tenant-record.js';

/** Who a credential admitted to a tenant is. */
export interface Admitted {
  readonly tenantId: string;
  /** The tenant whose key it is: the tenant itself, or the tenant managing it. */
  readonly keyTenantId: string;
  /** The id of the API key (never the key); null for access tokens. */
  readonly keyId: string | null;
  /** Whether the tenant's package records its API calls in the audit log. */
  readonly audited: boolean;
}

/** A tenant as the API answers it: the record (never its secret), its domains and its package in use. */
export interface TenantSnapshot {
  /** Its `apiSecret` blanked (it never leaves the actor); `deletingAt` set: its deletion is under way. */
  readonly tenant: TenantDoc;
  readonly domains: DomainConfigDoc[];
  readonly package: TenantPackageDoc | null;
}

/** What these functions need of the tenant actor. */
export interface TenantHost {
  readonly id: string;
  readonly store: StoreReader;
  tenant(): TenantDoc;
  readonly domains: Map<string, DomainConfigDoc>;
  readonly packages: Map<string, TenantPackageDoc>;
  commitNow(ops: readonly WriteOp[]): Promise<void>;
  /** The record or the package in use changed: allowance, admission and settings follow. */
  changed(tenant: TenantDoc, domainsChanged: boolean): void;
}

/** The global claim of a tenant's email. */
export function tenantClaims(tenant: Pick<TenantDoc, '_id' | 'email'> | null): ClaimDoc[] {
  return tenant === null ? [] : claimsOf({ 'tenant-email': tenant.email }, tenant._id, tenant._id);
}

/** Commits, turning a taken email claim into `email-taken`. */
async function commitClaimed(host: TenantHost, ops: WriteOp[]): Promise<void> {
  try {
    await host.commitNow(ops);
  } catch (err) {
    if (err instanceof DuplicateKeyError && err.collection === UNIQUE_CLAIMS) throw new ApiError('email-taken', 'Another tenant has this email.');
    throw err;
  }
}

/** Domain configurations from a request's `domainConfiguration`, keeping the ids and creation times of domains already there. */
function domainsFrom(list: unknown, tenantId: string, current: ReadonlyMap<string, DomainConfigDoc>): DomainConfigDoc[] {
  const out = new Map<string, DomainConfigDoc>();
  const now = clock.now();
  for (const entry of list as (DomainConfigInput & { domain: string })[]) {
    const domain = normalizeDomain(entry.domain);
    if (out.has(domain)) throw new ApiError('domain-config-exists', `${domain} is listed twice.`);
    const kept = current.get(domain);
    const input: DomainConfigInput = {};
    for (const field of DOMAIN_CONFIG_FIELDS) if (entry[field] !== undefined) (input as Record<string, unknown>)[field] = entry[field];
    out.set(domain, buildDomainConfig(kept ?? { _id: newId(now), tenantId, createdAt: new Date(now).toISOString() }, domain, input));
  }
  return [...out.values()];
}

function domainWrites(before: ReadonlyMap<string, DomainConfigDoc>, after: readonly DomainConfigDoc[]): WriteOp[] {
  const ops: WriteOp[] = [];
  const next = new Set(after.map((d) => d._id));
  for (const doc of before.values()) if (!next.has(doc._id)) ops.push({ op: 'delete', collection: C.domainConfigs, id: doc._id });
  for (const doc of after) ops.push({ op: 'put', collection: C.domainConfigs, doc });
  return ops;
}

/**
 * A tenant managed by this one. This tenant must be white-labelled (its package allows it),
 * not itself managed (one level of nesting), and below its package's `maxWhiteLabeledTenants`;
 * creations are serialised by this actor, so the count holds.
 */
export async function createChild(host: TenantHost, input: Readonly<Record<string, unknown>>, pkg: TenantPackageDoc | null): Promise<TenantSnapshot> {
  const parent = host.tenant();
  if (parent.managedByTenantId) throw new ApiError('nesting-not-allowed');
  if (pkg === null) throw new ApiError('no-package', 'Creating tenants needs a package in use that allows white labelling.');
  if (!allowsWhiteLabel(pkg)) throw new ApiError('white-labeling-not-allowed');
  if (input['packageId'] !== undefined && input['packageId'] !== null && input['packageId'] !== '') {
    throw new ApiError('invalid-package', 'A new tenant has no packages yet: create one for it, then set packageId.');
  }
  const max = pkg.maxWhiteLabeledTenants;
  if (typeof max === 'number' && (await host.store.count(C.tenants, { managedByTenantId: host.id })) >= max) throw new ApiError('tenant-limit-reached');
  const now = clock.now();
  const child = writeTenant(null, { _id: newId(now), apiSecret: newSecret() }, input, { own: false }, now);
  child.managedByTenantId = host.id;
  const domains = domainsFrom(input['domainConfiguration'] ?? [], child._id, new Map());
  await commitClaimed(host, [
    { op: 'insert', collection: C.tenants, doc: child },
    ...claimWrites([], tenantClaims(child)),
    ...domains.map((doc): WriteOp => ({ op: 'insert', collection: C.domainConfigs, doc })),
  ]);
  return { tenant: { ...child, apiSecret: '' }, domains, package: null };
}

/**
 * Changes this tenant's record. `own`: the tenant writes itself (its own key), and may then
 * change neither its packageId nor its paymentFrequency; its manager may set packageId to one
 * of its packages.
 */
export async function updateTenant(host: TenantHost, input: Readonly<Record<string, unknown>>, own: boolean): Promise<TenantDoc> {
  const current = host.tenant();
  const next = writeTenant(current, current, input, { own }, clock.now());
  const packageId = input['packageId'];
  if (packageId !== undefined && packageId !== (current.packageId ?? null) && !(packageId === '' && !current.packageId)) {
    if (own) throw new ApiError('cannot-change-package');
    if (packageId !== null && packageId !== '' && !host.packages.has(packageId as string)) throw new ApiError('invalid-package');
    next.packageId = packageId === '' ? null : (packageId as string | null);
  }
  if (input['meta'] !== undefined) next.meta = input['meta'] === null ? null : Object.fromEntries(Object.entries(input['meta'] as Record<string, unknown>).filter(([, v]) => v !== null)) as Record<string, string>;
  const domains = input['domainConfiguration'] === undefined ? undefined : domainsFrom(input['domainConfiguration'], host.id, host.domains);
  const ops: WriteOp[] = [{ op: 'put', collection: C.tenants, doc: next }, ...claimWrites(tenantClaims(current), tenantClaims(next))];
  if (domains !== undefined) ops.push(...domainWrites(host.domains, domains));
  await commitClaimed(host, ops);
  if (domains !== undefined) {
    host.domains.clear();
    for (const doc of domains) host.domains.set(doc.domain, doc);
  }
  host.changed(next, domains !== undefined);
  return next;
}

/**
 * Creates (`packageId` null) or changes a package of this (managed) tenant, its limits checked
 * against its parent's package. A change to the package in use applies to the ledger at once.
 */
export async function savePackage(host: TenantHost, packageId: string | null, input: Readonly<Record<string, unknown>>, replace: boolean, parent: TenantPackageDoc): Promise<TenantPackageDoc> {
  host.tenant();
  const current = packageId === null ? null : host.packages.get(packageId);
  if (current === undefined) throw new ApiError('not-found', `No package ${packageId}.`);
  if (current === null && host.packages.size >= MAX_PACKAGES_PER_TENANT) throw new ApiError('package-limit-reached');
  checkAgainstParent(input, parent);
  const now = clock.now();
  const base = current ?? { _id: newId(now), tenantId: host.id, createdAt: new Date(now).toISOString() };
  const next = writePackage(current, { _id: base._id, tenantId: host.id, createdAt: base.createdAt }, input, replace);
  // A managed tenant manages no tenants (one level of nesting).
  next.maxWhiteLabeledTenants ??= 0;
  await host.commitNow([{ op: current === null ? 'insert' : 'put', collection: C.tenantPackages, doc: next }]);
  host.packages.set(next._id, next);
  const tenant = host.tenant();
  if (tenant.packageId === next._id) host.changed(tenant, false);
  return next;
}

/** Deletes a package, unless the tenant uses it. */
export async function deletePackage(host: TenantHost, packageId: string): Promise<null> {
  if (packageOf(host, packageId)._id === host.tenant().packageId) throw new ApiError('package-in-use');
  await host.commitNow([{ op: 'delete', collection: C.tenantPackages, id: packageId }]);
  host.packages.delete(packageId);
  return null;
}

/** The tenant's packages, oldest first (by `createdAt`, then id). */
export function packageList(host: TenantHost): TenantPackageDoc[] {
  host.tenant();
  return [...host.packages.values()].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a._id < b._id ? -1 : 1));
}

export function packageOf(host: TenantHost, packageId: string): TenantPackageDoc {
  host.tenant();
  const pkg = host.packages.get(packageId);
  if (pkg === undefined) throw new ApiError('not-found', `No package ${packageId}.`);
  return pkg;
}
