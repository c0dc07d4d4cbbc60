import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { QuestionResultDoc } from '../../../actors/question/question-model.js';
import { counted, emptyTally, talliesOf, tallyKeys } from '../../../actors/question/tally.js';

const result = (value: number, urlId: string, createdAt: string): QuestionResultDoc => ({
  _id: `${value}${urlId}${createdAt}`,
  tenantId: 't',
  urlId,
  questionId: 'q',
  value,
  userId: null,
  anonUserId: null,
  commentId: null,
  meta: null,
  createdAt,
});

test('a result counts in the tally of its UTC day and of its page; long page ids are hashed into the tally id', () => {
  const [day, page] = tallyKeys(result(3, '/a'.repeat(2000), '2024-05-01T23:59:59.999Z'));
  assert.deepEqual([day!.kind, day!.key, day!.id], ['day', '2024-05-01', 'q:d:2024-05-01']);
  assert.equal(page!.kind, 'url');
  assert.equal(page!.key, '/a'.repeat(2000));
  assert.ok(page!.id.length < 50);
  assert.notEqual(page!.id, tallyKeys(result(3, '/b', '2024-05-01T00:00:00.000Z'))[1]!.id);
});

test('counting once more and once less; a value with no results left is dropped', () => {
  const slot = tallyKeys(result(2, '/a', '2024-05-01T00:00:00.000Z'))[0]!;
  let tally = emptyTally('t', 'q', slot);
  tally = counted(counted(counted(tally, 2, 1), 2, 1), -1, 1);
  assert.deepEqual([tally.counts, tally.total], [{ 2: 2, '-1': 1 }, 3]);
  tally = counted(counted(tally, -1, -1), 2, -1);
  assert.deepEqual([tally.counts, tally.total], [{ 2: 1 }, 1]);
});

test('the tallies of a set of results', () => {
  const tallies = talliesOf('t', [result(1, '/a', '2024-05-01T10:00:00.000Z'), result(5, '/a', '2024-05-02T10:00:00.000Z'), result(5, '/b', '2024-05-02T11:00:00.000Z')]);
  const byKey = Object.fromEntries(tallies.map((t) => [`${t.kind} ${t.key}`, [t.counts, t.total]]));
  assert.deepEqual(byKey, {
    'day 2024-05-01': [{ 1: 1 }, 1],
    'day 2024-05-02': [{ 5: 2 }, 2],
    'url /a': [{ 1: 1, 5: 1 }, 2],
    'url /b': [{ 5: 1 }, 1],
  });
});
