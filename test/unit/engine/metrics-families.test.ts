import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { CountFamily, OVERFLOW, TimingFamily } from '../../../engine/metrics/families.js';

async function text(...families: (CountFamily | TimingFamily)[]): Promise<string> {
  const registry = new Registry();
  for (const family of families) registry.registerMetric(family as unknown as Parameters<Registry['registerMetric']>[0]);
  return registry.metrics();
}

test('a family holds at most maxChildren label sets; the rest share one `other` child', async () => {
  const family = new CountFamily('counter', 'test_refusals_total', 'Refusals.', ['code'], 10);
  for (let n = 0; n < 500; n++) family.child(`code-${n}`).n++;
  assert.equal(family.size, 11);
  assert.equal(family.child('code-3').n, 1, 'children made before the bound keep their own counts');
  assert.equal(family.child('never-seen').n, 490, 'the rest are folded together');
  const out = await text(family);
  assert.match(out, new RegExp(`test_refusals_total\\{code="${OVERFLOW}"\\} 490`));
  assert.doesNotMatch(out, /code-499/);
});

test('counters never counted are left out; gauges show zero', async () => {
  const counter = new CountFamily('counter', 'test_counter_total', 'A counter.', ['route']);
  counter.child('/a');
  counter.child('/b').n += 2;
  const gauge = new CountFamily('gauge', 'test_gauge', 'A gauge.');
  gauge.child();
  const out = await text(counter, gauge);
  assert.doesNotMatch(out, /route="\/a"/);
  assert.match(out, /test_counter_total\{route="\/b"\} 2/);
  assert.match(out, /^test_gauge 0$/m);
});

test('a histogram publishes cumulative buckets, +Inf, sum and count', async () => {
  const family = new TimingFamily('test_seconds', 'Times.', [0.1, 1], ['kind']);
  const child = family.child('page');
  for (const v of [0.05, 0.1, 0.5, 2]) child.observe(v);
  family.child('unused');
  const out = await text(family);
  assert.match(out, /# TYPE test_seconds histogram/);
  assert.match(out, /test_seconds_bucket\{kind="page",le="0\.1"\} 2/);
  assert.match(out, /test_seconds_bucket\{kind="page",le="1"\} 3/);
  assert.match(out, /test_seconds_bucket\{kind="page",le="\+Inf"\} 4/);
  assert.match(out, /test_seconds_sum\{kind="page"\} 2\.65/);
  assert.match(out, /test_seconds_count\{kind="page"\} 4/);
  assert.doesNotMatch(out, /unused/, 'a histogram never observed is left out');
});
