import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TokenBuckets } from '../../../http/rate-limit.js';

test('a bucket grants its burst, then its rate; a refusal says how long to wait', () => {
  const buckets = new TokenBuckets({ perSecond: 2, burst: 3 });
  const t0 = 1_000_000;
  assert.deepEqual([buckets.take('a', t0), buckets.take('a', t0), buckets.take('a', t0)], [0, 0, 0]);
  assert.equal(buckets.take('a', t0), 1);
  assert.equal(buckets.take('b', t0), 0, 'clients are apart');
  assert.equal(buckets.take('a', t0 + 500), 0, 'half a second refills one token at 2/s');
  assert.equal(buckets.take('a', t0 + 500), 1);
});

test('a refused attempt costs nothing, and a clock that steps back neither refills nor drains', () => {
  const buckets = new TokenBuckets({ perSecond: 1, burst: 1 });
  assert.equal(buckets.take('a', 10_000), 0);
  for (let i = 0; i < 5; i++) assert.ok(buckets.take('a', 10_000) > 0);
  assert.equal(buckets.take('a', 11_000), 0, 'one second later a token is back, whatever was refused');
  assert.ok(buckets.take('a', 5_000) > 0);
  assert.equal(buckets.take('a', 12_000), 0);
});

test('memory is bounded: the least recently used clients are forgotten', () => {
  const buckets = new TokenBuckets({ perSecond: 0.001, burst: 1 }, 100);
  for (let i = 0; i < 1000; i++) buckets.take(`c${i}`, 0);
  // c0 was forgotten: it starts again with a full bucket.
  assert.equal(buckets.take('c0', 0), 0);
  assert.ok(buckets.take('c999', 0) > 0, 'a recent client is still counted');
});
