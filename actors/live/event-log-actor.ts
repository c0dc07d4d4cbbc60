import { Actor, type ActorContext, type Handlers } from '../../engine/actor.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import {
  chunkRemovals,
  chunksToDrop,
  EVENT_LOG,
  EVENT_LOG_BODIES,
  EVENT_LOG_LIMITS,
  type EventLogBody,
  type EventLogChunk,
  type EventLogLimits,
  insertChunk,
  type LogChunk,
  loadedChunk,
  storeChunk,
  unseenEntries,
  windowJson,
} from './event-log-model.js';
import { EventLogKind, eventLogActorId, type EventLogProtocol, type EventLogSweeperProtocol } from './event-log-protocol.js';

/** Chunks read per storage query while loading. */
const CHUNKS_PER_LOAD = 100;

/**
 * One page's event log. Keeps the retained chunks in memory, each as the JSON it was stored
 * as and parsed on its first read, so a catch-up read is a filter and a join. Appends arrive
 * from the live fan-out in publication order, each stored as one chunk; retention removes
 * whole chunks.
 */
export class EventLogActor extends Actor<EventLogProtocol> {
  readonly #page: { tenantId: string; urlId: string };
  readonly #limits: EventLogLimits;
  /** Retained chunks, by id. */
  #chunks: LogChunk[] = [];

  constructor(ctx: ActorContext, limits: EventLogLimits = EVENT_LOG_LIMITS) {
    super(ctx);
    this.#limits = limits;
    const colon = ctx.id.indexOf(':');
    this.#page = { tenantId: ctx.id.slice(0, colon), urlId: ctx.id.slice(colon + 1) };
  }

  override async onStart(): Promise<void> {
    // Newest chunks first, until they hold the retained number of entries; what is older
    // expires and is swept.
    const chunks: LogChunk[] = [];
    let entries = 0;
    let bytes = 0;
    const full = () => entries >= this.#limits.maxEventsPerPage || bytes >= this.#limits.maxBytesPerPage;
    for (let skip = 0; !full(); skip += CHUNKS_PER_LOAD) {
      const docs = await this.store.find<EventLogChunk>(EVENT_LOG, this.#page, { sort: [['_id', -1]], skip, limit: CHUNKS_PER_LOAD });
      for (const doc of docs) {
        // What retention would drop is not even read: its body may be large.
        if (full()) break;
        const chunk = loadedChunk(doc, await this.store.get<EventLogBody>(EVENT_LOG_BODIES, doc._id));
        chunks.push(chunk);
        entries += chunk.count;
        bytes += chunk.bytes;
      }
      if (docs.length < CHUNKS_PER_LOAD) break;
    }
    chunks.reverse();
    this.#chunks = chunks.slice(chunksToDrop(chunks, clock.now(), this.#limits));
  }

  readonly handlers: Handlers<EventLogProtocol> = {
    append: ({ entries }) => {
      const { tenantId, urlId } = this.#page;
      for (const doc of entries) {
        if (doc.tenantId !== tenantId || doc.urlId !== urlId) {
          throw new ApiError('internal-error', `An event-log entry of ${doc.tenantId}:${doc.urlId} reached ${this.key}.`);
        }
      }
      const added = unseenEntries(this.#chunks, entries, tenantId, urlId);
      if (added.length > 0) {
        const { writes, chunk } = storeChunk(added);
        for (const op of writes) this.write(op);
        insertChunk(this.#chunks, chunk);
      }
      this.#applyRetention();
      return null;
    },
    // Not `allowUnconfirmed`: an entry whose write then failed would be served and vanish.
    read: ({ startTime, endTime }) => windowJson(this.#chunks, this.#page, startTime, endTime, clock.now(), this.#limits),
    trim: async () => {
      this.#applyRetention();
      const cutoff = clock.now() - this.#limits.retentionMs;
      const stored = await this.store.find<EventLogChunk>(EVENT_LOG, { ...this.#page, at: { $lt: cutoff } }, { limit: this.#limits.sweepBatch });
      const gone = new Set<string>();
      for (const chunk of stored) {
        gone.add(chunk._id);
        for (const op of chunkRemovals(chunk._id)) this.write(op);
      }
      if (gone.size > 0) this.#chunks = this.#chunks.filter((chunk) => !gone.has(chunk.id));
      return null;
    },
  };

  #applyRetention(): void {
    const drop = chunksToDrop(this.#chunks, clock.now(), this.#limits);
    if (drop === 0) return;
    for (let i = 0; i < drop; i++) for (const op of chunkRemovals(this.#chunks[i]!.id)) this.write(op);
    // From the front, in place: V8 trims an array's start without copying the rest.
    this.#chunks.splice(0, drop);
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
