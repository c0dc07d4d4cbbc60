/**
 * Bulk work of a page actor (erasures, imports, moves, renames, loading) handing the event loop
 * back between batches, so that other actors' messages and requests are not held behind it.
 * The actor itself takes no other message meanwhile: its state stays consistent.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Items handled between two yields: each costs a few microseconds, a batch well under 5 ms. */
export const YIELD_BATCH = 500;

/** Counts items of bulk work and yields the event loop after every `batch` of them. */
export class LoopYielder {
  #count = 0;

  constructor(readonly batch = YIELD_BATCH) {}

  /** Call once per item; await it. Resolves at once but after each full batch. */
  tick(): Promise<void> | undefined {
    if (++this.#count < this.batch) return undefined;
    this.#count = 0;
    return nextTurn();
  }
}
