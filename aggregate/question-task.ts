/**
 * The question-result aggregate and its combination with comments, as an aggregation worker
 * runs them: the task the main thread hands over (plain data), the storage filter it reads, and
 * the accumulator that folds results into the API's `QuestionResultAggregationOverall`. Pure,
 * so the worker and the unit tests share it.
 */
import type { Filter } from '../storage/store.js';

/** Time buckets of `dataByDateBucket`, as the API names them. */
export const TIME_BUCKETS = ['day', 'month', 'year'] as const;
/** One of `TIME_BUCKETS`. */
export type TimeBucket = (typeof TIME_BUCKETS)[number];

/** Which results an aggregate or a combination reads. */
export interface ResultScope {
  readonly tenantId: string;
  /** Only these questions (all of the tenant's when absent). */
  readonly questionIds?: readonly string[];
  /** Questions being deleted, left out when `questionIds` is absent. */
  readonly excludeQuestionIds: readonly string[];
  readonly urlId?: string;
  readonly userId?: string;
  /** ISO date-time, inclusive. */
  readonly startDate?: string;
}

/** The aggregate of `GET /api/v1/question-results-aggregation`. */
export interface QuestionAggregateTask extends ResultScope {
  readonly questionTask: 'aggregate';
  readonly timeBucket?: TimeBucket;
}

/** The combination of `.../combine/comments`: results within [minValue, maxValue] tied to a comment, newest first. */
export interface QuestionCommentsTask extends ResultScope {
  readonly questionTask: 'comments';
  readonly minValue?: number;
  readonly maxValue?: number;
  readonly limit: number;
}

/** A task of a question aggregate, as a worker takes it. */
export type QuestionTask = QuestionAggregateTask | QuestionCommentsTask;

/** The storage filter of a task's results. */
export function resultFilter(scope: ResultScope, extra: Filter = {}): Filter {
  const filter: Record<string, Filter[string]> = { tenantId: scope.tenantId };
  if (scope.questionIds !== undefined) filter['questionId'] = scope.questionIds.length === 1 ? scope.questionIds[0]! : { $in: scope.questionIds };
  else if (scope.excludeQuestionIds.length > 0) filter['questionId'] = { $nin: scope.excludeQuestionIds };
  if (scope.urlId !== undefined) filter['urlId'] = scope.urlId;
  if (scope.userId !== undefined) filter['userId'] = scope.userId;
  if (scope.startDate !== undefined) filter['createdAt'] = { $gte: scope.startDate };
  return { ...filter, ...extra };
}

/** One data point: how often each value occurred, and how many results there were. */
interface Datum {
  v: Record<string, number>;
  total: number;
}

/** A result as the accumulator reads it. */
export interface AggregatedResult {
  readonly value: number;
  readonly urlId: string;
  readonly createdAt: string;
}

const BUCKET_SUFFIX = { day: 'T00:00:00.000Z', month: '-01T00:00:00.000Z', year: '-01-01T00:00:00.000Z' } as const;
const BUCKET_PREFIX = { day: 10, month: 7, year: 4 } as const;

/**
 * The start of `createdAt`'s bucket as an ISO date-time (UTC): stored times are ISO strings,
 * so a bucket is a prefix of the text plus a constant tail, with no date arithmetic per result.
 */
export function bucketOf(createdAt: string, bucket: TimeBucket): string {
  return createdAt.slice(0, BUCKET_PREFIX[bucket]) + BUCKET_SUFFIX[bucket];
}

/**
 * Folds results into an aggregate: counts by value overall, by page, and by time bucket when
 * asked; the total; and the average rounded to two decimals (0 without results).
 */
export class QuestionAccumulator {
  readonly #bucket: TimeBucket | undefined;
  readonly #byValue = new Map<number, number>();
  readonly #byUrlId = new Map<string, Map<number, number>>();
  readonly #byDate = new Map<string, Map<number, number>>();
  #total = 0;
  #sum = 0;

  constructor(bucket: TimeBucket | undefined) {
    this.#bucket = bucket;
  }

  get total(): number {
    return this.#total;
  }

  /** Counts from a tally: `counts` go to the totals, and to the page or the day named, if any. */
  addCounts(counts: Readonly<Record<string, number>>, at: { urlId?: string; day?: string }): void {
    for (const [text, n] of Object.entries(counts)) {
      const value = Number(text);
      this.#total += n;
      this.#sum += value * n;
      this.#byValue.set(value, (this.#byValue.get(value) ?? 0) + n);
      if (at.urlId !== undefined) count(this.#byUrlId, at.urlId, value, n);
      if (at.day !== undefined && this.#bucket !== undefined) count(this.#byDate, bucketOf(`${at.day}T00:00:00.000Z`, this.#bucket), value, n);
    }
  }

  /** Counts from a page's tally into `dataByUrlId` only (the totals come from the day tallies). */
  addPage(urlId: string, counts: Readonly<Record<string, number>>): void {
    for (const [text, n] of Object.entries(counts)) count(this.#byUrlId, urlId, Number(text), n);
  }

  add(result: AggregatedResult): void {
    const value = result.value;
    this.#total++;
    this.#sum += value;
    this.#byValue.set(value, (this.#byValue.get(value) ?? 0) + 1);
    count(this.#byUrlId, result.urlId, value);
    if (this.#bucket !== undefined) count(this.#byDate, bucketOf(result.createdAt, this.#bucket), value);
  }

  /** The API's `QuestionResultAggregationOverall`; `createdAt` is when it was computed. */
  result(createdAt: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (this.#bucket !== undefined) out['dataByDateBucket'] = data(this.#byDate);
    out['dataByUrlId'] = data(this.#byUrlId);
    out['countsByValue'] = Object.fromEntries([...this.#byValue].sort(([a], [b]) => a - b).map(([v, n]) => [String(v), n]));
    out['total'] = this.#total;
    out['average'] = this.#total === 0 ? 0 : Math.round((this.#sum / this.#total) * 100) / 100;
    out['createdAt'] = createdAt;
    return out;
  }
}

function count(groups: Map<string, Map<number, number>>, key: string, value: number, n = 1): void {
  let values = groups.get(key);
  if (values === undefined) groups.set(key, (values = new Map()));
  values.set(value, (values.get(value) ?? 0) + n);
}

/**
 * Whether tallies answer the task: they count by question, day and page, so they cannot filter
 * by user or by a start time, nor bucket one page's results by time.
 */
export function talliesAnswer(task: QuestionAggregateTask): boolean {
  return task.userId === undefined && task.startDate === undefined && (task.urlId === undefined || task.timeBucket === undefined);
}

function data(groups: Map<string, Map<number, number>>): Record<string, Datum> {
  // Keys are callers' urlIds: `__proto__` must stay a key, not set a prototype.
  const out = Object.create(null) as Record<string, Datum>;
  for (const key of [...groups.keys()].sort()) {
    const values = groups.get(key)!;
    let total = 0;
    const v: Record<string, number> = {};
    for (const [value, n] of [...values].sort(([a], [b]) => a - b)) {
      v[String(value)] = n;
      total += n;
    }
    out[key] = { v, total };
  }
  return out;
}
