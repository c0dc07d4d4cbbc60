import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../../engine/errors.js';
import { parseQuery } from '../../../http/query.js';

test('repeated names become arrays in order; single names stay strings', () => {
  assert.deepEqual({ ...parseQuery('hashTag=a&urlId=x&hashTag=b&hashTag=c') }, { hashTag: ['a', 'b', 'c'], urlId: 'x' });
});

test('values are percent-decoded and + is a space', () => {
  assert.deepEqual({ ...parseQuery('urlId=https%3A%2F%2Fx.com%2Fa%3Fb%3D1&q=a+b&e=') }, { urlId: 'https://x.com/a?b=1', q: 'a b', e: '' });
});

test('a name without = has an empty value; empty pairs are skipped', () => {
  assert.deepEqual({ ...parseQuery('flag&&x=1&') }, { flag: '', x: '1' });
});

test('__proto__ is just a name', () => {
  const q = parseQuery('__proto__=x');
  assert.equal(q['__proto__'], 'x');
  assert.equal(({} as Record<string, unknown>)['x'], undefined);
});

test('bad percent-encoding is refused with invalid-param', () => {
  assert.throws(() => parseQuery('a=%zz'), (e) => e instanceof ApiError && e.code === 'invalid-param');
});
