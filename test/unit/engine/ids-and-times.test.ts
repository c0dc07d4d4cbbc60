import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isoTime } from '../../../engine/clock.js';
import { newId } from '../../../engine/ids.js';

describe('new ids', () => {
  test('are 24 hex characters, the first 8 the creation second', () => {
    const id = newId(Date.UTC(2026, 10, 22, 7, 0, 0, 500));
    assert.match(id, /^[0-9a-f]{24}$/);
    assert.equal(parseInt(id.slice(0, 8), 16), Date.UTC(2026, 10, 22, 7, 0, 0) / 1000);
  });

  test('never repeat, and sort by creation time across seconds', () => {
    const ids: string[] = [];
    for (let i = 0; i < 10_000; i++) ids.push(newId(1_000_000 + i * 10));
    assert.equal(new Set(ids).size, ids.length);
    const firsts = [newId(5_000), newId(6_000), newId(70_000)];
    assert.deepEqual([...firsts].sort(), firsts);
  });
});

describe('ISO times', () => {
  test('are those of Date, also when asked again for the same or an earlier millisecond', () => {
    for (const ms of [0, 1_795_334_210_149, 1_795_334_210_149, 1_795_334_210_150, 1_795_334_210_149, Date.UTC(2026, 0, 1)]) {
      assert.equal(isoTime(ms), new Date(ms).toISOString());
    }
  });
});
