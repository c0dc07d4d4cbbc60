import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../../engine/errors.js';
import { Router } from '../../../http/router.js';

function router(): Router<string> {
  const r = new Router<string>();
  r.add('GET', '/api/v1/comments', 'list');
  r.add('GET', '/api/v1/comments/:id', 'one');
  r.add('POST', '/api/v1/comments/:id/flag', 'flag');
  r.add('GET', '/api/v1/pages/by-url-id', 'by-url-id');
  r.add('PATCH', '/api/v1/pages/:id', 'patch-page');
  r.add('DELETE', '/api/v1/hash-tags/:tag', 'del-tag');
  return r;
}

test('static paths match exactly, with or without a trailing slash', () => {
  const r = router();
  assert.deepEqual(r.match('GET', '/api/v1/comments'), { value: 'list', params: {} });
  assert.deepEqual(r.match('GET', '/api/v1/comments/'), { value: 'list', params: {} });
});

test('parameters are captured and percent-decoded', () => {
  const r = router();
  assert.deepEqual(r.match('GET', '/api/v1/comments/abc'), { value: 'one', params: { id: 'abc' } });
  assert.deepEqual(r.match('DELETE', '/api/v1/hash-tags/%23news%20today'), { value: 'del-tag', params: { tag: '#news today' } });
  assert.deepEqual(r.match('POST', '/api/v1/comments/x%2Fy/flag'), { value: 'flag', params: { id: 'x/y' } });
});

test('a literal segment wins over a parameter', () => {
  const r = router();
  assert.deepEqual(r.match('GET', '/api/v1/pages/by-url-id'), { value: 'by-url-id', params: {} });
  assert.deepEqual(r.match('PATCH', '/api/v1/pages/by-url-id'), { value: 'patch-page', params: { id: 'by-url-id' } });
});

test('unknown paths give undefined; known paths with another method list the allowed methods', () => {
  const r = router();
  assert.equal(r.match('GET', '/nope'), undefined);
  assert.equal(r.match('GET', '/api/v1/comments/a/b'), undefined);
  const wrong = r.match('DELETE', '/api/v1/comments');
  assert.ok(wrong && 'allowed' in wrong);
  assert.deepEqual(wrong.allowed, ['GET']);
});

test('empty parameter segments do not match', () => {
  assert.equal(router().match('GET', '/api/v1/comments//'), undefined);
});

test('bad percent-encoding is a 400, not a crash', () => {
  assert.throws(
    () => router().match('GET', '/api/v1/comments/%E0%A4%A'),
    (e) => e instanceof ApiError && e.code === 'invalid-path-encoding' && e.status === 400,
  );
});

test('methods on one path may name its parameters differently', () => {
  const r = router();
  r.add('PUT', '/api/v1/comments/:commentId', 'put');
  assert.deepEqual(r.match('PUT', '/api/v1/comments/c1'), { value: 'put', params: { commentId: 'c1' } });
  assert.deepEqual(r.match('GET', '/api/v1/comments/c1'), { value: 'one', params: { id: 'c1' } });
});

test('duplicate routes are refused at start-up', () => {
  assert.throws(() => router().add('GET', '/api/v1/comments', 'again'));
  assert.throws(() => router().add('GET', '/api/v1/comments/:other', 'again'));
});
