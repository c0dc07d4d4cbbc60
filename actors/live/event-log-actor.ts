import { Actor, type ActorContext, type Handlers } from '../../engine/actor.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import {
  chunkRemovals,
  chunkWrites,
  entriesOf,
  EVENT_LOG,
  EVENT_LOG_BODIES,
  EVENT_LOG_LIMITS,
  type EventLogBody,
  type EventLogChunk,
  type EventLogLimits,
  entriesToDrop,
  type LogItem,
  mergeEntries,
  toItem,
  windowJson,
} from './event-log-model.js';
import { EventLogKind, eventLogActorId, type EventLogProtocol, type EventLogSweeperProtocol } from './event-log-protocol.js';

/** Chunks read per storage query while loading. */
const CHUNKS_PER_LOAD = 100;

/**
 * One page's event log. Keeps the retained entries in memory (each serialised for answers on
 * its first read), so a catch-up read is a filter and a join. Appends arrive from the live
 * fan-out in publication order, each stored as one chunk; a chunk is removed once retention
 * has dropped all of its entries.
 */
export class EventLogActor extends Actor<EventLogProtocol> {
  readonly #tenantId: string;
  readonly #urlId: string;
  readonly #limits: EventLogLimits;
  #items: LogItem[] = [];
  /** Retained entries per stored chunk. */
  readonly #chunks = new Map<string, number>();

  constructor(ctx: ActorContext, limits: EventLogLimits = EVENT_LOG_LIMITS) {
    super(ctx);
    this.#limits = limits;
    const colon = ctx.id.indexOf(':');
    this.#tenantId = ctx.id.slice(0, colon);
    this.#urlId = ctx.id.slice(colon + 1);
  }

  override async onStart(): Promise<void> {
    // Newest chunks first, until they hold the retained number of entries; what is older
    // expires and is swept.
    const items: LogItem[] = [];
    const filter = { tenantId: this.#tenantId, urlId: this.#urlId };
    for (let skip = 0; items.length < this.#limits.maxEventsPerPage; skip += CHUNKS_PER_LOAD) {
      const chunks = await this.store.find<EventLogChunk>(EVENT_LOG, filter, { sort: [['_id', -1]], skip, limit: CHUNKS_PER_LOAD });
      for (const chunk of chunks) {
        const body = await this.store.get<EventLogBody>(EVENT_LOG_BODIES, chunk._id);
        for (const doc of entriesOf(chunk, body)) items.push(toItem(doc, chunk._id));
      }
      if (chunks.length < CHUNKS_PER_LOAD) break;
    }
    items.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const now = clock.now();
    this.#items = items.slice(entriesToDrop(items, now, this.#limits));
    for (const item of this.#items) this.#chunks.set(item.chunk, (this.#chunks.get(item.chunk) ?? 0) + 1);
  }

  readonly handlers: Handlers<EventLogProtocol> = {
    append: ({ entries }) => {
      for (const doc of entries) {
        if (doc.tenantId !== this.#tenantId || doc.urlId !== this.#urlId) {
          throw new ApiError('internal-error', `An event-log entry of ${doc.tenantId}:${doc.urlId} reached ${this.key}.`);
        }
      }
      const added = mergeEntries(this.#items, entries);
      if (added.length > 0) {
        for (const op of chunkWrites(added)) this.write(op);
        this.#chunks.set(added[0]!._id, added.length);
      }
      this.#applyRetention();
      return null;
    },
    // Not `allowUnconfirmed`: an entry whose write then failed would be served and vanish.
    read: ({ startTime, endTime }) => windowJson(this.#items, startTime, endTime, clock.now(), this.#limits),
    trim: async () => {
      this.#applyRetention();
      const cutoff = clock.now() - this.#limits.retentionMs;
      const stored = await this.store.find<EventLogChunk>(
        EVENT_LOG,
        { tenantId: this.#tenantId, urlId: this.#urlId, at: { $lt: cutoff } },
        { limit: this.#limits.sweepBatch },
      );
      for (const chunk of stored) {
        this.#chunks.delete(chunk._id);
        for (const op of chunkRemovals(chunk._id)) this.write(op);
      }
      return null;
    },
  };

  #applyRetention(): void {
    const drop = entriesToDrop(this.#items, clock.now(), this.#limits);
    if (drop === 0) return;
    for (let i = 0; i < drop; i++) {
      const chunk = this.#items[i]!.chunk;
      const left = (this.#chunks.get(chunk) ?? 1) - 1;
      if (left > 0) {
        this.#chunks.set(chunk, left);
      } else {
        this.#chunks.delete(chunk);
        for (const op of chunkRemovals(chunk)) this.write(op);
      }
    }
    // From the front, in place: V8 trims an array's start without copying the rest.
    this.#items.splice(0, drop);
  }
}

/**
 * Drops the expired entries of pages that stopped receiving events (busy pages trim themselves
 * on every append). Finds them through the time index and asks each page's actor to trim, so
 * the entries are only ever written by the actor that owns them.
 */
export class EventLogSweeperActor extends Actor<EventLogSweeperProtocol> {
  readonly #limits: EventLogLimits;

  constructor(ctx: ActorContext, limits: EventLogLimits = EVENT_LOG_LIMITS) {
    super(ctx);
    this.#limits = limits;
  }

  override async onStart(): Promise<void> {}

  readonly handlers: Handlers<EventLogSweeperProtocol> = {
    sweep: async () => {
      const cutoff = clock.now() - this.#limits.retentionMs;
      const trimmed = new Set<string>();
      // Each round waits for its trims to be durable, so the next query sees their effect;
      // a page with more expired entries than one trim removes comes back in the next round.
      for (let round = 0; round < 20; round++) {
        const docs = await this.store.find<EventLogChunk>(EVENT_LOG, { at: { $lt: cutoff } }, { sort: [['at', 1]], limit: this.#limits.sweepBatch });
        if (docs.length === 0) break;
        const pages = new Set(docs.map((doc) => eventLogActorId(doc.tenantId, doc.urlId)));
        await Promise.all([...pages].map((id) => this.system.ask(EventLogKind, id, 'trim', null)));
        for (const id of pages) trimmed.add(id);
        if (docs.length < this.#limits.sweepBatch) break;
      }
      return { pages: trimmed.size };
    },
  };
}
