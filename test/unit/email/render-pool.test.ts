/**
 * The render pool for real: a child render host with Piscina workers. Time limits are checked
 * here, not in the test process: a render stopped inside a promise callback must not run where
 * async hooks are on (the test runner's), and never does in the server (renders run only there).
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { RenderPool } from '../../../email/render-pool.js';
import type { RenderOutcome } from '../../../email/sandbox.js';

const pool = new RenderPool({ threads: 2, memoryMb: 64 });
after(() => pool.close());

const data = { name: 'Ann', TEXT: {} };
const render = (ejs: string, tenantId = 't1') => pool.render({ tenantId, ejs, subject: 'S', data });

function failureOf(outcome: RenderOutcome): string {
  assert.equal(outcome.ok, false, JSON.stringify(outcome));
  return (outcome as Extract<RenderOutcome, { ok: false }>).failure;
}

test('renders in the pool', async () => {
  assert.deepEqual(await render('Hi <%= name %>'), { ok: true, html: 'Hi Ann', subject: 'S' });
});

test('the time limit stops endless loops, endless promise chains and async loops alike', async () => {
  const outcomes = await Promise.all([
    render('<% for (;;) {} %>', 'a'),
    render('<% (function next() { Promise.resolve().then(next); })() %>done', 'b'),
    render('<% (async () => { for (;;) await null; })() %>', 'c'),
  ]);
  assert.deepEqual(outcomes.map(failureOf), ['timeout', 'timeout', 'timeout']);
  assert.deepEqual(await render('still <%= name %>'), { ok: true, html: 'still Ann', subject: 'S' });
});

test('memory: growing step by step ends its worker; one huge allocation ends the render host; renders beside it still answer', async () => {
  const [stepwise, huge, beside] = await Promise.all([
    render('<% const a = []; for (;;) a.push(new Array(1e5).fill(a.length)) %>', 'a'),
    render("<%= 'x'.repeat(1e8).split('').length %>", 'b'),
    render('beside <%= name %>', 'c'),
  ]);
  assert.equal(failureOf(huge), 'memory-limit');
  assert.ok(['memory-limit', 'timeout'].includes(failureOf(stepwise)), JSON.stringify(stepwise));
  assert.deepEqual(beside, { ok: true, html: 'beside Ann', subject: 'S' });
  assert.deepEqual(await render('after <%= name %>'), { ok: true, html: 'after Ann', subject: 'S' });
});

test('one tenant has at most four renders in flight', async () => {
  const five = Array.from({ length: 5 }, () => render('<% for (;;) {} %>', 'busy'));
  await assert.rejects(five[4]!, (err: { code?: string }) => err.code === 'rate-limited');
  assert.deepEqual(await render('other tenant', 'calm'), { ok: true, html: 'other tenant', subject: 'S' });
  await Promise.all(five.slice(0, 4));
});
