/**
 * What the main thread hands an aggregation worker, and what it gets back: plain data that
 * crosses the thread boundary by structured clone. The main thread validates the request against
 * the resource table and compiles it into a plan; the worker needs nothing else to run it.
 */
import type { Filter } from '../storage/store.js';
import type { QuestionTask } from './question-task.js';

/** Operations, as the API names them. */
export const AGGREGATION_OPS = ['sum', 'countDistinct', 'distinct', 'avg', 'min', 'max', 'count'] as const;
export type AggregationOp = (typeof AGGREGATION_OPS)[number];

/** Query operators, as the API names them. */
export const QUERY_OPERATORS = ['eq', 'not_eq', 'greater_than', 'less_than', 'contains'] as const;
export type QueryOperator = (typeof QUERY_OPERATORS)[number];

/** Value types of aggregatable fields. Dates are stored as ISO strings and answered as epoch ms. */
export const FIELD_TYPES = { string: 'string', number: 'number', boolean: 'boolean', date: 'date' } as const;
export type FieldType = (typeof FIELD_TYPES)[keyof typeof FIELD_TYPES];

/** Where a field's value is read in a stored document, and how it is typed. */
export interface FieldRef {
  /** Property names from the document down to the value. */
  readonly path: readonly string[];
  readonly type: FieldType;
  /** The stored value is an array of values of `type` (or of objects holding them, along `path`). */
  readonly array: boolean;
}

/** One operation to compute per group. */
export interface PlannedOperation {
  readonly alias: string;
  readonly op: AggregationOp;
  readonly field: FieldRef;
  /** Apply the operation to each element of an array value. */
  readonly expand: boolean;
}

/** A condition the worker checks on each document (those storage cannot check for it). */
export interface PlannedCheck {
  readonly field: FieldRef;
  readonly operator: QueryOperator;
  /** Already in stored form (dates as ISO strings). */
  readonly value: string | number | boolean;
}

/** One grouping key: its name in `groups`, and where its value is read. */
export interface PlannedGroup {
  readonly name: string;
  readonly field: FieldRef;
}

/** Aggregating the resources of a parent's child tenants instead of the caller's own. */
export interface ParentScope {
  readonly parentTenantId: string;
  /** The caller: the parent itself, or the tenant that manages the parent. */
  readonly callerTenantId: string;
  /** The collection of tenants, whose `managedByTenantId` names the parent. */
  readonly tenantsCollection: string;
  /** The field of the resource's collection that holds the owning tenant. */
  readonly tenantField: string;
}

/** Everything a worker needs to run one aggregation. */
export interface AggregationPlan {
  readonly collection: string;
  /** Read from storage: the tenant scope, the resource's own condition, and the pushed-down query. */
  readonly filter: Filter;
  readonly parent?: ParentScope;
  readonly checks: readonly PlannedCheck[];
  readonly groupBy: readonly PlannedGroup[];
  readonly operations: readonly PlannedOperation[];
  readonly sort?: { readonly key: string; readonly dir: 'asc' | 'desc' };
  /** Documents per storage batch. */
  readonly batchSize: number;
  /**
   * The top-level stored fields the operations, groups and checks read: storage hands out only
   * these (and `_id`), so memory goes to the aggregation's own state, not to the documents.
   */
  readonly fields: readonly string[];
}

/** A refusal decided in the worker, with an error code of the catalog. */
export interface WorkerRefusal {
  readonly refused: { readonly code: string; readonly reason?: string };
}

/** A finished run: the `data` array as JSON bytes (transferred, not copied), and what it cost. */
export interface WorkerAnswer {
  readonly data: Uint8Array;
  readonly scanned: number;
  readonly timeMs: number;
}

export type WorkerResult = WorkerAnswer | WorkerRefusal;

/** What a worker runs: an aggregation plan, or a question-result aggregate (`question-task.ts`). */
export type WorkerTask = AggregationPlan | QuestionTask;
