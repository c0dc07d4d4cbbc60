/**
 * Per-client limits of the public routes, as token buckets: each client key holds up to `burst`
 * tokens, refilled at `perSecond`; a request takes one, and without one it is refused with 429
 * `rate-limited` and a `Retry-After`. Memory is bounded: at most `maxClients` buckets are kept,
 * the least recently used going first (a forgotten client merely starts again with a full
 * bucket). Limits are per process: in a cluster each node keeps its own.
 */
import { LRUCache } from 'lru-cache';
import { clock } from '../engine/clock.js';
import { ApiError } from '../engine/errors.js';

/** A bucket's refill rate and size. */
export interface RateSpec {
  readonly perSecond: number;
  readonly burst: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Buckets tracked per limit before the least recently used are dropped. */
const MAX_CLIENTS = 100_000;

/** Token buckets by client key. */
export class TokenBuckets {
  readonly #spec: RateSpec;
  readonly #buckets: LRUCache<string, Bucket>;

  constructor(spec: RateSpec, maxClients = MAX_CLIENTS) {
    this.#spec = spec;
    this.#buckets = new LRUCache({ max: maxClients });
  }

  /** Takes a token for `key`: 0 when granted, else the seconds until one is available. */
  take(key: string, now = clock.now()): number {
    const { perSecond, burst } = this.#spec;
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: burst, at: now };
      this.#buckets.set(key, bucket);
    } else {
      // A clock that steps back refills nothing (and never drains).
      if (now > bucket.at) {
        bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
        bucket.at = now;
      }
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return perSecond > 0 ? Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond)) : 3600;
  }

  /** Takes a token, or throws 429 `rate-limited` with the seconds to wait in `retryAfter`. */
  spend(key: string, what: string): void {
    const wait = this.take(key);
    if (wait > 0) throw new ApiError('rate-limited', `Too many ${what} from this client; retry in ${wait} s.`, { retryAfter: wait });
  }
}

/** The limits the configuration asks for. */
export function publicLimits(config: {
  publicReadRate: number;
  publicReadBurst: number;
  publicWriteRate: number;
  publicWriteBurst: number;
  anonSessionsPerHour: number;
  oauthRegistrationsPerHour: number;
}): PublicLimits {
  return {
    requests: new TokenBuckets({ perSecond: config.publicReadRate, burst: config.publicReadBurst }),
    writes: new TokenBuckets({ perSecond: config.publicWriteRate, burst: config.publicWriteBurst }),
    sessions: perHour(config.anonSessionsPerHour),
    registrations: perHour(config.oauthRegistrationsPerHour),
  };
}

/** A budget of `n` per hour, a quarter of it (at least one) at once. */
function perHour(n: number): TokenBuckets {
  return new TokenBuckets({ perSecond: n / 3600, burst: Math.max(1, Math.floor(n / 4)) });
}

/** The per-client limits of public routes (see docs/operations.md). */
export interface PublicLimits {
  /** Every public request (reads, writes, `/sub` upgrades). */
  readonly requests: TokenBuckets;
  /** Public writes: every public request but GET (likes, reactions, comments, votes, flags, blocks). */
  readonly writes: TokenBuckets;
  /** New anonymous sessions (cookies issued). */
  readonly sessions: TokenBuckets;
  /** OAuth client registrations (`POST /oauth/register`). */
  readonly registrations: TokenBuckets;
}
