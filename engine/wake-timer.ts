/**
 * An actor's alarm: one timer, set for the earliest time asked, that outlives the activation
 * (a passivated actor with work due is woken by it, through a message). Used by actors that
 * deliver in the background (email outboxes, webhook queues).
 */
export class WakeTimer {
  #timer: NodeJS.Timeout | undefined;
  #at = Infinity;

  /** Calls `fire` at `at` (epoch ms, by `now`), unless already set for that time or sooner. */
  set(at: number, now: number, fire: () => void): void {
    if (at >= this.#at) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#at = at;
    // setTimeout takes at most 2^31 - 1 ms; a later time is set again when that fires.
    this.#timer = setTimeout(fire, Math.max(0, Math.min(at - now, 2 ** 31 - 1)));
    this.#timer.unref();
  }

  /** Forgets the time set (the next `set` takes any time); a timer already set may still fire. */
  forget(): void {
    this.#at = Infinity;
  }

  /** Cancels the timer. */
  clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#at = Infinity;
  }
}
