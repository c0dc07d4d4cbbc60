/**
 * The computation itself, run in a worker over batches of documents: the worker's checks, the
 * group state (the only thing kept between batches), and the answer items. Documents are dropped
 * as soon as they are counted. Semantics:
 * - a missing or null value counts for no operation (`count` counts values, not documents);
 * - with `expandArray`, each element of an array counts as one value;
 * - dates are answered as epoch milliseconds (numbers, or their decimal text as map keys);
 * - a group whose value is missing or null for a `groupBy` field leaves that name out of `groups`.
 */
import type { Doc } from '../storage/store.js';
import { compareStrings, compareValues, matchesFilter } from '../storage/query.js';
import type { AggregationPlan, FieldRef, PlannedCheck, PlannedOperation } from './plan.js';

/** One answer value (`AggregationValue` in the API). */
export type AggregationValue =
  | { numericValue?: number; stringValue?: string }
  | { distinctCount: number }
  | { distinctCounts: Record<string, number> };

/** One answer item: `groups` and one value per alias. */
export type AggregationItem = Record<string, unknown>;

type Read = (doc: Doc) => unknown;

/** Reads a field along its path; a path through arrays collects from every element. */
function reader(field: FieldRef): Read {
  const path = field.path;
  if (path.length === 1) {
    const name = path[0]!;
    return (doc) => doc[name];
  }
  return (doc) => {
    let value: unknown = doc;
    for (const name of path) {
      if (Array.isArray(value)) value = value.flatMap((element) => (isRecord(element) && element[name] !== undefined ? [element[name]] : []));
      else value = isRecord(value) ? value[name] : undefined;
      if (value === undefined || value === null) return undefined;
    }
    return value;
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A stored value as a number where the field answers numbers: dates become epoch ms. */
function numeric(field: FieldRef, value: unknown): number | undefined {
  if (field.type === 'date') {
    const ms = typeof value === 'string' ? Date.parse(value) : NaN;
    return Number.isFinite(ms) ? ms : undefined;
  }
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The text a value is keyed by in `distinctCounts` and `groups`. */
function keyOf(field: FieldRef, value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return field.type === 'date' ? String(numeric(field, value) ?? value) : value;
    case 'number':
    case 'boolean':
      return String(value);
    default:
      return undefined;
  }
}

interface Accumulator {
  add(value: unknown): void;
  result(): AggregationValue;
  /** What the answer sorts by. */
  sortValue(): number | string | undefined;
}

class Count implements Accumulator {
  n = 0;
  add(): void {
    this.n++;
  }
  result(): AggregationValue {
    return { numericValue: this.n };
  }
  sortValue(): number {
    return this.n;
  }
}

class Sum implements Accumulator {
  total = 0;
  n = 0;
  constructor(readonly field: FieldRef, readonly mean: boolean) {}
  add(value: unknown): void {
    if (typeof value !== 'number' || !Number.isFinite(value)) return;
    this.total += value;
    this.n++;
  }
  result(): AggregationValue {
    const value = this.sortValue();
    return value === undefined ? {} : { numericValue: value };
  }
  sortValue(): number | undefined {
    if (!this.mean) return this.total;
    return this.n === 0 ? undefined : this.total / this.n;
  }
}

class Extreme implements Accumulator {
  best: number | string | undefined;
  constructor(readonly field: FieldRef, readonly sign: 1 | -1) {}
  add(value: unknown): void {
    const candidate = this.field.type === 'string' ? (typeof value === 'string' ? value : undefined) : numeric(this.field, value);
    if (candidate === undefined) return;
    if (this.best === undefined || compareValues(candidate, this.best) * this.sign < 0) this.best = candidate;
  }
  result(): AggregationValue {
    if (this.best === undefined) return {};
    return typeof this.best === 'string' ? { stringValue: this.best } : { numericValue: this.best };
  }
  sortValue(): number | string | undefined {
    return this.best;
  }
}

class Distinct implements Accumulator {
  readonly counts = new Map<string, number>();
  constructor(readonly field: FieldRef) {}
  add(value: unknown): void {
    const key = keyOf(this.field, value);
    if (key !== undefined) this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }
  result(): AggregationValue {
    return { distinctCounts: Object.fromEntries(this.counts) };
  }
  sortValue(): undefined {
    return undefined;
  }
}

class CountDistinct implements Accumulator {
  readonly seen = new Set<string>();
  constructor(readonly field: FieldRef) {}
  add(value: unknown): void {
    const key = keyOf(this.field, value);
    if (key !== undefined) this.seen.add(key);
  }
  result(): AggregationValue {
    return { distinctCount: this.seen.size };
  }
  sortValue(): number {
    return this.seen.size;
  }
}

function accumulator(operation: PlannedOperation): Accumulator {
  const field = operation.field;
  switch (operation.op) {
    case 'count':
      return new Count();
    case 'sum':
      return new Sum(field, false);
    case 'avg':
      return new Sum(field, true);
    case 'min':
      return new Extreme(field, 1);
    case 'max':
      return new Extreme(field, -1);
    case 'distinct':
      return new Distinct(field);
    case 'countDistinct':
      return new CountDistinct(field);
  }
}

const MONGO_OPERATOR = { eq: '$eq', not_eq: '$ne', greater_than: '$gt', less_than: '$lt' } as const;

/** A worker-side check, with storage's own semantics for everything but `contains`. */
function checker(check: PlannedCheck): (doc: Doc) => boolean {
  const read = reader(check.field);
  if (check.operator === 'contains') {
    const text = check.value as string;
    const holds = (v: unknown) => typeof v === 'string' && v.includes(text);
    return (doc) => {
      const value = read(doc);
      return Array.isArray(value) ? value.some(holds) : holds(value);
    };
  }
  const condition = { v: { [MONGO_OPERATOR[check.operator]]: check.value } };
  return (doc) => matchesFilter({ _id: '', v: read(doc) }, condition);
}

interface Group {
  /** Group values as read, for sorting. */
  readonly raw: readonly unknown[];
  readonly accumulators: Accumulator[];
}

/** One aggregation's state: feed it batches, then ask for the answer items. */
export class Aggregation {
  scanned = 0;
  readonly #plan: AggregationPlan;
  readonly #checks: ReadonlyArray<(doc: Doc) => boolean>;
  readonly #groupReads: readonly Read[];
  readonly #opReads: readonly Read[];
  readonly #groups = new Map<string, Group>();

  constructor(plan: AggregationPlan) {
    this.#plan = plan;
    this.#checks = plan.checks.map(checker);
    this.#groupReads = plan.groupBy.map((g) => reader(g.field));
    this.#opReads = plan.operations.map((o) => reader(o.field));
    if (plan.groupBy.length === 0) this.#group('', []);
  }

  #group(key: string, raw: readonly unknown[]): Group {
    let group = this.#groups.get(key);
    if (!group) {
      group = { raw, accumulators: this.#plan.operations.map(accumulator) };
      this.#groups.set(key, group);
    }
    return group;
  }

  /** Counts one batch of documents (already matching the storage filter). */
  add(batch: readonly Doc[]): void {
    this.scanned += batch.length;
    const operations = this.#plan.operations;
    const groupBy = this.#plan.groupBy;
    next: for (const doc of batch) {
      for (const check of this.#checks) if (!check(doc)) continue next;
      let group: Group;
      if (groupBy.length === 0) group = this.#groups.get('')!;
      else if (groupBy.length === 1) {
        const value = this.#groupReads[0]!(doc);
        const key = keyOf(groupBy[0]!.field, value) ?? '\u0000';
        group = this.#groups.get(key) ?? this.#group(key, [value]);
      } else {
        const raw = this.#groupReads.map((read) => read(doc));
        const key = raw.map((v, i) => keyOf(groupBy[i]!.field, v) ?? '\u0000').join('\u0001');
        group = this.#group(key, raw);
      }
      for (let i = 0; i < operations.length; i++) {
        const value = this.#opReads[i]!(doc);
        if (value === undefined || value === null) continue;
        const accumulator = group.accumulators[i]!;
        if (operations[i]!.expand && Array.isArray(value)) {
          for (const element of value) if (element !== undefined && element !== null) accumulator.add(element);
        } else accumulator.add(value);
      }
    }
  }

  /** The answer's `data`: one item per group, sorted as asked. */
  items(): AggregationItem[] {
    const { groupBy, operations, sort } = this.#plan;
    let groups = [...this.#groups.values()];
    if (sort) {
      const at = groupBy.findIndex((g) => g.name === sort.key);
      const op = operations.findIndex((o) => o.alias === sort.key);
      const value = (g: Group): unknown => {
        if (op >= 0) return g.accumulators[op]!.sortValue();
        const v = g.raw[at];
        return groupBy[at]!.field.type === 'date' ? numeric(groupBy[at]!.field, v) : v;
      };
      const sign = sort.dir === 'asc' ? 1 : -1;
      groups = groups
        .map((g) => ({ g, v: value(g) }))
        .sort((a, b) => {
          // Groups without a value come last either way.
          const missingA = a.v === undefined || a.v === null;
          const missingB = b.v === undefined || b.v === null;
          if (missingA || missingB) return Number(missingA) - Number(missingB);
          const c = typeof a.v === 'string' && typeof b.v === 'string' ? compareStrings(a.v, b.v) : compareValues(a.v, b.v);
          return c * sign;
        })
        .map(({ g }) => g);
    }
    return groups.map((group) => {
      const item: AggregationItem = {};
      if (groupBy.length > 0) {
        const values: Record<string, string> = {};
        groupBy.forEach((g, i) => {
          const key = keyOf(g.field, group.raw[i]);
          if (key !== undefined) values[g.name] = key;
        });
        item['groups'] = values;
      }
      operations.forEach((o, i) => {
        item[o.alias] = group.accumulators[i]!.result();
      });
      return item;
    });
  }
}
