import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OAUTH_COLLECTIONS } from '../../actors/oauth/collections.js';
import type { AccessTokenDoc } from '../../actors/oauth/token-store.js';
import { hashSecret, newSecret } from '../../engine/ids.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';

for (const storage of storages()) {
  describe(`auth on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage);
    });
    after(async () => {
      await t.destroy();
    });

    async function issueToken(overrides: Partial<AccessTokenDoc> = {}): Promise<string> {
      const token = newSecret();
      const doc: AccessTokenDoc = {
        _id: hashSecret(token),
        tenantId: t.tenant.tenantId,
        userId: 'admin-user-1',
        scopes: ['read', 'write'],
        expiresAt: Date.now() + 3600_000,
        revokedAt: null,
        ...overrides,
      };
      await t.server.services.store.commit([{ op: 'put', collection: OAUTH_COLLECTIONS.accessTokens, doc }]);
      return token;
    }

    test('API key and tenant id in headers', async () => {
      const r = await t.api('GET', '/api/v1/me');
      assert.equal(r.status, 200);
      assert.equal(r.body['status'], 'success');
      assert.equal(r.body['tenantId'], t.tenant.tenantId);
      assert.equal(r.body['credential'], 'api-key');
      assert.deepEqual(r.body['tenant'], { id: t.tenant.tenantId, name: 'Test tenant' });
    });

    test('API key and tenant id in the query', async () => {
      const r = await t.api('GET', '/api/v1/me', { auth: 'query' });
      assert.equal(r.status, 200);
      assert.equal(r.body['tenantId'], t.tenant.tenantId);
    });

    test('API key header with tenantId query, as the official SDKs send it', async () => {
      const r = await t.api('GET', '/api/v1/me', {
        auth: 'none',
        headers: { 'x-api-key': t.tenant.apiKey },
        query: { tenantId: t.tenant.tenantId },
      });
      assert.equal(r.status, 200);
    });

    test('bearer token: the tenant is implied, and the user and scopes are reported', async () => {
      const token = await issueToken();
      const r = await t.api('GET', '/api/v1/me', { auth: 'none', headers: { authorization: `Bearer ${token}` } });
      assert.equal(r.status, 200);
      assert.equal(r.body['tenantId'], t.tenant.tenantId);
      assert.equal(r.body['credential'], 'access-token');
      assert.deepEqual(r.body['user'], { id: 'admin-user-1', username: null, email: null, displayName: null }, 'a user gone since is named by id only');
      assert.deepEqual(r.body['scopes'], ['read', 'write']);
      const same = await t.api('GET', '/api/v1/me', {
        auth: 'none',
        headers: { authorization: `Bearer ${token}` },
        query: { tenantId: t.tenant.tenantId },
      });
      assert.equal(same.status, 200);
    });

    const refusals: [string, () => Promise<{ status: number; body: Record<string, unknown> }>, number, string][] = [
      ['no credential', () => t.api('GET', '/api/v1/me', { auth: 'none' }), 401, 'missing-api-key'],
      ['key without tenant id', () => t.api('GET', '/api/v1/me', { auth: 'none', headers: { 'x-api-key': t.tenant.apiKey } }), 400, 'missing-tenant-id'],
      ['wrong key', () => t.api('GET', '/api/v1/me', { auth: 'none', headers: { 'x-api-key': 'nope', 'x-tenant-id': t.tenant.tenantId } }), 401, 'invalid-api-key'],
      ['unknown tenant', () => t.api('GET', '/api/v1/me', { auth: 'none', headers: { 'x-api-key': t.tenant.apiKey, 'x-tenant-id': 'no-such-tenant' } }), 401, 'invalid-tenant-id'],
      ['malformed tenant id', () => t.api('GET', '/api/v1/me', { auth: 'none', headers: { 'x-api-key': t.tenant.apiKey, 'x-tenant-id': 'a/b' } }), 401, 'invalid-tenant-id'],
      [
        'header and query name different tenants',
        () => t.api('GET', '/api/v1/me', { headers: { 'x-tenant-id': t.tenant.tenantId }, query: { tenantId: 'other' } }),
        403,
        'tenant-id-mismatch',
      ],
      ['unknown bearer token', () => t.api('GET', '/api/v1/me', { auth: 'none', headers: { authorization: 'Bearer not-a-token' } }), 401, 'invalid-token'],
      ['malformed Authorization header', () => t.api('GET', '/api/v1/me', { auth: 'none', headers: { authorization: 'Basic abc' } }), 401, 'invalid-token'],
    ];
    for (const [name, call, status, code] of refusals) {
      test(`refused: ${name} → ${status} ${code}`, async () => {
        const r = await call();
        assert.equal(r.status, status);
        assert.equal(r.body['status'], 'failed');
        assert.equal(r.body['code'], code);
        assert.equal(typeof r.body['reason'], 'string');
      });
    }

    test('expired, revoked, under-scoped and cross-tenant tokens are refused', async () => {
      const bearer = (token: string) => ({ auth: 'none' as const, headers: { authorization: `Bearer ${token}` } });
      const expired = await issueToken({ expiresAt: Date.now() - 1 });
      let r = await t.api('GET', '/api/v1/me', bearer(expired));
      assert.deepEqual([r.status, r.body['code']], [401, 'token-expired']);

      const revoked = await issueToken({ revokedAt: Date.now() });
      r = await t.api('GET', '/api/v1/me', bearer(revoked));
      assert.deepEqual([r.status, r.body['code']], [401, 'token-revoked']);

      const readOnly = await issueToken({ scopes: ['read'] });
      r = await t.api('GET', '/api/v1/me', bearer(readOnly));
      assert.equal(r.status, 200);
      r = await t.api('POST', '/api/v1/domain-configs', { ...bearer(readOnly), body: { domain: 'scoped.example' } });
      assert.deepEqual([r.status, r.body['code']], [403, 'insufficient-scope']);
      r = await t.api('GET', '/api/v1/domain-configs/scoped.example');
      assert.equal(r.status, 404, 'the refused write changed nothing');

      const other = await t.addTenant();
      const foreign = await issueToken({ tenantId: other.tenantId });
      r = await t.api('GET', '/api/v1/me', { ...bearer(foreign), query: { tenantId: t.tenant.tenantId } });
      assert.deepEqual([r.status, r.body['code']], [403, 'tenant-id-mismatch']);
    });

    test("a key of tenant A used with tenant B's id is refused", async () => {
      const other = await t.addTenant();
      const r = await t.api('GET', '/api/v1/me', { auth: 'none', headers: { 'x-api-key': t.tenant.apiKey, 'x-tenant-id': other.tenantId } });
      assert.deepEqual([r.status, r.body['code']], [401, 'invalid-api-key']);
      const own = await t.api('GET', '/api/v1/me', { auth: 'none', headers: { 'x-api-key': other.apiKey, 'x-tenant-id': other.tenantId } });
      assert.equal(own.status, 200);
      assert.equal(own.body['tenantId'], other.tenantId);
    });

    test("tenants cannot see or change each other's data", async () => {
      const other = await t.addTenant();
      const asOther = { auth: 'none' as const, headers: { 'x-api-key': other.apiKey, 'x-tenant-id': other.tenantId } };
      const created = await t.api('POST', '/api/v1/domain-configs', { body: { domain: 'mine.example' } });
      assert.equal(created.status, 200);
      const id = (created.body['configuration'] as { id: string }).id;

      assert.equal((await t.api('GET', '/api/v1/domain-configs/mine.example', asOther)).status, 404);
      assert.equal((await t.api('DELETE', '/api/v1/domain-configs/mine.example', asOther)).status, 404);
      assert.equal((await t.api('PATCH', '/api/v1/domain-configs/mine.example', { ...asOther, body: { emailFromName: 'x' } })).status, 404);
      const list = await t.api<{ configurations: { id: string }[] }>('GET', '/api/v1/domain-configs', asOther);
      assert.deepEqual(list.body.configurations, []);
      const mine = await t.api<{ configuration: { id: string; emailFromName?: string } }>('GET', '/api/v1/domain-configs/mine.example');
      assert.equal(mine.body.configuration.id, id);
      assert.equal(mine.body.configuration.emailFromName, undefined);
    });

    test('a key created while the server runs is accepted without a restart', async () => {
      const { createApiKey } = await import('../../actors/tenant/provision.js');
      await t.api('GET', '/api/v1/me');
      const key = await createApiKey(t.server.services.store, t.tenant.tenantId);
      await new Promise((r) => setTimeout(r, 1100));
      const r = await t.api('GET', '/api/v1/me', { auth: 'none', headers: { 'x-api-key': key, 'x-tenant-id': t.tenant.tenantId } });
      assert.equal(r.status, 200);
    });
  });
}
