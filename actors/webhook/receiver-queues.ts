/**
 * What a webhooks actor holds of its pending events: per receiver (a URL), a window of the
 * oldest pending events in delivery order. Storage holds them all; a window holds at most
 * `windowSize`, and once one was full (`spilled`) newer events are read back from storage when
 * it has emptied to a quarter, so a backlog costs memory only up to the window (and each event
 * is read about 1.3 times).
 *
 * Order: a window is always a prefix, in delivery order, of its receiver's pending events, and
 * only the oldest event of each comment is ever started: a comment's next event waits until
 * the one before it is delivered, given up or removed. So a receiver never gets an update
 * before the create it follows, whichever subscriptions (of that URL) they came from.
 */
import { compareEvents } from './webhook-model.js';
import type { PendingWebhookEventDoc } from './protocol.js';

interface Window {
  readonly url: string;
  /** Pending events in delivery order. */
  events: PendingWebhookEventDoc[];
  /** Storage holds pending events of this receiver that the window does not. */
  spilled: boolean;
}

/** Limits a round of starts obeys. */
export interface StartLimits {
  /** Deliveries of the tenant that may start now. */
  readonly free: number;
  /** Deliveries one receiver may have in flight. */
  readonly perReceiver: number;
  /** Ids in flight now (not started again). */
  readonly inFlight: ReadonlySet<string>;
}

export class ReceiverQueues {
  readonly windowSize: number;
  readonly #windows = new Map<string, Window>();
  readonly #byId = new Map<string, PendingWebhookEventDoc>();
  /** Where the next round of starts begins, so receivers take turns. */
  #turn = 0;

  constructor(windowSize: number) {
    this.windowSize = windowSize;
  }

  /** Events held. */
  get size(): number {
    return this.#byId.size;
  }

  get(id: string): PendingWebhookEventDoc | undefined {
    return this.#byId.get(id);
  }

  /** Adds an event storage holds, if its window has room (else it stays in storage only). */
  offer(doc: PendingWebhookEventDoc): void {
    if (this.#byId.has(doc._id)) return;
    const window = this.#window(doc.url);
    if (window.spilled) return;
    if (window.events.length >= this.windowSize) {
      window.spilled = true;
      return;
    }
    insertSorted(window.events, doc);
    this.#byId.set(doc._id, doc);
  }

  /** Replaces an event held (after an attempt changed it). */
  update(doc: PendingWebhookEventDoc): void {
    const held = this.#byId.get(doc._id);
    if (held === undefined) return;
    const events = this.#windows.get(doc.url)!.events;
    events[events.indexOf(held)] = doc;
    this.#byId.set(doc._id, doc);
  }

  /** Lets an event go (delivered, given up, removed); answers it if it was held. */
  remove(id: string): PendingWebhookEventDoc | undefined {
    const doc = this.#byId.get(id);
    if (doc === undefined) return undefined;
    this.#byId.delete(id);
    const window = this.#windows.get(doc.url)!;
    window.events.splice(window.events.indexOf(doc), 1);
    if (window.events.length === 0 && !window.spilled) this.#windows.delete(doc.url);
    return doc;
  }

  /** Marks a receiver's window as not holding all it should (it is refilled from storage). */
  markSpilled(url: string): void {
    this.#window(url).spilled = true;
  }

  /** Receivers whose window should be read again from storage. */
  refillable(): string[] {
    const out: string[] = [];
    for (const window of this.#windows.values()) if (window.spilled && window.events.length <= this.windowSize / 4) out.push(window.url);
    return out;
  }

  /**
   * Replaces a receiver's window by what storage holds (the oldest `windowSize` pending events,
   * read after this actor's own writes were durable). Held copies are kept: they may carry an
   * attempt not yet stored.
   */
  refill(url: string, stored: readonly PendingWebhookEventDoc[]): void {
    const window = this.#window(url);
    const before = window.events;
    const events: PendingWebhookEventDoc[] = [];
    for (const doc of stored) {
      const held = this.#byId.get(doc._id);
      events.push(held ?? doc);
      if (held === undefined) this.#byId.set(doc._id, doc);
    }
    const kept = new Set(events);
    for (const doc of before) if (!kept.has(doc)) this.#byId.delete(doc._id);
    events.sort(compareEvents);
    window.events = events;
    window.spilled = stored.length >= this.windowSize;
    if (events.length === 0 && !window.spilled) this.#windows.delete(url);
  }

  /** Ids of the held events of a subscription. */
  idsOf(webhookId: string): string[] {
    const out: string[] = [];
    for (const doc of this.#byId.values()) if (doc.webhookId === webhookId) out.push(doc._id);
    return out;
  }

  /**
   * The events to start now within `limits`, receivers taking turns, and the earliest time an
   * event not yet due falls due (Infinity: none waits).
   */
  due(now: number, limits: StartLimits): { start: PendingWebhookEventDoc[]; nextAt: number } {
    const start: PendingWebhookEventDoc[] = [];
    let nextAt = Infinity;
    let free = limits.free;
    const windows = [...this.#windows.values()];
    if (windows.length === 0 || free <= 0) return { start, nextAt };
    // In flight per receiver, from the few ids in flight rather than the whole windows.
    const flying = new Map<string, number>();
    for (const id of limits.inFlight) {
      const doc = this.#byId.get(id);
      if (doc !== undefined) flying.set(doc.url, (flying.get(doc.url) ?? 0) + 1);
    }
    const first = this.#turn++ % windows.length;
    for (let w = 0; w < windows.length && free > 0; w++) {
      const window = windows[(first + w) % windows.length]!;
      let room = limits.perReceiver - (flying.get(window.url) ?? 0);
      const seen = new Set<string>();
      // Stops once the receiver's share is taken: an attempt ending starts the next round, so
      // what lies further needs no look (nor a timer) until then.
      for (let i = 0; i < window.events.length && room > 0 && free > 0; i++) {
        const doc = window.events[i]!;
        // Only a comment's oldest event may go; the rest wait behind it.
        if (seen.has(doc.commentId)) continue;
        seen.add(doc.commentId);
        if (limits.inFlight.has(doc._id)) continue;
        if (doc.nextAttemptAt > now) {
          nextAt = Math.min(nextAt, doc.nextAttemptAt);
          continue;
        }
        start.push(doc);
        room--;
        free--;
      }
    }
    return { start, nextAt };
  }

  #window(url: string): Window {
    let window = this.#windows.get(url);
    if (window === undefined) this.#windows.set(url, (window = { url, events: [], spilled: false }));
    return window;
  }
}

function insertSorted(events: PendingWebhookEventDoc[], doc: PendingWebhookEventDoc): void {
  let i = events.length;
  while (i > 0 && compareEvents(events[i - 1]!, doc) > 0) i--;
  events.splice(i, 0, doc);
}
