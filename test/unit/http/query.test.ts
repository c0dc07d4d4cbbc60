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

test('__proto__ is just a name, even repeated', () => {
  const q = parseQuery('__proto__=x');
  assert.equal(q['__proto__'], 'x');
  assert.deepEqual(Object.keys(q), ['__proto__']);
  const repeated = parseQuery('__proto__=x&__proto__=y');
  assert.deepEqual(repeated['__proto__'], ['x', 'y']);
  assert.equal(Object.getPrototypeOf(repeated), Object.prototype);
  assert.equal(({} as Record<string, unknown>)['x'], undefined);
});

test('names of Object.prototype members are data like any other', () => {
  assert.deepEqual({ ...parseQuery('constructor=a&toString=b&constructor=c') }, { constructor: ['a', 'c'], toString: 'b' });
});

test('bad percent-encoding is refused with invalid-param', () => {
  assert.throws(() => parseQuery('a=%zz'), (e) => e instanceof ApiError && e.code === 'invalid-param');
});
