/**
 * Turns an aggregation request into a plan for a worker, on the main thread and before any
 * queueing: every name is checked against the resource's fields, every value against the field's
 * type, and every refusal names what is wrong. Conditions storage can evaluate (equality and
 * ranges on top-level fields) are pushed into the storage filter so that fewer documents are
 * read; the rest are left for the worker.
 */
import { ApiError } from '../engine/errors.js';
import type { FieldCondition, Filter, Scalar } from '../storage/store.js';
import { AGGREGATABLE, AGGREGATABLE_NAMES, NOT_STORED_NAMES, type ResourceSpec } from './resources.js';
import type {
  AggregationOp,
  AggregationPlan,
  FieldRef,
  PlannedCheck,
  PlannedGroup,
  PlannedOperation,
  QueryOperator,
} from './plan.js';

/** The request body, as the route's schema admits it. */
export interface AggregationRequest {
  readonly resourceName: string;
  readonly operations: ReadonlyArray<{ readonly field: string; readonly op: AggregationOp; readonly alias?: string; readonly expandArray?: boolean }>;
  readonly query?: ReadonlyArray<{ readonly key: string; readonly value: string | number | boolean; readonly operator: QueryOperator }>;
  readonly groupBy?: readonly string[];
  readonly sort?: { readonly dir: 'asc' | 'desc'; readonly field: string };
}

/** Who asks, and over which tenants. */
export interface AggregationScope {
  readonly tenantId: string;
  readonly parentTenantId?: string | undefined;
}

/** Documents read from storage per batch. */
export const SCAN_BATCH = 1000;

/** The key under which group values are answered; no alias may take it. */
const GROUPS_KEY = 'groups';
const RANGE_OPERATOR = { greater_than: '$gt', less_than: '$lt' } as const;
const PUSHED_OPERATOR = { eq: '$eq', not_eq: '$ne', ...RANGE_OPERATOR } as const;

function invalid(reason: string): ApiError {
  return new ApiError('aggregation-invalid-operation', reason);
}

function fieldOf(resource: ResourceSpec, resourceName: string, name: string, role: string): FieldRef {
  const field = Object.hasOwn(resource.fields, name) ? resource.fields[name] : undefined;
  if (field) return field;
  const known = Object.keys(resource.fields).sort().join(', ');
  throw new ApiError('aggregation-unknown-field', `${resourceName} has no field "${name}" (${role}). Its fields: ${known}.`);
}

function checkOperation(name: string, op: AggregationOp, field: FieldRef, expand: boolean): void {
  if (expand && !field.array) throw invalid(`expandArray is only for array fields; "${name}" holds one value.`);
  if (field.array && !expand && op !== 'count') throw invalid(`"${name}" is an array: set expandArray to ${op} its elements.`);
  if ((op === 'sum' || op === 'avg') && field.type !== 'number') throw invalid(`${op} needs a number field; "${name}" is a ${field.type}.`);
  if ((op === 'min' || op === 'max') && field.type === 'boolean') throw invalid(`${op} needs a number, date or string field; "${name}" is a boolean.`);
}

/** A query value in stored form, or a refusal naming the mismatch. */
function storedValue(name: string, field: FieldRef, operator: QueryOperator, value: string | number | boolean): string | number | boolean {
  if (operator === 'contains') {
    if (field.type !== 'string' || typeof value !== 'string') throw invalid(`contains needs a string field and a string value ("${name}").`);
    return value;
  }
  if (field.type === 'date') {
    const ms = typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : NaN;
    if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) throw invalid(`"${name}" is a date: give epoch milliseconds or an ISO date-time.`);
    return new Date(ms).toISOString();
  }
  if (typeof value !== field.type) throw invalid(`The query value of "${name}" must be a ${field.type}.`);
  if (operator in RANGE_OPERATOR && field.type === 'boolean') throw invalid(`${operator} does not apply to the boolean "${name}".`);
  return value;
}

/** Adds `op: value` to the storage filter unless the field already has a condition there for that operator. */
function pushDown(filter: Record<string, FieldCondition>, pushed: Set<string>, key: string, op: string, value: Scalar): boolean {
  const current = filter[key];
  if (current === undefined) {
    filter[key] = { [op]: value };
    pushed.add(key);
    return true;
  }
  if (!pushed.has(key) || typeof current !== 'object' || current === null || op in current) return false;
  filter[key] = { ...current, [op]: value };
  return true;
}

/** Validates the request and compiles it into a plan, or throws an ApiError naming the problem. */
export function compileAggregation(request: AggregationRequest, scope: AggregationScope): AggregationPlan {
  const resourceName = request.resourceName;
  const resource = Object.hasOwn(AGGREGATABLE, resourceName) ? AGGREGATABLE[resourceName] : undefined;
  if (!resource && NOT_STORED_NAMES.includes(resourceName)) {
    throw new ApiError(
      'aggregation-resource-not-stored',
      `"${resourceName}" is a resource of the API that this server does not store, so there is nothing to aggregate. Valid resource names: ${AGGREGATABLE_NAMES.join(', ')}.`,
      { validResourceNames: AGGREGATABLE_NAMES },
    );
  }
  if (!resource) {
    throw new ApiError('aggregation-unknown-resource', `"${resourceName}" cannot be aggregated. Valid resource names: ${AGGREGATABLE_NAMES.join(', ')}.`, {
      validResourceNames: AGGREGATABLE_NAMES,
    });
  }

  const groupBy: PlannedGroup[] = [];
  for (const name of request.groupBy ?? []) {
    const field = fieldOf(resource, resourceName, name, 'groupBy');
    if (field.array) throw invalid(`"${name}" is an array and cannot be grouped by.`);
    if (groupBy.some((g) => g.name === name)) throw invalid(`"${name}" appears twice in groupBy.`);
    groupBy.push({ name, field });
  }

  const operations: PlannedOperation[] = [];
  for (const { field: name, op, alias, expandArray } of request.operations) {
    const field = fieldOf(resource, resourceName, name, `operation ${op}`);
    const expand = expandArray === true;
    checkOperation(name, op, field, expand);
    const key = alias ?? `${name}_${op}`;
    if (key === GROUPS_KEY) throw invalid(`"${GROUPS_KEY}" is reserved for the group values; choose another alias.`);
    if (operations.some((o) => o.alias === key)) throw invalid(`Two operations answer under "${key}"; give each its own alias.`);
    operations.push({ alias: key, op, field, expand });
  }

  const filter: Record<string, FieldCondition> = { ...resource.where };
  if (scope.parentTenantId === undefined) filter[resource.tenantField] = scope.tenantId;
  const pushed = new Set<string>();
  const checks: PlannedCheck[] = [];
  for (const { key: name, value, operator } of request.query ?? []) {
    const field = fieldOf(resource, resourceName, name, 'query');
    const stored = storedValue(name, field, operator, value);
    // The tenant field stays the scope's alone (a parent's children are set by the worker).
    const top = field.path.length === 1 && field.path[0] !== resource.tenantField ? field.path[0]! : undefined;
    const done = top !== undefined && operator !== 'contains' && pushDown(filter, pushed, top, PUSHED_OPERATOR[operator], stored);
    if (!done) checks.push({ field, operator, value: stored });
  }

  let sort: AggregationPlan['sort'];
  if (request.sort) {
    const { field: key, dir } = request.sort;
    const operation = operations.find((o) => o.alias === key);
    if (operation?.op === 'distinct') throw invalid(`"${key}" answers a map of counts and cannot be sorted on.`);
    if (!operation && !groupBy.some((g) => g.name === key)) throw invalid(`sort.field "${key}" is neither an operation's alias nor a groupBy field.`);
    sort = { key, dir };
  }

  const read = [...groupBy.map((g) => g.field), ...operations.map((o) => o.field), ...checks.map((c) => c.field)];
  const plan: AggregationPlan = {
    collection: resource.collection,
    filter: filter as Filter,
    checks,
    groupBy,
    operations,
    batchSize: SCAN_BATCH,
    fields: [...new Set(read.map((field) => field.path[0]!))].sort(),
    ...(sort ? { sort } : {}),
  };
  if (scope.parentTenantId === undefined) return plan;
  return {
    ...plan,
    parent: {
      parentTenantId: scope.parentTenantId,
      callerTenantId: scope.tenantId,
      tenantsCollection: AGGREGATABLE['Tenant']!.collection,
      tenantField: resource.tenantField,
    },
  };
}
