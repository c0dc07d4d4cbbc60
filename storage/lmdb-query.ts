/**
 * The LMDB adapter's query planner and executor.
 *
 * A plan picks one access path: the documents themselves (ordered by `_id`) or one index. An
 * index is used for its longest leading run of single-value conditions, then a range or `$in`
 * on the next field. When the requested order follows the index (after the equality prefix,
 * forward or reverse), results stream in index order and the scan stops once skip + limit
 * results are certain; otherwise candidates are collected and sorted in memory. Every fetched
 * document is checked against the whole filter, because index keys only narrow the candidates
 * (values may be cut, arrays produce one entry per element, ranges may be widened).
 *
 * Streaming in index order is exact up to "runs": consecutive results whose sort values are
 * equal in the key (ties, or long values cut to the same prefix) are sorted in memory with the
 * full comparator before they are emitted.
 */
import type { Database } from 'lmdb';
import type { Doc, Filter, FindOptions, IndexSpec, Scalar, SortSpec } from './store.js';
import { compareStrings, docComparator, isOperatorCondition, matchesFilter, normalizeSort } from './query.js';
import {
  componentsKey,
  idBound,
  idKey,
  idKeyOrderPart,
  prefixEnd,
  skipComponent,
  typeBracket,
} from './lmdb-keys.js';

/** An index as the planner sees it. */
export interface LmdbIndex {
  readonly spec: IndexSpec;
  readonly db: Database<Buffer, Buffer>;
  /** UTF-16 units kept of string values in this index's keys. */
  readonly units: number;
  /** Whether an array value was ever indexed (range bounds cannot be intersected then). */
  multikey: boolean;
}

/** A collection as the planner sees it. */
export interface LmdbCollection {
  readonly name: string;
  readonly db: Database<Buffer, Buffer>;
  readonly indexes: readonly LmdbIndex[];
  readonly decode: (buffer: Buffer) => Doc;
}

type Bound = Buffer | undefined;
export interface Interval {
  readonly start: Bound;
  readonly end: Bound;
}

/** One access path and the key ranges it reads. */
export interface Plan {
  readonly index: LmdbIndex | undefined;
  /** Exact document ids to fetch (primary plans on `_id` equality or `$in`). */
  readonly ids?: readonly string[];
  /** Key ranges [start, end), ascending and disjoint. Empty means no result. */
  readonly intervals: readonly Interval[];
  readonly ordered: boolean;
  readonly reverse: boolean;
  /** Index components [from, to) that carry the sort values, for run detection. */
  readonly runFrom: number;
  readonly runTo: number;
  /** Whether runs may be split by document key (the index is in `_id` order within equal values). */
  readonly runWithId: boolean;
  readonly score: number;
}

const FULL: readonly Interval[] = [{ start: undefined, end: undefined }];
const RANGE_OPS = ['$gt', '$gte', '$lt', '$lte'] as const;

/** A condition that pins a field to a single value, if it does (or narrows it to one value). */
function singlePoint(condition: Filter[string] | undefined): { value: Scalar } | undefined {
  if (condition === undefined) return undefined;
  if (!isOperatorCondition(condition)) return { value: condition };
  if (condition.$eq !== undefined) return { value: condition.$eq };
  if (condition.$in?.length === 1) return { value: condition.$in[0]! };
  if (condition.$all !== undefined && condition.$all.length > 0) return { value: condition.$all[0]! };
  if (condition.$exists === false) return { value: null };
  return undefined;
}

function multiPoints(condition: Filter[string] | undefined): readonly Scalar[] | undefined {
  if (condition === undefined || !isOperatorCondition(condition)) return undefined;
  return condition.$in !== undefined && condition.$in.length > 1 ? condition.$in : undefined;
}

function hasRange(condition: Filter[string] | undefined): boolean {
  return (
    condition !== undefined && isOperatorCondition(condition) && RANGE_OPS.some((op) => condition[op] !== undefined)
  );
}

/** True when no document can match, whatever the data. */
export function triviallyEmpty(filter: Filter): boolean {
  for (const field in filter) {
    const condition = filter[field]!;
    if (!isOperatorCondition(condition)) continue;
    if (condition.$in?.length === 0 || condition.$all?.length === 0) return true;
  }
  return false;
}

function maxBound(a: Bound, b: Bound): Bound {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Buffer.compare(a, b) >= 0 ? a : b;
}

function minBound(a: Bound, b: Bound): Bound {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Buffer.compare(a, b) <= 0 ? a : b;
}

function isEmpty(interval: Interval): boolean {
  return interval.start !== undefined && interval.end !== undefined && Buffer.compare(interval.start, interval.end) >= 0;
}

function concat(prefix: Buffer, suffix: Buffer | number): Buffer {
  return Buffer.concat([prefix, typeof suffix === 'number' ? Buffer.of(suffix) : suffix]);
}

/** The key interval of one range condition on the component after `prefix`. */
function rangeInterval(prefix: Buffer, condition: Filter[string], units: number, multikey: boolean): Interval {
  const ops = RANGE_OPS.filter((op) => isOperatorCondition(condition) && condition[op] !== undefined);
  // On a multikey field each bound may be met by a different element, so only one is usable.
  const used = multikey ? ops.slice(0, 1) : ops;
  let start: Bound = prefix.length > 0 ? prefix : undefined;
  let end: Bound = prefix.length > 0 ? prefixEnd(prefix) : undefined;
  for (const op of used) {
    const value = (condition as Record<string, Scalar>)[op]!;
    const { key, cut } = componentsKey([value], units);
    const [low, high] = typeBracket(value);
    const component = concat(prefix, key);
    if (op === '$gt' || op === '$gte') {
      start = maxBound(start, op === '$gte' || cut ? component : prefixEnd(component));
      end = minBound(end, concat(prefix, high));
    } else {
      start = maxBound(start, concat(prefix, low));
      end = minBound(end, op === '$lt' && !cut ? component : prefixEnd(component));
    }
  }
  return { start, end };
}

/** The key interval of a range condition on `_id` in the documents database. */
function idRangeInterval(condition: Filter[string]): Interval | undefined {
  let start: Bound;
  let end: Bound;
  for (const op of RANGE_OPS) {
    const value = (condition as Record<string, Scalar | undefined>)[op];
    if (value === undefined) continue;
    // Ids are strings, and ranges only compare values of the same type.
    if (typeof value !== 'string') return undefined;
    const { key, cut } = idBound(value);
    if (op === '$gt' || op === '$gte') {
      start = maxBound(start, op === '$gte' || cut ? key : concat(key, 0));
    } else {
      end = minBound(end, cut ? prefixEnd(key) : op === '$lt' ? key : concat(key, 0));
    }
  }
  return { start, end };
}

/** The sort fields an index would have to deliver, once fields pinned to one value are dropped. */
function effectiveSort(sort: SortSpec, filter: Filter): { fields: SortSpec; idDirection: 1 | -1 } {
  const fields = sort.filter(([field]) => field !== '_id' && singlePoint(filter[field]) === undefined);
  return { fields, idDirection: sort[sort.length - 1]![1] };
}

function primaryPlan(filter: Filter, sort: SortSpec): Plan {
  const { fields, idDirection } = effectiveSort(sort, filter);
  const ordered = fields.length === 0;
  const base = { index: undefined, ordered, reverse: idDirection === -1, runFrom: 0, runTo: 0, runWithId: true };
  const condition = filter._id;
  const point = singlePoint(condition);
  const points = point ? [point.value] : multiPoints(condition);
  if (points) {
    const ids = [...new Set(points.filter((p): p is string => typeof p === 'string'))].sort(compareStrings);
    return { ...base, ids, intervals: [], score: 1000 };
  }
  if (condition !== undefined && hasRange(condition)) {
    const interval = idRangeInterval(condition);
    const intervals = interval && !isEmpty(interval) ? [interval] : [];
    return { ...base, intervals, score: 40 + (ordered ? 10 : 0) };
  }
  return { ...base, intervals: FULL, score: ordered ? 10 : 0 };
}

function indexPlan(index: LmdbIndex, filter: Filter, sort: SortSpec): Plan {
  const { fields: indexFields, unique } = index.spec;
  const n = indexFields.length;
  const prefixValues: Scalar[] = [];
  while (prefixValues.length < n) {
    const point = singlePoint(filter[indexFields[prefixValues.length]!]);
    if (!point) break;
    prefixValues.push(point.value);
  }
  const p = prefixValues.length;
  const prefix = componentsKey(prefixValues, index.units).key;
  const next = p < n ? filter[indexFields[p]!] : undefined;
  const points = multiPoints(next);
  let intervals: Interval[];
  let narrowing = 0;
  if (points) {
    const keys = [...new Set(points)].map((value) => concat(prefix, componentsKey([value], index.units).key));
    keys.sort(Buffer.compare);
    intervals = [];
    for (const key of keys) {
      if (intervals.length > 0 && Buffer.compare(key, intervals[intervals.length - 1]!.start!) === 0) continue;
      intervals.push({ start: key, end: prefixEnd(key) });
    }
    narrowing = 30;
  } else if (next !== undefined && hasRange(next)) {
    const interval = rangeInterval(prefix, next, index.units, index.multikey);
    intervals = isEmpty(interval) ? [] : [interval];
    narrowing = 40;
  } else {
    intervals = p > 0 ? [{ start: prefix, end: prefixEnd(prefix) }] : [...FULL];
  }

  const { fields, idDirection } = effectiveSort(sort, filter);
  let ordered = false;
  let reverse = false;
  let runWithId = false;
  const m = fields.length;
  if (m === 0) {
    ordered = p === n;
    reverse = idDirection === -1;
    runWithId = !unique;
  } else if (p + m <= n) {
    const direction = fields[0]![1];
    ordered = fields.every(([field, d], i) => field === indexFields[p + i] && d === direction);
    reverse = direction === -1;
    runWithId = ordered && p + m === n && !unique && direction === idDirection;
  }
  const score = p * 100 + narrowing + (ordered ? 10 : 0) + (unique && p === n ? 50 : 0);
  return { index, intervals, ordered, reverse, runFrom: p, runTo: p + m, runWithId, score };
}

/** The access path with the best score for this filter and sort. */
export function choosePlan(collection: LmdbCollection, filter: Filter, sort: SortSpec): Plan {
  let best = primaryPlan(filter, sort);
  for (const index of collection.indexes) {
    const plan = indexPlan(index, filter, sort);
    if (plan.score > best.score) best = plan;
  }
  return best;
}

/** A document key, and the index key it was found under (index plans only). */
interface Candidate {
  readonly docKey: Buffer;
  readonly indexKey: Buffer | undefined;
}

function* candidates(collection: LmdbCollection, plan: Plan): Generator<Candidate> {
  if (plan.ids) {
    const ids = plan.reverse ? [...plan.ids].reverse() : plan.ids;
    for (const id of ids) yield { docKey: idKey(id), indexKey: undefined };
    return;
  }
  const intervals = plan.reverse ? [...plan.intervals].reverse() : plan.intervals;
  const index = plan.index;
  for (const { start, end } of intervals) {
    const range = plan.reverse
      ? { start: end, end: start, reverse: true, exclusiveStart: end !== undefined, inclusiveEnd: start !== undefined }
      : { start, end };
    if (!index) {
      for (const key of collection.db.getKeys(range)) yield { docKey: key, indexKey: undefined };
    } else if (index.spec.unique) {
      for (const { key, value } of index.db.getRange(range)) yield { docKey: value, indexKey: key };
    } else {
      const n = index.spec.fields.length;
      for (const key of index.db.getKeys(range)) {
        let offset = 0;
        for (let i = 0; i < n; i++) offset = skipComponent(key, offset);
        yield { docKey: key.subarray(offset), indexKey: key };
      }
    }
  }
}

const SEPARATOR = Buffer.of(0xff);

/**
 * The bytes that decide a result's position in an ordered scan: consecutive results with equal
 * run keys form a run that is sorted in memory. For an index that is the sort components, cut
 * short after the first value that may have been cut (entries sharing a cut value are ordered
 * by what follows in the key, not by the full value; a value exactly as long as the cut counts,
 * since it equals the cut prefix of longer ones), plus the document key where the index is in
 * `_id` order within equal values.
 */
function runKeyOf(plan: Plan, candidate: Candidate, doc: Doc): Buffer {
  const index = plan.index;
  if (!index) return idKeyOrderPart(candidate.docKey);
  const key = candidate.indexKey!;
  let start = 0;
  for (let i = 0; i < plan.runFrom; i++) start = skipComponent(key, start);
  let end = start;
  for (let i = plan.runFrom; i < plan.runTo; i++) {
    end = skipComponent(key, end);
    const value = doc[index.spec.fields[i]!];
    if (typeof value === 'string' && value.length >= index.units) return key.subarray(start, end);
  }
  const sortPart = key.subarray(start, end);
  return plan.runWithId ? Buffer.concat([sortPart, SEPARATOR, idKeyOrderPart(candidate.docKey)]) : sortPart;
}

/** Signals that an ordered scan met an array in a sort field, where key order is not sort order. */
class NotInKeyOrder extends Error {}

function hasArrayIn(doc: Doc, sort: SortSpec): boolean {
  for (const [field] of sort) if (Array.isArray(doc[field])) return true;
  return false;
}

/**
 * Runs a plan. With `want` set, an ordered scan stops once that many results are certain.
 * Returns the matching documents in sort order (or unsorted when `sort` is undefined).
 */
function execute(
  collection: LmdbCollection,
  plan: Plan,
  filter: Filter,
  sort: SortSpec | undefined,
  want: number,
): Doc[] {
  const comparator = sort ? docComparator(sort) : undefined;
  const dedupe = plan.index?.multikey ? new Set<string>() : undefined;
  const results: Doc[] = [];
  let run: Doc[] = [];
  let runKey: Buffer | undefined;
  const flush = () => {
    if (run.length > 1) run.sort(comparator);
    for (const doc of run) results.push(doc);
    run = [];
  };
  for (const candidate of candidates(collection, plan)) {
    if (dedupe) {
      const seen = candidate.docKey.toString('latin1');
      if (dedupe.has(seen)) continue;
      dedupe.add(seen);
    }
    const buffer = collection.db.getBinaryFast(candidate.docKey);
    if (buffer === undefined) continue;
    const doc = collection.decode(buffer);
    if (!matchesFilter(doc, filter)) continue;
    if (!plan.ordered || !sort) {
      results.push(doc);
      continue;
    }
    if (hasArrayIn(doc, sort)) throw new NotInKeyOrder();
    const key = runKeyOf(plan, candidate, doc);
    if (runKey === undefined || !runKey.equals(key)) {
      flush();
      if (results.length >= want) return results;
      runKey = Buffer.from(key);
    }
    run.push(doc);
  }
  flush();
  if (!plan.ordered && comparator) results.sort(comparator);
  return results;
}

/** Finds documents with MongoDB semantics (see `query.ts`). The caller validated the inputs. */
export function findDocs(collection: LmdbCollection, filter: Filter, options: FindOptions): Doc[] {
  const skip = options.skip ?? 0;
  const limit = options.limit;
  if (limit === 0 || triviallyEmpty(filter)) return [];
  const sort = normalizeSort(options.sort);
  const plan = choosePlan(collection, filter, sort);
  const want = limit === undefined ? Infinity : skip + limit;
  let results: Doc[];
  try {
    results = execute(collection, plan, filter, sort, want);
  } catch (error) {
    if (!(error instanceof NotInKeyOrder)) throw error;
    results = execute(collection, { ...plan, ordered: false }, filter, sort, Infinity);
  }
  return results.slice(skip, limit === undefined ? undefined : skip + limit);
}

/** Counts matching documents, from index keys alone when the filter is exactly an equality prefix. */
export function countDocs(collection: LmdbCollection, filter: Filter): number {
  if (triviallyEmpty(filter)) return 0;
  const fields = Object.keys(filter);
  if (fields.length === 0) return collection.db.getKeysCount();
  for (const index of collection.indexes) {
    const covered = coveredPrefix(index, filter, fields);
    if (covered) return index.db.getKeysCount({ start: covered, end: prefixEnd(covered) });
  }
  const sort = normalizeSort(undefined);
  const plan = { ...choosePlan(collection, filter, sort), ordered: false };
  return execute(collection, plan, filter, undefined, Infinity).length;
}

/**
 * The key prefix whose entries are exactly the matching documents, or undefined. That holds when
 * the filter is plain non-null equality on the index's leading fields, no value was cut, and the
 * index never held an array (so each document has exactly one entry).
 */
function coveredPrefix(index: LmdbIndex, filter: Filter, fields: readonly string[]): Buffer | undefined {
  if (index.multikey || fields.length > index.spec.fields.length) return undefined;
  const values: Scalar[] = [];
  for (let i = 0; i < fields.length; i++) {
    const condition = filter[index.spec.fields[i]!];
    if (condition === undefined) return undefined;
    let value: Scalar | undefined;
    if (!isOperatorCondition(condition)) value = condition;
    else if (Object.keys(condition).length === 1 && condition.$eq !== undefined) value = condition.$eq;
    if (value === undefined || value === null) return undefined;
    values.push(value);
  }
  const { key, cut } = componentsKey(values, index.units);
  return cut ? undefined : key;
}
