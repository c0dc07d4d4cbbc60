/**
 * Names unique across the whole service (a tenant user's username and email, a tenant's
 * email): one claim document per name, keyed by the name, inserted in the same durable batch
 * as the object that takes it and deleted in the batch that lets it go. The store's unique
 * `_id` is the lock: of two writers racing for a name, the second batch fails as a whole.
 */
import type { StoreReader } from '../../engine/actor.js';
import type { CollectionSpec, Doc, WriteOp } from '../../storage/store.js';

export const UNIQUE_CLAIMS = 'uniqueClaims';

export const claimCollections: readonly CollectionSpec[] = [{ name: UNIQUE_CLAIMS, indexes: [{ name: 'by_tenant', fields: ['tenantId'] }] }];

/** What a claim is for. */
export type ClaimKind = 'tenant-user-username' | 'tenant-user-email' | 'tenant-email';

export interface ClaimDoc extends Doc {
  kind: ClaimKind;
  /** The tenant whose data the claim is (deleted with it). */
  tenantId: string;
  /** The user or tenant holding the name. */
  holderId: string;
}

/** How names compare: trimmed, inner spacing collapsed, case ignored. */
export function claimKey(value: string): string {
  return value.trim().replace(/\s+/g, ' ').toLowerCase();
}

export function claimId(kind: ClaimKind, value: string): string {
  return `${kind}:${claimKey(value)}`;
}

/** The claims a holder has for its names (absent names claim nothing). */
export function claimsOf(names: Partial<Record<ClaimKind, string | null | undefined>>, tenantId: string, holderId: string): ClaimDoc[] {
  const out: ClaimDoc[] = [];
  for (const [kind, value] of Object.entries(names) as [ClaimKind, string | null | undefined][]) {
    if (typeof value === 'string' && value.trim() !== '') out.push({ _id: claimId(kind, value), kind, tenantId, holderId });
  }
  return out;
}

/** The writes that move a holder from its claims `before` to `after` (unchanged names are left alone). */
export function claimWrites(before: readonly ClaimDoc[], after: readonly ClaimDoc[]): WriteOp[] {
  const kept = new Set(before.map((c) => c._id));
  const next = new Set(after.map((c) => c._id));
  const ops: WriteOp[] = [];
  for (const claim of before) if (!next.has(claim._id)) ops.push({ op: 'delete', collection: UNIQUE_CLAIMS, id: claim._id });
  for (const claim of after) if (!kept.has(claim._id)) ops.push({ op: 'insert', collection: UNIQUE_CLAIMS, doc: claim });
  return ops;
}

/** The first of `claims` another holder has, if any: what a refused batch collided with. */
export async function takenBy(store: StoreReader, claims: readonly ClaimDoc[], holderId: string): Promise<ClaimDoc | undefined> {
  for (const claim of claims) {
    const held = await store.get<ClaimDoc>(UNIQUE_CLAIMS, claim._id);
    if (held !== undefined && held.holderId !== holderId) return claim;
  }
  return undefined;
}
