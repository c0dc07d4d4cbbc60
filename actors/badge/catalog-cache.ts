/**
 * The catalogs users' badge actors award from, kept a few seconds per tenant in each process:
 * every applied batch of progress would otherwise read its tenant's catalog from storage. The
 * catalog actor forgets a tenant's entry when it changes the catalog (so a badge made through
 * the API counts at once on its node); a badge written by the command line, or through another
 * node, counts within `TTL_MS`. Awarding checks `progress >= threshold`, so a badge seen late
 * is still awarded at the user's next event.
 */
import { LRUCache } from 'lru-cache';
import type { StoreReader } from '../../engine/actor.js';
import { BADGE_COLLECTIONS, type TenantBadgeDoc } from './badge-model.js';

const TTL_MS = 5_000;
const cache = new LRUCache<string, readonly TenantBadgeDoc[]>({ max: 10_000, ttl: TTL_MS });

/** The tenant's catalog, from the cache or storage. */
export async function catalogOf(store: StoreReader, tenantId: string): Promise<readonly TenantBadgeDoc[]> {
  const hit = cache.get(tenantId);
  if (hit !== undefined) return hit;
  const docs = await store.find<TenantBadgeDoc>(BADGE_COLLECTIONS.catalog, { tenantId });
  cache.set(tenantId, docs);
  return docs;
}

/** Drops the tenant's entry (its catalog changed here). */
export function forgetCatalog(tenantId: string): void {
  cache.delete(tenantId);
}
