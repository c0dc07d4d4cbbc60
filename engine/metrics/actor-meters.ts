/**
 * Actor families, by kind (a fixed set: the registered kinds): activations, passivations,
 * handler time, asks that timed out, and, read at scrape from the running systems, actors
 * active and the deepest mailbox of each kind.
 */
import { Count, CountFamily, LATENCY_BUCKETS, Timing, TimingFamily } from './families.js';
import { addSource, metricsState, PREFIX, register, TIMING_SAMPLE } from './registry.js';

const activations = register(new CountFamily('counter', `${PREFIX}actor_activations_total`, 'Actors activated (state loaded), by kind.', ['kind'], 200));
const passivations = register(new CountFamily('counter', `${PREFIX}actor_passivations_total`, 'Actors passivated (idle, writes durable, dropped from memory), by kind.', ['kind'], 200));
const handlerSeconds = register(
  new TimingFamily(
    `${PREFIX}actor_handler_duration_seconds`,
    `Time an actor takes to handle one message (awaits included, the commit excluded), by kind; one message in ${TIMING_SAMPLE} per kind is timed.`,
    LATENCY_BUCKETS,
    ['kind'],
    200,
  ),
);
const askTimeouts = register(new CountFamily('counter', `${PREFIX}actor_ask_timeouts_total`, 'Asks that got no reply in time (503 timeout).'));
const active = register(new CountFamily('gauge', `${PREFIX}actors_active`, 'Actors in memory now, by kind.', ['kind'], 200));
const deepest = register(new CountFamily('gauge', `${PREFIX}actor_mailbox_depth_max`, 'The deepest mailbox of each kind now (messages waiting).', ['kind'], 200));

/** The children of one actor kind, resolved once per cell. */
export class KindMeter {
  readonly activations: Count;
  readonly passivations: Count;
  readonly handler: Timing;
  #tick = 0;

  constructor(kind: string) {
    this.activations = activations.child(kind);
    this.passivations = passivations.child(kind);
    this.handler = handlerSeconds.child(kind);
  }

  /** A start mark for timing a message: the clock for a sampled one when metrics are on, else 0. */
  start(): number {
    return metricsState.on && ++this.#tick % TIMING_SAMPLE === 0 ? performance.now() : 0;
  }
}

const kinds = new Map<string, KindMeter>();

/** The meter of an actor kind. */
export function kindMeter(kind: string): KindMeter {
  let meter = kinds.get(kind);
  if (meter === undefined) {
    meter = new KindMeter(kind);
    kinds.set(kind, meter);
  }
  return meter;
}

/** Asks that timed out, all kinds together. */
export const ASK_TIMEOUTS = askTimeouts.child();

/** What a running actor system tells at scrape: per kind, actors active and the deepest mailbox. */
export type Census = () => Iterable<readonly [kind: string, active: number, deepestMailbox: number]>;

const censuses = new Set<Census>();
addSource(() => {
  active.reset();
  deepest.reset();
  for (const census of censuses) {
    for (const [kind, count, depth] of census()) {
      active.child(kind).n += count;
      const d = deepest.child(kind);
      if (depth > d.n) d.n = depth;
    }
  }
});

/** Publishes a system's census at every scrape (summed over the systems of the process); returns its removal. */
export function watchActors(census: Census): () => void {
  censuses.add(census);
  return () => censuses.delete(census);
}
