/** Something that can run out of time. */
export interface Expiring {
  expire(): void;
}

/**
 * Deadlines for many short-lived waits on one timer: entries are grouped into buckets of
 * `resolutionMs` and expire up to that much late. A timer per `ask` would cost an allocation
 * and two timer-list operations on every message; here it is a Set insert and delete.
 */
export class Deadlines<T extends Expiring> {
  readonly #resolutionMs: number;
  readonly #buckets = new Map<number, Set<T>>();
  #timer: NodeJS.Timeout | undefined;

  constructor(resolutionMs = 25) {
    this.#resolutionMs = resolutionMs;
  }

  /** Schedules `item` to expire after `timeoutMs`; returns the bucket to pass to `remove`. */
  add(item: T, timeoutMs: number): number {
    const bucket = Math.ceil((Date.now() + timeoutMs) / this.#resolutionMs);
    let set = this.#buckets.get(bucket);
    if (set === undefined) this.#buckets.set(bucket, (set = new Set()));
    set.add(item);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.#tick(), this.#resolutionMs);
      this.#timer.unref();
    }
    return bucket;
  }

  remove(item: T, bucket: number): void {
    const set = this.#buckets.get(bucket);
    if (set !== undefined && set.delete(item) && set.size === 0) this.#buckets.delete(bucket);
  }

  #tick(): void {
    const now = Date.now() / this.#resolutionMs;
    for (const [bucket, set] of this.#buckets) {
      if (bucket > now) continue;
      this.#buckets.delete(bucket);
      for (const item of set) item.expire();
    }
    if (this.#buckets.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }
}
