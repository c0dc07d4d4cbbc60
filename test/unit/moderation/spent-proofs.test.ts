import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_SPENT_PROOFS, SPEND, SpentProofs } from '../../../actors/moderation/spent-proofs.js';

test('a challenge is spent once until it expires; expired ones are dropped as new ones come', () => {
  const spent = new SpentProofs();
  const dropped: string[] = [];
  assert.equal(spent.spend('a', 1_000, 0, dropped), SPEND.spent);
  assert.equal(spent.spend('a', 1_000, 10, dropped), SPEND.used);
  assert.equal(spent.spend('b', 1_500, 20, dropped), SPEND.spent);
  assert.deepEqual(dropped, []);
  assert.equal(spent.spend('c', 2_100, 1_100, dropped), SPEND.spent);
  assert.deepEqual(dropped, ['a'], 'the expired one goes');
  assert.equal(spent.size, 2);
});

test('a full set refuses until entries expire, looking past a live oldest entry', () => {
  const spent = new SpentProofs();
  const dropped: string[] = [];
  spent.load('long', 10_000);
  for (let i = 1; i < MAX_SPENT_PROOFS; i++) spent.load(`s${i}`, 1_000);
  assert.equal(spent.spend('new', 5_000, 500, dropped), SPEND.full);
  assert.equal(spent.spend('new', 5_000, 1_000, dropped), SPEND.spent, 'once the others expired');
  assert.equal(dropped.length, MAX_SPENT_PROOFS - 1);
  assert.equal(spent.size, 2);
});
