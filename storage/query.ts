/**
 * Filter and sort semantics shared by every adapter.
 *
 * MongoDB is the reference: the LMDB adapter evaluates filters and orders results with these
 * functions, and the MongoDB adapter relies on the server, so the rules below copy what MongoDB
 * (and FerretDB) do for the subset of the query language the Store port exposes.
 */
import type { Doc, FieldCondition, Filter, FindOptions, Scalar, SortSpec } from './store.js';

/** Operators a field condition may use. */
const OPERATORS = new Set(['$eq', '$ne', '$in', '$nin', '$gt', '$gte', '$lt', '$lte', '$all', '$exists']);

/** The operator object form of a field condition. */
export type OperatorCondition = Exclude<FieldCondition, Scalar>;

/** True when the condition is the operator object form rather than a bare scalar. */
export function isOperatorCondition(condition: FieldCondition): condition is OperatorCondition {
  return typeof condition === 'object' && condition !== null;
}

function isScalar(value: unknown): value is Scalar {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

function scalarList(field: string, op: string, value: unknown): void {
  if (!Array.isArray(value) || !value.every(isScalar)) {
    throw new TypeError(`filter on ${field}: ${op} needs an array of scalars`);
  }
}

/** A scan's projection, checked: top-level field names only (TypeError otherwise). */
export function checkProjection(projection: readonly string[] | undefined): readonly string[] | undefined {
  if (projection === undefined) return undefined;
  if (!Array.isArray(projection)) throw new TypeError('projection must be an array of field names');
  for (const name of projection) {
    if (typeof name !== 'string' || name === '' || name.startsWith('$') || name.includes('.')) throw new TypeError(`projection: "${String(name)}" is not a top-level field name`);
  }
  return projection;
}

/** Throws TypeError when the filter uses anything outside the supported language. */
export function validateFilter(filter: Filter): void {
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
    throw new TypeError('filter must be an object');
  }
  for (const [field, condition] of Object.entries(filter)) {
    if (field.startsWith('$') || field.includes('.')) {
      throw new TypeError(`filter on ${field}: only top-level fields are supported`);
    }
    if (!isOperatorCondition(condition)) {
      if (!isScalar(condition)) throw new TypeError(`filter on ${field}: unsupported value`);
      continue;
    }
    if (Array.isArray(condition)) throw new TypeError(`filter on ${field}: arrays are not comparable`);
    for (const [op, value] of Object.entries(condition)) {
      if (!OPERATORS.has(op)) throw new TypeError(`filter on ${field}: unsupported operator ${op}`);
      if (value === undefined) continue;
      if (op === '$in' || op === '$nin' || op === '$all') scalarList(field, op, value);
      else if (op === '$exists') {
        if (typeof value !== 'boolean') throw new TypeError(`filter on ${field}: $exists needs a boolean`);
      } else if (!isScalar(value)) throw new TypeError(`filter on ${field}: ${op} needs a scalar`);
    }
  }
}

/** Throws TypeError unless sort, skip and limit are well formed. */
export function validateFindOptions(options: FindOptions): void {
  for (const [field, direction] of options.sort ?? []) {
    if (typeof field !== 'string' || field.startsWith('$') || field.includes('.')) {
      throw new TypeError(`sort on ${String(field)}: only top-level fields are supported`);
    }
    if (direction !== 1 && direction !== -1) throw new TypeError(`sort on ${field}: direction must be 1 or -1`);
  }
  for (const key of ['skip', 'limit'] as const) {
    const value = options[key];
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
      throw new TypeError(`${key} must be a non-negative integer`);
    }
  }
}

/**
 * The sort both adapters apply: the requested fields, then `_id` ascending as the tie-breaker
 * unless `_id` is already part of it (fields after `_id` can never matter, so they are dropped).
 */
export function normalizeSort(sort: SortSpec | undefined): SortSpec {
  const result: Array<readonly [string, 1 | -1]> = [];
  const seen = new Set<string>();
  for (const [field, direction] of sort ?? []) {
    if (seen.has(field)) continue;
    seen.add(field);
    result.push([field, direction]);
    if (field === '_id') return result;
  }
  result.push(['_id', 1]);
  return result;
}

/*
 * Canonical type order (MongoDB's, restricted to JSON): an empty array sorts lowest (MongoDB
 * treats it as undefined), then null/missing, numbers, strings, objects, arrays, booleans.
 */
const RANK_EMPTY_ARRAY = 0;
const RANK_NULL = 1;
const RANK_NUMBER = 2;
const RANK_STRING = 3;
const RANK_OBJECT = 4;
const RANK_ARRAY = 5;
const RANK_BOOLEAN = 6;

function typeRank(value: unknown): number {
  switch (typeof value) {
    case 'number':
      return RANK_NUMBER;
    case 'string':
      return RANK_STRING;
    case 'boolean':
      return RANK_BOOLEAN;
    case 'object':
      if (value === null) return RANK_NULL;
      if (Array.isArray(value)) return value.length === 0 ? RANK_EMPTY_ARRAY : RANK_ARRAY;
      return RANK_OBJECT;
    default:
      return RANK_NULL;
  }
}

/**
 * Compares strings by code point, which is the UTF-8 byte order MongoDB and LMDB keys use.
 * Plain `<` compares UTF-16 units and disagrees when a surrogate meets a unit above U+E000.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) return surrogateLast(x) - surrogateLast(y);
    return x - y;
  }
  return a.length - b.length;
}

function surrogateLast(unit: number): number {
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

/** Total order over JSON values following the canonical type order. */
export function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case RANK_NUMBER:
      return (a as number) - (b as number);
    case RANK_STRING:
      return compareStrings(a as string, b as string);
    case RANK_BOOLEAN:
      return Number(a) - Number(b);
    case RANK_ARRAY: {
      const x = a as unknown[];
      const y = b as unknown[];
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        const c = compareValues(x[i], y[i]);
        if (c !== 0) return c;
      }
      return x.length - y.length;
    }
    case RANK_OBJECT: {
      const x = Object.entries(a as object);
      const y = Object.entries(b as object);
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        const c = compareStrings(x[i]![0], y[i]![0]) || compareValues(x[i]![1], y[i]![1]);
        if (c !== 0) return c;
      }
      return x.length - y.length;
    }
    default:
      return 0;
  }
}

/**
 * The value a document sorts by on one field: an array sorts by its smallest element when
 * ascending and its largest when descending, like MongoDB.
 */
export function sortKey(value: unknown, direction: 1 | -1): unknown {
  if (!Array.isArray(value) || value.length === 0) return value ?? null;
  let best: unknown = value[0];
  for (let i = 1; i < value.length; i++) {
    const c = compareValues(value[i], best);
    if (direction === 1 ? c < 0 : c > 0) best = value[i];
  }
  return best;
}

/** Builds a comparator for documents under a normalized sort. */
export function docComparator(sort: SortSpec): (a: Doc, b: Doc) => number {
  return (a, b) => {
    for (const [field, direction] of sort) {
      const c = compareValues(sortKey(a[field], direction), sortKey(b[field], direction));
      if (c !== 0) return direction === 1 ? c : -c;
    }
    return 0;
  };
}

/** Equality as MongoDB applies it to one value, with membership for arrays and null for missing. */
function equalsScalar(value: unknown, target: Scalar): boolean {
  if (value === target) return true;
  if (target === null && value === undefined) return true;
  if (Array.isArray(value)) {
    for (const element of value) if (element === target) return true;
  }
  return false;
}

function inSet(value: unknown, targets: readonly Scalar[]): boolean {
  for (const target of targets) if (equalsScalar(value, target)) return true;
  return false;
}

/** Range comparison only between values of the same type bracket, as in MongoDB. */
function rangeHolds(value: unknown, op: string, bound: Scalar): boolean {
  if (Array.isArray(value)) {
    for (const element of value) if (rangeHolds(element, op, bound)) return true;
    return false;
  }
  const v = value === undefined ? null : value;
  const rank = typeRank(v);
  if (rank !== typeRank(bound) || rank === RANK_OBJECT) return false;
  const c = compareValues(v, bound);
  switch (op) {
    case '$gt':
      return c > 0;
    case '$gte':
      return c >= 0;
    case '$lt':
      return c < 0;
    default:
      return c <= 0;
  }
}

function conditionHolds(value: unknown, condition: FieldCondition): boolean {
  if (!isOperatorCondition(condition)) return equalsScalar(value, condition);
  for (const op in condition) {
    const operand = (condition as Record<string, unknown>)[op];
    if (operand === undefined) continue;
    switch (op) {
      case '$eq':
        if (!equalsScalar(value, operand as Scalar)) return false;
        break;
      case '$ne':
        if (equalsScalar(value, operand as Scalar)) return false;
        break;
      case '$in':
        if (!inSet(value, operand as Scalar[])) return false;
        break;
      case '$nin':
        if (inSet(value, operand as Scalar[])) return false;
        break;
      case '$all': {
        const all = operand as Scalar[];
        if (all.length === 0) return false;
        for (const target of all) if (!equalsScalar(value, target)) return false;
        break;
      }
      case '$exists':
        // The port defines $exists as "present and not null", i.e. the negation of `{f: null}`.
        if (equalsScalar(value, null) === operand) return false;
        break;
      default:
        if (!rangeHolds(value, op, operand as Scalar)) return false;
    }
  }
  return true;
}

/** True when the document satisfies every condition of the filter. */
export function matchesFilter(doc: Doc, filter: Filter): boolean {
  for (const field in filter) {
    if (!conditionHolds(doc[field], filter[field]!)) return false;
  }
  return true;
}
