import { chunkWrites, EntryIds, type EventLogDoc } from '../../actors/live/event-log-model.js';
import { EventLogKind, eventLogActorId } from '../../actors/live/event-log-protocol.js';
import type { LiveEvent } from '../../actors/live/live-events.js';
import type { ActorSystem } from '../../engine/actor-system.js';
import { ApiError } from '../../engine/errors.js';
import { log } from '../../engine/log.js';
import type { Store } from '../../storage/store.js';

/** Attempts per batch before its entries are given up (logged). */
const MAX_ATTEMPTS = 5;
const RETRY_DELAY_MS = 1000;

/**
 * Feeds published page events to their pages' event-log actors. Entries get their ids here,
 * in publication order, and the entries of one page published in the same turn travel in one
 * message. A failed append is retried (appends are idempotent per entry id). Entries refused
 * because the actor system is shutting down are kept and written by `stop`.
 */
export class EventLogFeeder {
  readonly #system: ActorSystem;
  readonly #ids = new EntryIds();
  #pending = new Map<string, EventLogDoc[]>();
  #scheduled = false;
  #stopped = false;
  readonly #stranded: EventLogDoc[] = [];
  /** Batches waiting to be retried, by their timer. */
  readonly #retries = new Map<NodeJS.Timeout, EventLogDoc[]>();

  constructor(system: ActorSystem) {
    this.#system = system;
  }

  /** Logs one event of a page; its `timestamp` is when it was published. */
  add(tenantId: string, urlId: string, event: LiveEvent): void {
    const { at, id } = this.#ids.next(event.timestamp);
    const doc: EventLogDoc = {
      _id: id,
      tenantId,
      urlId,
      at,
      timestamp: event.timestamp,
      broadcastId: typeof event.broadcastId === 'string' ? event.broadcastId : id,
      event,
    };
    if (this.#stopped) {
      this.#stranded.push(doc);
      return;
    }
    const actorId = eventLogActorId(tenantId, urlId);
    const batch = this.#pending.get(actorId);
    if (batch === undefined) this.#pending.set(actorId, [doc]);
    else batch.push(doc);
    if (!this.#scheduled) {
      this.#scheduled = true;
      queueMicrotask(() => this.#flush());
    }
  }

  /**
   * Ends feeding, once the actor system has shut down: what it refused meanwhile (and what
   * waited for a retry) is written straight to storage. No event-log actor is active any more,
   * so nothing else holds these pages' logs; their next activation loads the entries.
   */
  async stop(store: Store): Promise<void> {
    this.#stopped = true;
    this.#flush();
    for (const [timer, entries] of this.#retries) {
      clearTimeout(timer);
      this.#stranded.push(...entries);
    }
    this.#retries.clear();
    if (this.#stranded.length === 0) return;
    const docs = this.#stranded.splice(0);
    const byPage = new Map<string, EventLogDoc[]>();
    for (const doc of docs) {
      const key = eventLogActorId(doc.tenantId, doc.urlId);
      const page = byPage.get(key);
      if (page === undefined) byPage.set(key, [doc]);
      else page.push(doc);
    }
    try {
      await store.commit([...byPage.values()].flatMap((entries) => chunkWrites(entries)));
    } catch (err) {
      log.error('event-log-lost', { entries: docs.length, err });
    }
  }

  #flush(): void {
    this.#scheduled = false;
    const pending = this.#pending;
    if (pending.size === 0) return;
    this.#pending = new Map();
    for (const [actorId, entries] of pending) {
      if (this.#stopped) this.#stranded.push(...entries);
      else this.#send(actorId, entries, 1);
    }
  }

  #send(actorId: string, entries: EventLogDoc[], attempt: number): void {
    this.#system.ask(EventLogKind, actorId, 'append', { entries }).catch((err: unknown) => {
      if (this.#stopped || (err instanceof ApiError && err.code === 'shutting-down')) {
        this.#stranded.push(...entries);
        return;
      }
      if (attempt >= MAX_ATTEMPTS) {
        log.error('event-log-lost', { actorId, entries: entries.length, err });
        return;
      }
      log.warn('event-log-append-retry', { actorId, attempt, err });
      const timer = setTimeout(() => {
        this.#retries.delete(timer);
        this.#send(actorId, entries, attempt + 1);
      }, RETRY_DELAY_MS * attempt);
      timer.unref();
      this.#retries.set(timer, entries);
    });
  }
}
