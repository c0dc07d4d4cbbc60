import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkValue, newConfig, patchConfig, questionConfigView, questionResultView, type QuestionResultDoc } from '../../../actors/question/question-model.js';
import { ApiError } from '../../../engine/errors.js';

const at = { id: 'q1', tenantId: 't', createdBy: 'api', nowIso: '2024-01-01T00:00:00.000Z' };
const base = { name: 'N', question: 'Q?', reportingOrder: 0 };
const refusedWith = (code: string) => (err: unknown) => err instanceof ApiError && err.code === code;

test('bounds follow the type; values outside them, and fractions, are refused', () => {
  const star = newConfig({ ...base, type: 'star', numStars: 3 }, at);
  assert.deepEqual([star.min, star.max], [1, 3]);
  assert.equal(checkValue(star, 3), 3);
  for (const value of [0, 4, 2.5, Number.NaN]) assert.throws(() => checkValue(star, value), refusedWith('invalid-param'), String(value));
  const thumbs = newConfig({ ...base, type: 'thumbs' }, at);
  assert.deepEqual([checkValue(thumbs, 0), checkValue(thumbs, 1)], [0, 1]);
  assert.throws(() => checkValue(thumbs, -1), refusedWith('invalid-param'));
  assert.throws(() => newConfig({ ...base, type: 'slider', min: 2, max: 1 }, at), refusedWith('invalid-param'));
  assert.throws(() => newConfig({ ...base, type: 'slider', min: 0, max: 2e9 }, at), refusedWith('invalid-param'));
});

test('a change of type re-derives the bounds and the default; other changes keep them', () => {
  const slider = newConfig({ ...base, type: 'slider', min: 10, max: 20, defaultValue: 15 }, at);
  assert.equal(patchConfig(slider, { name: 'M' }).defaultValue, 15);
  const moved = patchConfig(slider, { min: 16 });
  assert.deepEqual([moved.min, moved.defaultValue], [16, 16], 'a default outside new bounds falls to the minimum');
  const nps = patchConfig(slider, { type: 'nps' });
  assert.deepEqual([nps.min, nps.max, nps.defaultValue], [0, 10, 0]);
  const back = patchConfig(nps, { type: 'slider' });
  assert.deepEqual([back.min, back.max], [0, 10]);
});

test('wire shapes fill every required field: lastUsed is the creation time before a first use; absent ids are empty strings', () => {
  const view = questionConfigView(newConfig({ ...base, type: 'nps' }, at));
  assert.equal(view['lastUsed'], at.nowIso);
  for (const field of ['helpText', 'labelNegative', 'labelPositive']) assert.equal(view[field], '');
  const doc: QuestionResultDoc = { _id: 'r', tenantId: 't', urlId: '/p', questionId: 'q1', value: 3, userId: null, anonUserId: null, commentId: null, meta: null, createdAt: at.nowIso };
  const result = questionResultView(doc);
  assert.deepEqual([result['userId'], result['anonUserId'], result['ipHash'], result['commentId']], ['', '', '', null]);
});
