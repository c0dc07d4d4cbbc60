import { log } from './log.js';

/** Receives every event published on the bus, in publication order. */
export type BusListener = (topic: string, event: unknown) => void;

/**
 * Carries live events from actors (published only after their writes are durable) to the
 * live channels and the event log. In-process today; the scale-out bus replaces it with one
 * backed by NATS without changing publishers.
 */
export class EventBus {
  readonly #listeners = new Set<BusListener>();

  /** Adds a listener; returns a function that removes it. */
  listen(listener: BusListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  publish(topic: string, event: unknown): void {
    for (const listener of this.#listeners) {
      try {
        listener(topic, event);
      } catch (err) {
        log.error('bus-listener-failed', { topic, err });
      }
    }
  }
}
