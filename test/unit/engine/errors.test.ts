import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ApiError, ERRORS } from '../../../engine/errors.js';
import { repoFile } from '../../fixtures/paths.js';

test('every error code is documented in docs/errors.md with its HTTP status', () => {
  const doc = readFileSync(repoFile('docs/errors.md'), 'utf8');
  const missing: string[] = [];
  for (const [code, { status }] of Object.entries(ERRORS)) {
    const row = new RegExp(`^\\|\\s*\`${code}\`\\s*\\|\\s*${status}\\s*\\|`, 'm');
    if (!row.test(doc)) missing.push(`${code} (${status})`);
  }
  assert.deepEqual(missing, [], 'codes missing from docs/errors.md');
});

test('statuses are honest: 4xx for refusals, 5xx only for server-side conditions', () => {
  for (const [code, { status }] of Object.entries(ERRORS)) {
    assert.ok(status >= 400 && status < 600, code);
    if (status >= 500) assert.match(code, /storage|timeout|overloaded|shutting-down|internal|cluster-unavailable|cluster-starting/, code);
  }
});

test('ApiError carries its catalogued status and default message', () => {
  const e = new ApiError('invalid-api-key');
  assert.equal(e.status, 401);
  assert.equal(e.message, ERRORS['invalid-api-key'].message);
  assert.equal(new ApiError('not-found', 'No such thing.').message, 'No such thing.');
});
