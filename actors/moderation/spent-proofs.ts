/**
 * Proofs of work already taken (docs/moderation.md, "Proof of work"). A solved challenge is
 * accepted once in the whole cluster: the tenant's moderation actor, the single writer of its
 * shard wherever it runs, remembers every challenge spent until the challenge itself expires,
 * and stores each one before it answers, so a restart or a node taking the shard over still
 * refuses a replay. Bounded: expired entries are dropped as new ones come, and a tenant can
 * hold at most MAX_SPENT_PROOFS live ones (past that, posts wait for some to expire).
 */
import type { Doc } from '../../storage/store.js';

/** The collection of spent challenges (one document per challenge, removed once expired). */
export const SPENT_PROOFS = 'spent_proofs';

/** Live spent challenges per tenant: at ten minutes each, about 160 anonymous posts a second. */
export const MAX_SPENT_PROOFS = 100_000;

export interface SpentProofDoc extends Doc {
  tenantId: string;
  /** When the challenge expires (epoch ms): after it, the challenge is refused as expired anyway. */
  expiresAt: number;
}

/** The outcome of spending a challenge. */
export const SPEND = { spent: 'spent', used: 'used', full: 'full' } as const;
export type SpendOutcome = (typeof SPEND)[keyof typeof SPEND];

/** The spent challenges of one tenant, in memory, in the order they were spent. */
export class SpentProofs {
  /** Challenge signature to its expiry (epoch ms); insertion order is spending order. */
  readonly #live = new Map<string, number>();

  get size(): number {
    return this.#live.size;
  }

  /** Loads a stored entry (at start). */
  load(signature: string, expiresAt: number): void {
    this.#live.set(signature, expiresAt);
  }

  /**
   * Spends a challenge at `now`: `used` if it was spent before, `full` if the tenant holds too
   * many live ones, else `spent`. `expired` receives the signatures dropped on the way (their
   * documents are to be removed).
   */
  spend(signature: string, expiresAt: number, now: number, expired: string[]): SpendOutcome {
    this.#prune(now, expired, this.#live.size >= MAX_SPENT_PROOFS);
    const known = this.#live.get(signature);
    if (known !== undefined && known > now) return SPEND.used;
    if (this.#live.size >= MAX_SPENT_PROOFS) return SPEND.full;
    this.#live.set(signature, expiresAt);
    return SPEND.spent;
  }

  /**
   * Drops expired entries from the oldest spent. Challenges all live as long, so the oldest
   * spent are nearly the first to expire; when the set is full every entry is looked at.
   */
  #prune(now: number, expired: string[], everything: boolean): void {
    for (const [signature, expiresAt] of this.#live) {
      if (expiresAt > now) {
        if (everything) continue;
        break;
      }
      this.#live.delete(signature);
      expired.push(signature);
    }
  }
}

/** The document id of a spent challenge. */
export const spentProofId = (tenantId: string, signature: string): string => `${tenantId}:${signature}`;
