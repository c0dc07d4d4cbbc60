import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SlidingWindowLimit } from '../../../engine/sliding-window.js';

describe('sliding window limit', () => {
  test('allows max hits per key inside the window, then again as old hits leave it', () => {
    const limit = new SlidingWindowLimit(3, 1000);
    for (const at of [0, 100, 200]) {
      assert.equal(limit.allows('ip', at), true);
      limit.record('ip', at);
    }
    assert.equal(limit.allows('ip', 999), false);
    assert.equal(limit.allows('other', 999), true, 'keys are counted apart');
    assert.equal(limit.allows('ip', 1000), true, 'the first hit left the window');
    limit.record('ip', 1000);
    assert.equal(limit.allows('ip', 1099), false);
    assert.equal(limit.allows('ip', 1200), true);
  });

  test('a refused attempt is not counted, so waiting always helps', () => {
    const limit = new SlidingWindowLimit(1, 1000);
    limit.record('ip', 0);
    for (let at = 1; at < 1000; at += 100) assert.equal(limit.allows('ip', at), false);
    assert.equal(limit.allows('ip', 1000), true);
  });

  test('stale keys are swept once many are tracked', () => {
    const limit = new SlidingWindowLimit(5, 1000);
    for (let i = 0; i < 4096; i++) limit.record(`old-${i}`, 0);
    assert.equal(limit.size, 4096);
    limit.record('new', 5000);
    assert.equal(limit.size, 1);
  });

  test('while every key is live, sweeps wait until the map has doubled', () => {
    const limit = new SlidingWindowLimit(5, 60_000);
    for (let i = 0; i < 4096; i++) limit.record(`live-${i}`, i);
    limit.record('x', 5000);
    assert.equal(limit.size, 4097, 'nothing was stale');
    for (let i = 0; i < 4000; i++) limit.record(`more-${i}`, 6000);
    assert.equal(limit.size, 8097, 'no sweep before 8194 keys');
    for (let i = 0; i < 200; i++) limit.record(`late-${i}`, 65_000);
    assert.ok(limit.size < 4400, `the sweep at 8194 keys dropped the expired ones (${limit.size} left)`);
  });
});
