/**
 * Streaming reads for the LMDB adapter.
 *
 * A scan takes one plan from the query planner and reads it in batches. Each batch is a fresh
 * range read that resumes just after the last key the previous batch reached, and is closed
 * before the batch is handed out, so no read transaction stays open while the caller works (a
 * long-lived one keeps LMDB from reusing freed pages, and the file grows). Every key is
 * visited once, so a document present throughout is seen once; one written meanwhile may or
 * may not be.
 *
 * Multikey indexes are never used: they list a document once per array element, and telling
 * repeats apart across batches would mean remembering every document seen.
 */
import type { Doc, Filter } from './store.js';
import { matchesFilter, normalizeSort } from './query.js';
import { idKey, skipComponent } from './lmdb-keys.js';
import { choosePlan, triviallyEmpty, type LmdbCollection, type Plan } from './lmdb-query.js';

/** Where a scan stands: the plan's interval (or id) it is in, and the last key it read there. */
export interface ScanCursor {
  position: number;
  after: Buffer | undefined;
  done: boolean;
}

/** Keys looked at per batch before it is handed out even if short, so a sparse scan still yields. */
const EXAMINED_PER_DOC = 8;

/** The plan of a scan, or undefined when nothing can match. */
export function planScan(collection: LmdbCollection, filter: Filter): Plan | undefined {
  if (triviallyEmpty(filter)) return undefined;
  const singleEntry = { ...collection, indexes: collection.indexes.filter((index) => !index.multikey) };
  return choosePlan(singleEntry, filter, normalizeSort(undefined));
}

/** A fresh cursor at the start of a plan. */
export function startCursor(): ScanCursor {
  return { position: 0, after: undefined, done: false };
}

/** Keeps a document's `_id` and the named top-level fields, or the whole document without names. */
export type Pick = ((doc: Doc) => Doc) | undefined;

/** What a projection keeps of each document (see `ScanOptions.projection`). */
export function pickFields(projection: readonly string[] | undefined): Pick {
  if (projection === undefined) return undefined;
  const names = projection.filter((name) => name !== '_id');
  return (doc) => {
    const out: Doc = { _id: doc._id };
    for (const name of names) if (Object.hasOwn(doc, name)) out[name] = doc[name];
    return out;
  };
}

function fetchMatching(collection: LmdbCollection, docKey: Buffer, filter: Filter, pick: Pick): Doc | undefined {
  const buffer = collection.db.getBinaryFast(docKey);
  if (buffer === undefined) return undefined;
  const doc = collection.decode(buffer);
  if (!matchesFilter(doc, filter)) return undefined;
  return pick ? pick(doc) : doc;
}

/**
 * Reads the next batch of a scan: at most `batchSize` matching documents, possibly fewer (even
 * none) when many keys did not match. Sets `cursor.done` once the plan is exhausted. With
 * `pick`, each document is cut down as soon as it has matched, so a batch holds only that.
 */
export function readBatch(collection: LmdbCollection, plan: Plan, filter: Filter, cursor: ScanCursor, batchSize: number, pick?: Pick): Doc[] {
  const docs: Doc[] = [];
  const budget = batchSize * EXAMINED_PER_DOC;
  let examined = 0;
  if (plan.ids) {
    for (; cursor.position < plan.ids.length && docs.length < batchSize && examined < budget; cursor.position++, examined++) {
      const doc = fetchMatching(collection, idKey(plan.ids[cursor.position]!), filter, pick);
      if (doc) docs.push(doc);
    }
    cursor.done = cursor.position >= plan.ids.length;
    return docs;
  }
  const index = plan.index;
  for (; cursor.position < plan.intervals.length; cursor.position++, cursor.after = undefined) {
    const { start, end } = plan.intervals[cursor.position]!;
    const range = cursor.after === undefined ? { start, end } : { start: cursor.after, end, exclusiveStart: true };
    if (!index) {
      for (const { key, value } of collection.db.getRange(range)) {
        cursor.after = Buffer.from(key);
        examined++;
        const doc = collection.decode(value);
        if (matchesFilter(doc, filter)) docs.push(pick ? pick(doc) : doc);
        if (docs.length >= batchSize || examined >= budget) return docs;
      }
    } else if (index.spec.unique) {
      for (const { key, value } of index.db.getRange(range)) {
        cursor.after = Buffer.from(key);
        examined++;
        const doc = fetchMatching(collection, value, filter, pick);
        if (doc) docs.push(doc);
        if (docs.length >= batchSize || examined >= budget) return docs;
      }
    } else {
      const n = index.spec.fields.length;
      for (const key of index.db.getKeys(range)) {
        cursor.after = Buffer.from(key);
        examined++;
        let offset = 0;
        for (let i = 0; i < n; i++) offset = skipComponent(key, offset);
        const doc = fetchMatching(collection, key.subarray(offset), filter, pick);
        if (doc) docs.push(doc);
        if (docs.length >= batchSize || examined >= budget) return docs;
      }
    }
  }
  cursor.done = true;
  return docs;
}
