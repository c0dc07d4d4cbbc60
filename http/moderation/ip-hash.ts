/**
 * The keyed hash of a writer's address that bans by IP match on (docs/moderation.md, "Bans by
 * address"). No address is ever stored: a comment keeps only this hash. It is an HMAC under a
 * key derived per tenant from the server's durable secret, so without that secret nobody can
 * recover an address by hashing all four billion IPv4 addresses, and one tenant's hashes say
 * nothing about another's. An address is normalised first (as per-client limits count it), and
 * an IPv6 address stands for its /64, which is what one client usually holds.
 */
import { createHmac } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { limitKey, normalizeAddress } from '../client-address.js';
import type { AppServices } from '../services.js';

/** Characters of a hash kept (base64url; 192 bits). */
const HASH_LENGTH = 32;

/** Per server: each tenant's key, derived once. */
const keys = new WeakMap<object, LRUCache<string, Buffer>>();

function keyOf(app: AppServices, tenantId: string): Buffer {
  let cache = keys.get(app.liveIds);
  if (cache === undefined) keys.set(app.liveIds, (cache = new LRUCache({ max: 10_000 })));
  let key = cache.get(tenantId);
  if (key === undefined) {
    key = Buffer.from(app.liveIds.authorEditSecret(tenantId, '\u0000ip-hash'), 'base64url');
    cache.set(tenantId, key);
  }
  return key;
}

/**
 * The tenant's hash of an address (a request's client address, or the `ip` a site passes for
 * its commenter), or null when there is none. Text that is not an address is hashed as given,
 * trimmed and lower-cased, so a site may pass its own stable token for a client.
 */
export function ipHashOf(app: AppServices, tenantId: string, address: string | null | undefined): string | null {
  if (address === null || address === undefined) return null;
  const text = address.trim();
  if (text === '') return null;
  const normal = normalizeAddress(text);
  const basis = normal === undefined ? text.toLowerCase() : limitKey(normal);
  return createHmac('sha256', keyOf(app, tenantId)).update(basis).digest('base64url').slice(0, HASH_LENGTH);
}
