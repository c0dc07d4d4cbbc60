import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../../engine/errors.js';
import { compile } from '../../../http/validation.js';

function refusal(fn: () => void): { code: string; reason: string } {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ApiError);
    return { code: e.code, reason: e.message };
  }
  assert.fail('expected a refusal');
}

const query = compile('query', {
  type: 'object',
  properties: { page: { type: 'integer', minimum: 0 }, asTree: { type: 'boolean' }, hashTag: { type: 'array', items: { type: 'string' } }, urlId: { type: 'string' } },
  required: ['urlId'],
}, { urlId: 'missing-tenant-id' });

test('query strings are coerced: numbers, booleans, a single value into an array', () => {
  const q: Record<string, unknown> = { urlId: 'x', page: '2', asTree: 'true', hashTag: 'a' };
  query(q);
  assert.deepEqual(q, { urlId: 'x', page: 2, asTree: true, hashTag: ['a'] });
});

test('unknown query fields are refused with unexpected-param naming the field', () => {
  const r = refusal(() => query({ urlId: 'x', pgae: '1' }));
  assert.equal(r.code, 'unexpected-param');
  assert.match(r.reason, /pgae/);
});

test('wrong types are refused with invalid-param naming the field', () => {
  const r = refusal(() => query({ urlId: 'x', page: 'two' }));
  assert.equal(r.code, 'invalid-param');
  assert.match(r.reason, /page/);
});

test('a repeated scalar parameter is refused', () => {
  assert.equal(refusal(() => query({ urlId: ['a', 'b'] })).code, 'invalid-param');
});

test('missing fields use the route code when it names one', () => {
  assert.equal(refusal(() => query({})).code, 'missing-tenant-id');
});

const body = compile('body', {
  type: 'object',
  properties: { name: { type: 'string', maxLength: 5 }, count: { type: 'integer' }, nested: { type: 'object', properties: { a: { type: 'string' } } } },
  required: ['name'],
});

test('bodies are not coerced', () => {
  assert.equal(refusal(() => body({ name: 'a', count: '3' })).code, 'invalid-param');
});

test('unknown fields are refused at any depth', () => {
  const r = refusal(() => body({ name: 'a', nested: { a: 'x', b: 'y' } }));
  assert.equal(r.code, 'unexpected-param');
  assert.match(r.reason, /nested\.b/);
});

test('missing fields without a route code give missing-param', () => {
  assert.equal(refusal(() => body({})).code, 'missing-param');
});

test('limits are enforced', () => {
  assert.equal(refusal(() => body({ name: 'toolong' })).code, 'invalid-param');
});

test('a refusal of the whole body reads as one', () => {
  const patch = compile('body', { type: 'object', properties: { a: { type: 'string' } }, minProperties: 1 });
  assert.deepEqual(refusal(() => patch({})), { code: 'invalid-param', reason: 'The body must have at least 1 field.' });
  assert.deepEqual(refusal(() => patch([])), { code: 'invalid-param', reason: 'The body must be object.' });
});
