import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cacheTtlMs } from '../../../aggregate/question-cache.js';
import { bucketOf, QuestionAccumulator, resultFilter } from '../../../aggregate/question-task.js';

test('a time bucket is the start of the day, month or year of the stored time, in UTC', () => {
  const at = '2024-02-29T23:59:59.999Z';
  assert.equal(bucketOf(at, 'day'), '2024-02-29T00:00:00.000Z');
  assert.equal(bucketOf(at, 'month'), '2024-02-01T00:00:00.000Z');
  assert.equal(bucketOf(at, 'year'), '2024-01-01T00:00:00.000Z');
  for (const bucket of ['day', 'month', 'year'] as const) assert.ok(!Number.isNaN(Date.parse(bucketOf(at, bucket))));
});

test('the accumulator counts by value, page and bucket, with the total and the average rounded to two decimals', () => {
  const acc = new QuestionAccumulator('month');
  const rows = [
    { value: 1, urlId: '/a', createdAt: '2024-01-05T10:00:00.000Z' },
    { value: 2, urlId: '/a', createdAt: '2024-01-20T10:00:00.000Z' },
    { value: 2, urlId: '__proto__', createdAt: '2024-02-01T00:00:00.000Z' },
  ];
  for (const row of rows) acc.add(row);
  const out = JSON.parse(JSON.stringify(acc.result('2024-03-01T00:00:00.000Z'))) as Record<string, unknown>;
  assert.deepEqual(out, {
    dataByDateBucket: { '2024-01-01T00:00:00.000Z': { v: { 1: 1, 2: 1 }, total: 2 }, '2024-02-01T00:00:00.000Z': { v: { 2: 1 }, total: 1 } },
    dataByUrlId: { '/a': { v: { 1: 1, 2: 1 }, total: 2 }, ['__proto__']: { v: { 2: 1 }, total: 1 } },
    countsByValue: { 1: 1, 2: 2 },
    total: 3,
    average: 1.67,
    createdAt: '2024-03-01T00:00:00.000Z',
  });
  const empty = new QuestionAccumulator(undefined).result('x');
  assert.deepEqual([empty['total'], empty['average'], 'dataByDateBucket' in empty], [0, 0, false]);
});

test('the results read: one or many questions, or all but those being deleted; the filters as given', () => {
  assert.deepEqual(resultFilter({ tenantId: 't', questionIds: ['q'], excludeQuestionIds: [] }), { tenantId: 't', questionId: 'q' });
  assert.deepEqual(resultFilter({ tenantId: 't', questionIds: ['a', 'b'], excludeQuestionIds: [] }), { tenantId: 't', questionId: { $in: ['a', 'b'] } });
  assert.deepEqual(resultFilter({ tenantId: 't', excludeQuestionIds: ['gone'], urlId: '/p', userId: 'u', startDate: '2024-01-01T00:00:00.000Z' }), {
    tenantId: 't',
    questionId: { $nin: ['gone'] },
    urlId: '/p',
    userId: 'u',
    createdAt: { $gte: '2024-01-01T00:00:00.000Z' },
  });
});

test('a cache entry lives 30 seconds, longer the more results it covers, at most 5 minutes', () => {
  assert.equal(cacheTtlMs(0), 30_000);
  assert.ok(cacheTtlMs(100_000) > 30_000 && cacheTtlMs(100_000) < 300_000);
  assert.ok(cacheTtlMs(500_000) > cacheTtlMs(100_000));
  assert.equal(cacheTtlMs(1_000_000), 300_000);
  assert.equal(cacheTtlMs(50_000_000), 300_000);
});
