/**
 * The question aggregate cache of one server: answers (the API object as JSON bytes) by the
 * tenant and parameters that made them. An entry lives 30 seconds plus 27 seconds per 100,000
 * results it covers, at most 5 minutes (reached at 1,000,000 results), so small, cheap answers
 * refresh often and expensive ones are reused. Concurrent misses of one key share a single
 * computation; `forceRecalculate` computes anew and replaces the entry. Computations run in the
 * aggregation worker pool (one at a time per tenant), never on the thread serving requests.
 *
 * In cluster mode each node keeps its own cache: a key is computed at most once per node per
 * lifetime of its entry.
 */
import { LRUCache } from 'lru-cache';
import { clock } from '../engine/clock.js';
import type { Aggregator } from './aggregator.js';
import type { QuestionTask } from './question-task.js';

/** How long entries live: 30 s, plus 0.27 ms per result covered, at most 5 minutes. */
export const CACHE_TTL = { minMs: 30_000, maxMs: 300_000, perResultMs: 0.27 } as const;
/** Bytes of answers held at most (least recently used ones go first). */
const MAX_BYTES = 64 * 1024 * 1024;

/** How long an answer covering `results` results stays cached. */
export function cacheTtlMs(results: number): number {
  return Math.round(Math.min(CACHE_TTL.maxMs, CACHE_TTL.minMs + results * CACHE_TTL.perResultMs));
}

/** An answer, and whether it came from the cache. */
export interface CachedAnswer {
  readonly data: Uint8Array;
  readonly cached: boolean;
}

interface Entry {
  readonly data: Uint8Array;
  /** `clock.now()` past which the entry is stale (the engine's clock, so tests can move it). */
  readonly expiresAt: number;
}

/** The cache of one server; see the module comment. */
export class QuestionAggregateCache {
  readonly #aggregator: Aggregator;
  readonly #entries = new LRUCache<string, Entry>({ maxSize: MAX_BYTES, sizeCalculation: (entry, key) => entry.data.byteLength + key.length });
  readonly #pending = new Map<string, Promise<Uint8Array>>();

  constructor(aggregator: Aggregator) {
    this.#aggregator = aggregator;
  }

  /** The answer of `task` for its tenant: cached, joined to a computation under way, or computed. */
  async answer(task: QuestionTask, force: boolean): Promise<CachedAnswer> {
    const key = cacheKey(task);
    if (!force) {
      const hit = this.#entries.get(key);
      if (hit !== undefined && hit.expiresAt > clock.now()) return { data: hit.data, cached: true };
      const pending = this.#pending.get(key);
      if (pending !== undefined) return { data: await pending, cached: false };
    }
    const computing = this.#compute(key, task);
    if (!force) this.#pending.set(key, computing);
    try {
      return { data: await computing, cached: false };
    } finally {
      if (this.#pending.get(key) === computing) this.#pending.delete(key);
    }
  }

  async #compute(key: string, task: QuestionTask): Promise<Uint8Array> {
    const { data, scanned } = await this.#aggregator.run(task.tenantId, task);
    this.#entries.set(key, { data, expiresAt: clock.now() + cacheTtlMs(scanned) });
    return data;
  }
}

/** The cache key: every field of the task, in a fixed order. */
function cacheKey(task: QuestionTask): string {
  return JSON.stringify(Object.keys(task).sort().map((field) => [field, (task as unknown as Record<string, unknown>)[field]]));
}

const caches = new WeakMap<Aggregator, QuestionAggregateCache>();

/** The cache of the server whose aggregation pool is `aggregator`. */
export function questionCacheFor(aggregator: Aggregator): QuestionAggregateCache {
  let cache = caches.get(aggregator);
  if (cache === undefined) caches.set(aggregator, (cache = new QuestionAggregateCache(aggregator)));
  return cache;
}
