import { log } from './log.js';

/**
 * Receives every event published on the bus, in publication order. `remote` is true for an
 * event an actor of another cluster node published (already fanned out and logged there).
 */
export type BusListener = (topic: string, event: unknown, remote: boolean) => void;

/**
 * Carries live events from actors (published only after their writes are durable) to the
 * live channels and the event log. In cluster mode the live relay (`engine/cluster/live-relay.ts`)
 * carries local events to the other nodes and publishes theirs here, marked remote, without
 * changing publishers.
 */
export class EventBus {
  readonly #listeners = new Set<BusListener>();

  /** Adds a listener; returns a function that removes it. */
  listen(listener: BusListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  publish(topic: string, event: unknown, remote = false): void {
    for (const listener of this.#listeners) {
      try {
        listener(topic, event, remote);
      } catch (err) {
        log.error('bus-listener-failed', { topic, err });
      }
    }
  }
}
