import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkDate, checkEmail, checkLength, checkName, checkText, commentHashTags, prepareText } from '../../../actors/page/comment-rules.js';
import { maskProfanity } from '../../../actors/page/profanity.js';
import { judgeSpam } from '../../../actors/page/spam.js';
import { hashTagKey, tagsInText } from '../../../actors/hashtag/hashtag-model.js';
import { effectiveSettings } from '../../../actors/tenant/widget-config.js';
import { ApiError } from '../../../engine/errors.js';

function code(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    return err.code;
  }
}

describe('comment rules', () => {
  test('names, emails, dates, text', () => {
    assert.equal(checkName('  Ann  '), 'Ann');
    assert.equal(code(() => checkName('   ')), 'invalid-name');
    assert.equal(code(() => checkName('x'.repeat(201))), 'invalid-name');
    assert.equal(code(() => checkName('ann@example.com')), 'invalid-name-is-email');
    assert.equal(checkEmail(''), null);
    assert.equal(checkEmail(null), null);
    assert.equal(checkEmail(' a@b.co '), 'a@b.co');
    assert.equal(code(() => checkEmail('not-an-email')), 'invalid-email');
    assert.equal(code(() => checkEmail('a@b')), 'invalid-email');
    assert.equal(checkDate(0), '1970-01-01T00:00:00.000Z');
    assert.equal(code(() => checkDate(-1)), 'invalid-date');
    assert.equal(code(() => checkDate(1e16)), 'invalid-date');
    assert.equal(checkDate('2024-01-01T00:30:00+01:00'), '2023-12-31T23:30:00.000Z');
    assert.equal(checkDate(1.9), '1970-01-01T00:00:00.001Z');
    assert.equal(code(() => checkDate('1969-12-31T23:59:59Z')), 'invalid-date');
    assert.equal(code(() => checkDate('not a date')), 'invalid-date');
    assert.equal(code(() => checkText(' \n ')), 'empty-comment');
  });

  test('maximum length from the settings, counted in characters', () => {
    const settings = effectiveSettings({ maxCommentCharacterLength: 5 }, undefined);
    assert.equal(code(() => checkLength('😀😀😀😀😀', settings)), undefined);
    try {
      checkLength('123456', settings);
      assert.fail('expected comment-too-big');
    } catch (err) {
      assert.ok(err instanceof ApiError);
      assert.equal(err.code, 'comment-too-big');
      assert.deepEqual(err.extra, { maxCharacterLength: 5 });
    }
  });

  test('profanity is masked only when the settings ask', () => {
    assert.equal(maskProfanity('Well SHIT, what a shitty bastard. Scunthorpe ok.'), 'Well ****, what a ****** *******. Scunthorpe ok.');
    const on = effectiveSettings({ enableProfanityFilter: true }, undefined);
    const off = effectiveSettings({}, undefined);
    assert.equal(prepareText('damn it', on).comment, '**** it');
    assert.equal(prepareText('damn it', off).comment, 'damn it');
  });

  test('spam rules in order, then the repeat check', () => {
    const rules = [
      { actions: ['not-spam'] as const, commentContains: 'trusted' },
      { actions: ['spam'] as const, commentContains: 'CASINO' },
      { actions: ['ignore-repeat'] as const, commentContains: '+1' },
    ];
    assert.deepEqual(judgeSpam('best casino here', rules, false), { isSpam: true, permNotSpam: false });
    assert.deepEqual(judgeSpam('trusted casino', rules, true), { isSpam: false, permNotSpam: true });
    assert.deepEqual(judgeSpam('hello', rules, true), { isSpam: true, permNotSpam: false });
    assert.deepEqual(judgeSpam('+1', rules, true), { isSpam: false, permNotSpam: false });
    assert.deepEqual(judgeSpam('hello', [], false), { isSpam: false, permNotSpam: false });
  });

  test('hashtags: from the text, plus retained ones given by hand', () => {
    assert.deepEqual(tagsInText('#One, #two #one a#b &#39; http://x/#frag #ünï'), ['#One', '#two', '#ünï']);
    assert.equal(hashTagKey('##News '), 'news');
    const { hashTags, keys } = commentHashTags('t1', 'about #News', [{ tag: 'kept', retain: true }, { tag: 'dropped' }, { tag: '#news', retain: true }]);
    assert.deepEqual(keys, ['news', 'kept']);
    assert.deepEqual(hashTags, [
      { id: 't1:news', tag: '#News', url: null },
      { id: 't1:kept', tag: 'kept', url: null, retain: true },
    ]);
  });
});
