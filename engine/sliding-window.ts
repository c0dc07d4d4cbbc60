/** Keys tracked before stale ones are first swept out. */
const SWEEP_AT = 4096;

/**
 * A sliding-window counter of hits per key, kept in memory: for limits whose loss on a restart
 * or a passivation costs nothing (their window is short, or they only slow an abuser down).
 */
export class SlidingWindowLimit {
  readonly #max: number;
  readonly #windowMs: number;
  /** Per key, the times of its hits inside the window, oldest first. */
  readonly #hits = new Map<string, number[]>();
  /** Size at which the next sweep runs: twice what a sweep left, so sweeping stays linear overall. */
  #sweepAt = SWEEP_AT;

  /** Hits allowed per key per window. */
  get max(): number {
    return this.#max;
  }

  constructor(max: number, windowMs: number) {
    this.#max = max;
    this.#windowMs = windowMs;
  }

  /** Whether `key` may have one more hit at `nowMs`. */
  allows(key: string, nowMs: number): boolean {
    const hits = this.#hits.get(key);
    if (hits === undefined) return this.#max > 0;
    this.#prune(hits, nowMs);
    return hits.length < this.#max;
  }

  /** Counts one hit of `key` at `nowMs`. */
  record(key: string, nowMs: number): void {
    let hits = this.#hits.get(key);
    if (hits === undefined) {
      if (this.#hits.size >= this.#sweepAt) this.#sweep(nowMs);
      hits = [];
      this.#hits.set(key, hits);
    }
    hits.push(nowMs);
  }

  /** Keys tracked now (for tests of the sweep). */
  get size(): number {
    return this.#hits.size;
  }

  #prune(hits: number[], nowMs: number): void {
    const from = nowMs - this.#windowMs;
    let drop = 0;
    while (drop < hits.length && hits[drop]! <= from) drop++;
    if (drop > 0) hits.splice(0, drop);
  }

  #sweep(nowMs: number): void {
    for (const [key, hits] of this.#hits) {
      this.#prune(hits, nowMs);
      if (hits.length === 0) this.#hits.delete(key);
    }
    this.#sweepAt = Math.max(SWEEP_AT, this.#hits.size * 2);
  }
}
