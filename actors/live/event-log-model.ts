/**
 * The event log: each page's recent live events, kept so that a widget that reconnects can
 * fetch what it missed (`GET /event-log/:tenantId`). Stored shape, retention, and the rules
 * for appending, trimming and reading, as pure functions the event-log actor calls.
 */
import { randomBytes } from 'node:crypto';
import type { LiveEvent } from './live-events.js';
import { encodeLiveEvent } from './live-wire.js';
import type { CollectionSpec, Doc, WriteOp } from '../../storage/store.js';

/** The collection of logged events: chunks, each holding the entries one append brought. */
export const EVENT_LOG = 'eventLog';
/** The entries of each chunk, under the chunk's `_id`. */
export const EVENT_LOG_BODIES = 'eventLogBodies';

/**
 * Found by page, newest first, for loading (the index carries `_id` so that no database sorts
 * a page's log in memory), and by the receipt time of their newest entry, for sweeping.
 */
export const eventLogCollections: readonly CollectionSpec[] = [
  {
    name: EVENT_LOG,
    indexes: [
      { name: 'by_page', fields: ['tenantId', 'urlId', '_id'] },
      { name: 'by_time', fields: ['at'] },
    ],
  },
  { name: EVENT_LOG_BODIES, indexes: [] },
];

/** How much of a page's log is kept. */
export interface EventLogLimits {
  /** Events kept per page: the newest this many. */
  readonly maxEventsPerPage: number;
  /** Events older than this (ms) are dropped. */
  readonly retentionMs: number;
  /** Expired entries looked at per storage query when sweeping. */
  readonly sweepBatch: number;
}

/** The server's retention, documented in docs/live.md. */
export const EVENT_LOG_LIMITS = {
  /** Events kept per page: the newest this many. */
  maxEventsPerPage: 5000,
  /** Events older than this are dropped (24 hours). */
  retentionMs: 24 * 60 * 60 * 1000,
  /** Expired entries the sweeper looks at per query. */
  sweepBatch: 1000,
} as const satisfies EventLogLimits;

/** One logged event as the fan-out makes it; `_id` sorts in the order the events were published. */
export interface EventLogDoc extends Doc {
  tenantId: string;
  urlId: string;
  /** When the server received the event (ms), never decreasing: retention counts from it. */
  at: number;
  /** The event's own `timestamp`, which clients ask for windows of. */
  timestamp: number;
  broadcastId: string;
  /** The event; its wire form (`encodeLiveEvent`) is made only when an entry is read. */
  event: LiveEvent;
}

/** An entry as stored inside its chunk (the page is the chunk's). */
export interface StoredEntry {
  _id: string;
  at: number;
  timestamp: number;
  broadcastId: string;
  event: LiveEvent;
}

/**
 * What is stored: the entries of one append, as one chunk. A burst of events (every vote of a
 * commit) then costs one chunk, not a document per event, and retention drops whole chunks
 * once none of their entries is kept. A chunk's `_id` is its first entry's.
 *
 * A chunk is two documents: this small indexed one, and its entries in an unindexed
 * collection. Retention removes a chunk on almost every append under load, and storage must
 * read a document to remove it from its indexes: the small one, that is, not tens of kilobytes
 * of events. The entries are one JSON string, not nested documents: events carry names no
 * rule controls (reaction ids as keys of counts, a comment's meta), which MongoDB could not
 * store as field names. (Nested documents allocated about 1.6 KB less per vote, for the same
 * CPU.)
 */
export interface EventLogChunk extends Doc {
  tenantId: string;
  urlId: string;
  /** Receipt time of its newest entry: the chunk expires with it. */
  at: number;
  /** How many entries it holds. */
  count: number;
}

/** A chunk's entries. */
export interface EventLogBody extends Doc {
  /** `StoredEntry[]` as JSON. */
  entriesJson: string;
}

/** The writes that store these entries (in id order, all of one page) as one chunk. */
export function chunkWrites(entries: readonly EventLogDoc[]): WriteOp[] {
  const first = entries[0]!;
  let at = 0;
  const stored: StoredEntry[] = [];
  for (const doc of entries) {
    if (doc.at > at) at = doc.at;
    stored.push({ _id: doc._id, at: doc.at, timestamp: doc.timestamp, broadcastId: doc.broadcastId, event: doc.event });
  }
  const chunk: EventLogChunk = { _id: first._id, tenantId: first.tenantId, urlId: first.urlId, at, count: stored.length };
  const body: EventLogBody = { _id: first._id, entriesJson: JSON.stringify(stored) };
  return [
    { op: 'put', collection: EVENT_LOG, doc: chunk },
    { op: 'put', collection: EVENT_LOG_BODIES, doc: body },
  ];
}

/** The writes that remove a chunk. */
export function chunkRemovals(chunkId: string): WriteOp[] {
  return [
    { op: 'delete', collection: EVENT_LOG, id: chunkId },
    { op: 'delete', collection: EVENT_LOG_BODIES, id: chunkId },
  ];
}

/** The entries of a chunk, each with its page (none if its body is missing). */
export function entriesOf(chunk: EventLogChunk, body: EventLogBody | undefined): EventLogDoc[] {
  if (body === undefined) return [];
  const stored = JSON.parse(body.entriesJson) as StoredEntry[];
  return stored.map((entry) => ({ ...entry, tenantId: chunk.tenantId, urlId: chunk.urlId }));
}

/**
 * A logged event as the actor keeps it: what retention and windows look at, the entry (its
 * answer form made on first read: most entries are never read), and the chunk it is stored in.
 */
export interface LogItem {
  readonly id: string;
  readonly at: number;
  readonly timestamp: number;
  readonly doc: EventLogDoc;
  json: string | undefined;
  readonly chunk: string;
}

/**
 * Makes entry ids that sort in the order they were made: receipt time (never decreasing, even
 * if the clock steps back), then a counter, then a tag of this process so that processes
 * sharing storage never collide.
 */
export class EntryIds {
  readonly #tag = randomBytes(3).toString('hex');
  #lastAt = 0;
  #seq = 0;

  /** The receipt time and id of the next entry, given the current time. */
  next(now: number): { at: number; id: string } {
    const at = Math.max(now, this.#lastAt);
    this.#lastAt = at;
    this.#seq = (this.#seq + 1) >>> 0;
    return { at, id: `${at.toString(16).padStart(12, '0')}${this.#seq.toString(16).padStart(8, '0')}${this.#tag}` };
  }
}

/** The entry as `GET /event-log` lists it (the API description's `EventLogEntry`). */
export function entryJson(doc: EventLogDoc): string {
  return JSON.stringify({
    _id: doc._id,
    // When the entry was received: made here, since most entries are never read.
    createdAt: new Date(doc.at).toISOString(),
    tenantId: doc.tenantId,
    urlId: doc.urlId,
    broadcastId: doc.broadcastId,
    data: encodeLiveEvent(doc.event),
  });
}

export function toItem(doc: EventLogDoc, chunk: string): LogItem {
  return { id: doc._id, at: doc.at, timestamp: doc.timestamp, doc, json: undefined, chunk };
}

function expired(item: LogItem, now: number, limits: EventLogLimits): boolean {
  return item.at < now - limits.retentionMs;
}

/**
 * Adds new entries to a page's log, which is sorted by id, in place (a page keeps thousands of
 * entries: copying them on every append would cost more than the append). Entries normally
 * arrive in id order and are appended; a retried batch may arrive late and is merged in place.
 * An id already present is skipped, so a retry after an uncertain outcome stores nothing twice.
 * Answers the entries added.
 */
export function mergeEntries(items: LogItem[], incoming: readonly EventLogDoc[]): EventLogDoc[] {
  const last = items.length > 0 ? items[items.length - 1]!.id : '';
  // The common case: every entry is new and they come in order.
  let ascending = true;
  let previous = last;
  for (const doc of incoming) {
    if (doc._id <= previous) {
      ascending = false;
      break;
    }
    previous = doc._id;
  }
  const added = ascending ? incoming.slice() : unseen(items, incoming, last);
  // The added entries are stored together, in a chunk named by the first of them.
  const chunk = added[0]?._id ?? '';
  for (const doc of added) items.push(toItem(doc, chunk));
  if (!ascending) items.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return added;
}

/** The entries of `incoming` neither logged already nor repeated. */
function unseen(items: readonly LogItem[], incoming: readonly EventLogDoc[], last: string): EventLogDoc[] {
  const known = new Set<string>();
  const added: EventLogDoc[] = [];
  for (const doc of incoming) {
    if (known.has(doc._id)) continue;
    known.add(doc._id);
    if (doc._id <= last && items.some((item) => item.id === doc._id)) continue;
    added.push(doc);
  }
  return added;
}

/**
 * How many of the oldest entries (the log is sorted by id, so by receipt time) retention
 * drops: those beyond the newest `maxEventsPerPage`, and those older than `retentionMs`.
 */
export function entriesToDrop(items: readonly LogItem[], now: number, limits: EventLogLimits): number {
  let drop = Math.max(0, items.length - limits.maxEventsPerPage);
  while (drop < items.length && expired(items[drop]!, now, limits)) drop++;
  return drop;
}

/**
 * The entries a client catching up asks for, oldest first, as a JSON array: those whose event
 * `timestamp` lies in [startTime, endTime] (both inclusive, so an event sharing the millisecond
 * of the last one a client saw is never skipped), and not expired.
 */
export function windowJson(items: readonly LogItem[], startTime: number, endTime: number, now: number, limits: EventLogLimits): string {
  const parts: string[] = [];
  for (const item of items) {
    if (item.timestamp >= startTime && item.timestamp <= endTime && !expired(item, now, limits)) parts.push((item.json ??= entryJson(item.doc)));
  }
  return `[${parts.join(',')}]`;
}
