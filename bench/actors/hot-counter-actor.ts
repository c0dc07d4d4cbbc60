/**
 * A deliberately trivial actor for engine benchmarks: one counter per actor, stored as one
 * small document rewritten whole on every increment. All the cost measured is the runtime's
 * (mailbox, output gate, batching, storage), not the domain's.
 */
import { Actor, defineKind, type Handlers } from '../../engine/actor.js';
import type { CollectionSpec, Doc } from '../../storage/store.js';

/** Where the actor keeps its counters. */
export const HOT_COUNTERS = 'bench_hot_counters';
/** Where the raw-store baseline writes the same shape of document. */
export const RAW_COUNTERS = 'bench_raw_counters';

/** The collections both the suite's store and its actor need. */
export const benchCollections: readonly CollectionSpec[] = [
  { name: HOT_COUNTERS, indexes: [] },
  { name: RAW_COUNTERS, indexes: [] },
];

/** A counter with a small payload, about the size of a vote tally. */
export interface CounterDoc extends Doc {
  value: number;
  updatedAt: number;
  note: string;
}

const NOTE = 'benchmark counter document with a small payload';

/** The document shape both the actor and the baseline write. */
export function counterDoc(id: string, value: number): CounterDoc {
  return { _id: id, value, updatedAt: Date.now(), note: NOTE };
}

/** The messages of the benchmark counter. */
export type HotCounterProtocol = {
  /** Adds `by` and stores the whole document; answers once that write is durable. */
  inc: { in: { by: number }; out: { value: number } };
};

export class HotCounterActor extends Actor<HotCounterProtocol> {
  #doc: CounterDoc = counterDoc('', 0);

  override async onStart(): Promise<void> {
    this.#doc = (await this.store.get<CounterDoc>(HOT_COUNTERS, this.id)) ?? counterDoc(this.id, 0);
  }

  readonly handlers: Handlers<HotCounterProtocol> = {
    inc: ({ by }) => {
      this.#doc = counterDoc(this.id, this.#doc.value + by);
      this.put(HOT_COUNTERS, this.#doc);
      return { value: this.#doc.value };
    },
  };
}

/** Addressed as `bench-counter:<id>`. */
export const HotCounterKind = defineKind<HotCounterProtocol>('bench-counter');
