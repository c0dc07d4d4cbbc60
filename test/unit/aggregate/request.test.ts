import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileAggregation } from '../../../aggregate/request.js';
import { AGGREGATABLE, AGGREGATABLE_NAMES, NOT_STORED_NAMES, SPEC_RESOURCE_NAMES } from '../../../aggregate/resources.js';
import { COLLECTIONS } from '../../../storage/collections.js';
import { ApiError } from '../../../engine/errors.js';

const count = { field: 'id', op: 'count' } as const;

test('conditions storage can evaluate are pushed into its filter, merged per field; the rest are left to the worker', () => {
  const plan = compileAggregation(
    {
      resourceName: 'Comment',
      operations: [count],
      query: [
        { key: 'date', value: Date.UTC(2024, 0, 2), operator: 'greater_than' },
        { key: 'date', value: '2024-01-05T00:00:00Z', operator: 'less_than' },
        { key: 'approved', value: true, operator: 'eq' },
        { key: 'approved', value: false, operator: 'eq' },
        { key: 'commenterName', value: 'an', operator: 'contains' },
        { key: 'hashTags.tag', value: 'x', operator: 'eq' },
        { key: 'tenantId', value: 'other', operator: 'eq' },
      ],
    },
    { tenantId: 't1' },
  );
  assert.deepEqual(plan.filter, {
    tenantId: 't1',
    date: { $gt: '2024-01-02T00:00:00.000Z', $lt: '2024-01-05T00:00:00.000Z' },
    approved: { $eq: true },
  });
  assert.deepEqual(
    plan.checks.map((c) => [c.field.path.join('.'), c.operator, c.value]),
    [['approved', 'eq', false], ['commenterName', 'contains', 'an'], ['hashTags.tag', 'eq', 'x'], ['tenantId', 'eq', 'other']],
  );
  assert.equal(plan.parent, undefined);
});

test("a resource's own condition stays, and a parent scope leaves the tenant field to the worker", () => {
  const plan = compileAggregation({ resourceName: 'PendingVote', operations: [count], query: [{ key: 'urlId', value: 'a', operator: 'eq' }] }, { tenantId: 't1', parentTenantId: 'p' });
  assert.deepEqual(plan.filter, { kind: 'pending', urlId: { $eq: 'a' } });
  assert.deepEqual(plan.parent, { parentTenantId: 'p', callerTenantId: 't1', tenantsCollection: 'tenants', tenantField: 'tenantId' });
});

test('default aliases, and refusals that name the problem', () => {
  const plan = compileAggregation({ resourceName: 'Page', operations: [{ field: 'commentCount', op: 'avg' }, count] }, { tenantId: 't' });
  assert.deepEqual(plan.operations.map((o) => o.alias), ['commentCount_avg', 'id_count']);
  assert.throws(
    () => compileAggregation({ resourceName: 'Nope', operations: [count] }, { tenantId: 't' }),
    (e: unknown) => e instanceof ApiError && e.code === 'aggregation-unknown-resource' && e.extra?.['validResourceNames'] === AGGREGATABLE_NAMES,
  );
  assert.throws(
    () => compileAggregation({ resourceName: 'SpamEvent', operations: [count] }, { tenantId: 't' }),
    (e: unknown) => e instanceof ApiError && e.code === 'aggregation-resource-not-stored' && e.status === 404 && /does not store/.test(e.message),
  );
  assert.throws(
    () => compileAggregation({ resourceName: 'Page', operations: [{ field: 'votes', op: 'sum' }] }, { tenantId: 't' }),
    (e: unknown) => e instanceof ApiError && e.code === 'aggregation-unknown-field' && /Page has no field "votes"/.test(e.message),
  );
});

test('every resource lives in a collection the server declares, on fields its tenant scope can use', () => {
  const declared = new Set(COLLECTIONS.map((c) => c.name));
  const specNames = new Set<string>(SPEC_RESOURCE_NAMES);
  for (const [name, resource] of Object.entries(AGGREGATABLE)) {
    assert.ok(declared.has(resource.collection), `${name}: ${resource.collection}`);
    assert.ok(name === 'Poll' || name === 'PollVote' || specNames.has(name), `${name} is a specification name`);
    assert.ok(Object.values(resource.fields).some((f) => f.path[0] === resource.tenantField), `${name} exposes its tenant field`);
  }
});

test('a plan reads only the top-level fields its operations, groups and worker checks name', () => {
  const plan = compileAggregation(
    {
      resourceName: 'Comment',
      groupBy: ['urlId'],
      operations: [count, { field: 'hashTags.tag', op: 'distinct', expandArray: true }, { field: 'votes', op: 'sum' }],
      query: [{ key: 'approved', value: true, operator: 'eq' }, { key: 'commenterName', value: 'a', operator: 'contains' }],
    },
    { tenantId: 't' },
  );
  // `approved` is evaluated by storage, so the worker never reads it; `id` is `_id`, always handed out.
  assert.deepEqual(plan.fields, ['_id', 'commenterName', 'hashTags', 'urlId', 'votes']);
});

test('every name of the specification is either aggregatable or known not to be stored', () => {
  for (const name of SPEC_RESOURCE_NAMES) assert.ok(Object.hasOwn(AGGREGATABLE, name) !== NOT_STORED_NAMES.includes(name), name);
});
