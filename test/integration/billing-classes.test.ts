import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DirectoryKind } from '../../actors/user/directory-actor.js';
import { eventually } from '../fixtures/eventually.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { call, ok } from './identity-helpers.js';

type Json = Record<string, unknown>;

for (const storage of storages()) {
  describe(`SSO users billed by class on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage);
    });
    after(async () => {
      await t?.destroy();
    });

    const today = async (): Promise<Json> => {
      const usage = ok(await call<{ tenantDailyUsages: Json[] }>(t, 'GET', '/api/v1/tenant-daily-usage'));
      return usage.tenantDailyUsages.at(-1)!;
    };
    const classes = (day: Json) => [day['ssoUserCount'], day['ssoAdminCount'], day['ssoModeratorCount']];

    test('usage counts SSO users as regular, admin or moderator, and never one person twice', async () => {
      const sso = (id: string, extra: Json = {}) => call(t, 'POST', '/api/v1/sso-users', { body: { id, username: id, email: `${id}@example.com`, ...extra } });
      ok(await sso('r1'));
      ok(await sso('r2'));
      ok(await sso('owner', { isAccountOwner: true }));
      ok(await sso('admin', { isAdminAdmin: true }));
      ok(await sso('mod', { isCommentModeratorAdmin: true }));
      ok(await sso('alsotenant', { email: 'staff@example.com' }));
      ok(await sso('alsomod', { email: 'moderator@example.com', isCommentModeratorAdmin: true }));
      const staff = ok(await call<{ tenantUser: Json }>(t, 'POST', '/api/v1/tenant-users', { body: { username: 'staff', email: 'staff@example.com' } })).tenantUser;
      ok(await call(t, 'POST', '/api/v1/moderators', { body: { name: 'Mod', email: 'moderator@example.com' } }));

      const counted = await t.server.services.system.ask(DirectoryKind, t.tenant.tenantId, 'recountBilling', null);
      assert.deepEqual(counted, { ssoUserCount: 2, ssoAdminCount: 2, ssoModeratorCount: 1 });
      assert.deepEqual(classes(await today()), [2, 2, 1], "on today's usage");

      // Changes count again by themselves: the tenant user goes, so its SSO twin is billed now.
      ok(await call(t, 'DELETE', `/api/v1/tenant-users/${staff['id']}`));
      ok(await call(t, 'PATCH', '/api/v1/sso-users/admin', { body: { isAdminAdmin: false } }));
      await eventually(async () => JSON.stringify(classes(await today())) === JSON.stringify([4, 1, 1]), 30_000);
    });
  });
}
