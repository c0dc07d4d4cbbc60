/**
 * The event log: each page's recent live events, kept so that a widget that reconnects can
 * fetch what it missed (`GET /event-log/:tenantId`). Stored shape, retention, and the rules
 * for appending, trimming and reading, as pure functions the event-log actor calls.
 */
import { randomBytes } from 'node:crypto';
import type { LiveEvent } from './live-events.js';
import { log } from '../../engine/log.js';
import { encodeLiveEvent } from './live-wire.js';
import { publicEvent } from './public-projection.js';
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
  { name: EVENT_LOG_BODIES, indexes: [], tenantData: { sameIdAs: EVENT_LOG } },
];

/** How much of a page's log is kept, and served at once. */
export interface EventLogLimits {
  /** Events kept per page: the newest this many. */
  readonly maxEventsPerPage: number;
  /** Bytes (the stored JSON, UTF-8) kept per page: the newest chunks that fit, at least one. */
  readonly maxBytesPerPage: number;
  /** Bytes of entries one read answers; a read that stops there says `hasMore`. */
  readonly maxReadBytes: number;
  /** Events older than this (ms) are dropped. */
  readonly retentionMs: number;
  /** Expired entries looked at per storage query when sweeping. */
  readonly sweepBatch: number;
}

/** The server's retention, documented in docs/live.md. */
export const EVENT_LOG_LIMITS = {
  /** Events kept per page: the newest this many. */
  maxEventsPerPage: 5000,
  /** Bytes kept per page (4 MiB): big events (long comments) leave fewer entries. */
  maxBytesPerPage: 4 * 1024 * 1024,
  /** Bytes one read answers (1 MiB). */
  maxReadBytes: 1024 * 1024,
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
 * commit) then costs one chunk, not a document per event, and retention drops whole chunks.
 * A chunk's `_id` is its first entry's.
 *
 * A chunk is two documents: this small indexed one, and its entries in an unindexed
 * collection. Retention removes a chunk on almost every append under load, and storage must
 * read a document to remove it from its indexes: the small one, that is, not tens of kilobytes
 * of events. The entries are one JSON string, not nested documents: events carry names no
 * rule controls (reaction ids as keys of counts, a comment's meta), which MongoDB could not
 * store as field names.
 */
export interface EventLogChunk extends Doc {
  tenantId: string;
  urlId: string;
  /** Receipt time of its newest entry: the chunk expires with it. */
  at: number;
  /** How many entries it holds. */
  count: number;
  /** Its last entry's id (absent on chunks stored before it was recorded). */
  lastId?: string;
  /** The smallest and largest event `timestamp` of its entries (absent likewise). */
  firstTimestamp?: number;
  lastTimestamp?: number;
}

/** A chunk's entries. */
export interface EventLogBody extends Doc {
  /** `StoredEntry[]` as JSON. */
  entriesJson: string;
}

/**
 * A stored chunk as its page's actor keeps it: what retention and windows look at, and its
 * entries as the JSON that was stored. The entries are parsed only when a reader asks for
 * them, and kept parsed from then on (most chunks are never read). Holding one string per
 * chunk rather than objects per entry keeps a busy page's log out of the garbage collector's
 * way: thousands of retained entries were a large share of the cost of a vote.
 */
export interface LogChunk {
  readonly id: string;
  readonly lastId: string;
  readonly count: number;
  /** Receipt time of the newest entry. */
  readonly at: number;
  readonly firstTimestamp: number;
  readonly lastTimestamp: number;
  /** UTF-8 bytes of `entriesJson`: what retention counts. */
  readonly bytes: number;
  /** `StoredEntry[]` as JSON; empty when the stored chunk lost its body. */
  readonly entriesJson: string;
  /** The entries, once read. */
  items: LogItem[] | undefined;
}

/** A logged entry once read: its answer form is made on its first read, then kept. */
export interface LogItem {
  readonly id: string;
  readonly at: number;
  readonly timestamp: number;
  readonly doc: EventLogDoc;
  json: string | undefined;
  /** UTF-8 bytes of `json`, once made. */
  bytes: number;
}

/** The writes that store these entries (in id order, all of one page) as one chunk, and the chunk. */
export function storeChunk(entries: readonly EventLogDoc[]): { writes: WriteOp[]; chunk: LogChunk } {
  const first = entries[0]!;
  const last = entries[entries.length - 1]!;
  let at = 0;
  let firstTimestamp = Infinity;
  let lastTimestamp = -Infinity;
  const stored: StoredEntry[] = [];
  for (const doc of entries) {
    if (doc.at > at) at = doc.at;
    if (doc.timestamp < firstTimestamp) firstTimestamp = doc.timestamp;
    if (doc.timestamp > lastTimestamp) lastTimestamp = doc.timestamp;
    stored.push({ _id: doc._id, at: doc.at, timestamp: doc.timestamp, broadcastId: doc.broadcastId, event: doc.event });
  }
  const entriesJson = JSON.stringify(stored);
  const doc: EventLogChunk = { _id: first._id, tenantId: first.tenantId, urlId: first.urlId, at, count: stored.length, lastId: last._id, firstTimestamp, lastTimestamp };
  const body: EventLogBody = { _id: first._id, entriesJson };
  return {
    writes: [
      { op: 'put', collection: EVENT_LOG, doc },
      { op: 'put', collection: EVENT_LOG_BODIES, doc: body },
    ],
    chunk: { id: first._id, lastId: last._id, count: stored.length, at, firstTimestamp, lastTimestamp, bytes: Buffer.byteLength(entriesJson), entriesJson, items: undefined },
  };
}

/** The writes that store these entries (in id order, all of one page) as one chunk. */
export function chunkWrites(entries: readonly EventLogDoc[]): WriteOp[] {
  return storeChunk(entries).writes;
}

/** The writes that remove a chunk. */
export function chunkRemovals(chunkId: string): WriteOp[] {
  return [
    { op: 'delete', collection: EVENT_LOG, id: chunkId },
    { op: 'delete', collection: EVENT_LOG_BODIES, id: chunkId },
  ];
}

/** A chunk as loaded from storage; one stored without the recorded bounds is read to find them. */
export function loadedChunk(doc: EventLogChunk, body: EventLogBody | undefined): LogChunk {
  const entriesJson = body?.entriesJson ?? '[]';
  const chunk: LogChunk = {
    id: doc._id,
    lastId: doc.lastId ?? doc._id,
    count: body === undefined ? 0 : doc.count,
    at: doc.at,
    firstTimestamp: doc.firstTimestamp ?? -Infinity,
    lastTimestamp: doc.lastTimestamp ?? Infinity,
    bytes: Buffer.byteLength(entriesJson),
    entriesJson,
    items: undefined,
  };
  if (doc.lastId !== undefined && doc.firstTimestamp !== undefined && doc.lastTimestamp !== undefined) return chunk;
  const items = chunkItems(chunk, doc.tenantId, doc.urlId);
  if (items.length === 0) return { ...chunk, count: 0, items };
  return {
    ...chunk,
    lastId: items[items.length - 1]!.id,
    count: items.length,
    firstTimestamp: Math.min(...items.map((item) => item.timestamp)),
    lastTimestamp: Math.max(...items.map((item) => item.timestamp)),
    items,
  };
}

/** A chunk's entries, parsed on first use and kept. */
export function chunkItems(chunk: LogChunk, tenantId: string, urlId: string): LogItem[] {
  if (chunk.items !== undefined) return chunk.items;
  let stored: StoredEntry[];
  try {
    stored = JSON.parse(chunk.entriesJson) as StoredEntry[];
  } catch (err) {
    // A damaged chunk costs its own entries, never a read of the rest of the log.
    log.warn('event-log-chunk-unreadable', { tenantId, urlId, chunkId: chunk.id, err });
    stored = [];
  }
  chunk.items = stored.map((entry) => ({
    id: entry._id,
    at: entry.at,
    timestamp: entry.timestamp,
    doc: { ...entry, tenantId, urlId },
    json: undefined,
    bytes: 0,
  }));
  return chunk.items;
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
    // Projected again: entries logged before the projection existed must not serve more.
    data: encodeLiveEvent(publicEvent(doc.event)),
  });
}

function expired(item: LogItem, now: number, limits: EventLogLimits): boolean {
  return item.at < now - limits.retentionMs;
}

/**
 * The entries of `incoming` (all of one page) not logged already and not repeated, in id
 * order. Entries normally arrive in order, after everything logged; a retried batch may
 * arrive late, and its entries already logged are skipped, so a retry after an uncertain
 * outcome stores nothing twice.
 */
export function unseenEntries(chunks: readonly LogChunk[], incoming: readonly EventLogDoc[], tenantId: string, urlId: string): EventLogDoc[] {
  const last = chunks.length > 0 ? chunks[chunks.length - 1]!.lastId : '';
  let previous = last;
  let ascending = true;
  for (const doc of incoming) {
    if (doc._id <= previous) {
      ascending = false;
      break;
    }
    previous = doc._id;
  }
  if (ascending) return incoming.slice();
  const known = new Set<string>();
  for (const doc of incoming) {
    if (doc._id > last) continue;
    for (const chunk of chunks) {
      if (chunk.id <= doc._id && doc._id <= chunk.lastId) for (const item of chunkItems(chunk, tenantId, urlId)) known.add(item.id);
    }
  }
  const added: EventLogDoc[] = [];
  for (const doc of incoming) {
    if (known.has(doc._id)) continue;
    known.add(doc._id);
    added.push(doc);
  }
  return added.sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
}

/** Places a new chunk among a page's chunks, which are sorted by id, in place. */
export function insertChunk(chunks: LogChunk[], chunk: LogChunk): void {
  let at = chunks.length;
  while (at > 0 && chunks[at - 1]!.id > chunk.id) at--;
  chunks.splice(at, 0, chunk);
}

/** Whether the entries of some chunks interleave (a late batch landed among others). */
export function interleaved(chunks: readonly LogChunk[]): boolean {
  for (let i = 1; i < chunks.length; i++) if (chunks[i]!.id <= chunks[i - 1]!.lastId) return true;
  return false;
}

/**
 * How many of the oldest chunks retention drops: those whose entries are all older than
 * `retentionMs`, those that the newest `maxEventsPerPage` entries do not reach, and those
 * beyond `maxBytesPerPage` (the newest chunk always stays). A page therefore stores up to a
 * chunk's worth more than `maxEventsPerPage`; reads never serve more.
 */
export function chunksToDrop(chunks: readonly LogChunk[], now: number, limits: EventLogLimits): number {
  let total = 0;
  let bytes = 0;
  for (const chunk of chunks) {
    total += chunk.count;
    bytes += chunk.bytes;
  }
  let drop = 0;
  while (drop < chunks.length) {
    const chunk = chunks[drop]!;
    const fresh = chunk.at >= now - limits.retentionMs;
    const reached = total - chunk.count < limits.maxEventsPerPage;
    const fits = bytes <= limits.maxBytesPerPage || drop === chunks.length - 1;
    if (fresh && reached && fits) break;
    total -= chunk.count;
    bytes -= chunk.bytes;
    drop++;
  }
  return drop;
}

/** A read's entries as a JSON array, and whether the read stopped at `maxReadBytes` before the window's end. */
export interface LogWindow {
  readonly json: string;
  readonly more: boolean;
}

/**
 * The entries a client catching up asks for, oldest first: of the newest `maxEventsPerPage`
 * entries, those whose event `timestamp` lies in [startTime, endTime] (both inclusive, so an
 * event sharing the millisecond of the last one a client saw is never skipped) and not
 * expired, up to `maxReadBytes` (at least one entry); `more` says the window goes on, from the
 * last entry's timestamp. Chunks whose timestamps miss the window are not parsed.
 */
export function windowJson(
  chunks: readonly LogChunk[],
  page: { tenantId: string; urlId: string },
  startTime: number,
  endTime: number,
  now: number,
  limits: EventLogLimits,
): LogWindow {
  let total = 0;
  for (const chunk of chunks) total += chunk.count;
  let skip = Math.max(0, total - limits.maxEventsPerPage);
  const parts: string[] = [];
  let bytes = 0;
  let more = false;
  /** Adds the item if it is in the window; false once the read is full. */
  const take = (item: LogItem): boolean => {
    if (item.timestamp < startTime || item.timestamp > endTime || expired(item, now, limits)) return true;
    if (item.json === undefined) {
      item.json = entryJson(item.doc);
      item.bytes = Buffer.byteLength(item.json);
    }
    if (parts.length > 0 && bytes + item.bytes > limits.maxReadBytes) {
      more = true;
      return false;
    }
    parts.push(item.json);
    bytes += item.bytes + 1;
    return true;
  };
  if (interleaved(chunks)) {
    const items = chunks.flatMap((chunk) => chunkItems(chunk, page.tenantId, page.urlId));
    items.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (const item of items.slice(skip)) if (!take(item)) break;
    return { json: `[${parts.join(',')}]`, more };
  }
  for (const chunk of chunks) {
    if (skip >= chunk.count) {
      skip -= chunk.count;
      continue;
    }
    if (chunk.lastTimestamp >= startTime && chunk.firstTimestamp <= endTime) {
      const items = chunkItems(chunk, page.tenantId, page.urlId);
      for (let i = skip; i < items.length; i++) if (!take(items[i]!)) return { json: `[${parts.join(',')}]`, more };
    }
    skip = 0;
  }
  return { json: `[${parts.join(',')}]`, more };
}
