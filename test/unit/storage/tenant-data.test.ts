import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COLLECTIONS } from '../../../storage/collections.js';
import { tenantScopes } from '../../../storage/tenant-data.js';

test("every collection says where a tenant's documents are (so deleting a tenant finds them all)", () => {
  const scopes = tenantScopes(COLLECTIONS);
  assert.deepEqual(scopes.undeclared, [], 'declare `tenantData` on these collections (storage/store.ts), or index them by tenantId first');
  assert.deepEqual(scopes.byId, ['tenants']);
  const names = new Set(scopes.byField.map((s) => s.collection));
  for (const name of ['comments', 'users', 'uniqueClaims', 'userTokens', 'jobs', 'apiKeys', 'eventLog']) assert.ok(names.has(name), name);
  assert.deepEqual(scopes.byField.find((s) => s.collection === 'eventLog')?.companions, ['eventLogBodies']);
});
