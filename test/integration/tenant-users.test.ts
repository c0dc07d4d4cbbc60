import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { as, call, ok, refused } from './identity-helpers.js';
import { managedTenant } from './white-label-helpers.js';

type Json = Record<string, unknown>;

for (const storage of storages()) {
  describe(`tenant users on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage, {}, { tenant: { maxTenantUsers: 3, whiteLabeledTenants: 2 } });
    });
    after(async () => {
      await t?.destroy();
    });

    test('create, read, list in order, patch, put, delete; the User view finds them', async () => {
      const ann = ok(await call<{ tenantUser: Json }>(t, 'POST', '/api/v1/tenant-users', { body: { username: 'ann', email: 'Ann@Example.com', locale: 'de_de', isAdminAdmin: true, signUpDate: 2000 } })).tenantUser;
      assert.equal(ann['email'], 'ann@example.com');
      assert.equal(ann['locale'], 'de_de');
      assert.equal(ann['isAdminAdmin'], true);
      assert.equal(ann['signUpDate'], 2000);
      const bob = ok(await call<{ tenantUser: Json }>(t, 'POST', '/api/v1/tenant-users', { body: { username: 'bob', email: 'bob@example.com', signUpDate: 1000 } })).tenantUser;
      assert.equal(bob['locale'], 'en_us');
      assert.equal(ok(await call<{ tenantUser: Json }>(t, 'GET', `/api/v1/tenant-users/${ann['id']}`)).tenantUser['username'], 'ann');
      assert.equal(ok(await call<{ user: Json }>(t, 'GET', `/api/v1/users/${ann['id']}`)).user['username'], 'ann', 'the User view finds every kind');
      const list = ok(await call<{ tenantUsers: Json[] }>(t, 'GET', '/api/v1/tenant-users'));
      assert.deepEqual(list.tenantUsers.map((u) => u['username']), ['bob', 'ann'], 'by signUpDate');

      const patched = ok(await call<{ tenantUser: Json }>(t, 'PATCH', `/api/v1/tenant-users/${ann['id']}`, { body: { displayName: 'Ann A.', isAPIAdmin: true, tenantId: t.tenant.tenantId } }));
      assert.equal(patched.tenantUser['displayName'], 'Ann A.');
      assert.equal(patched.tenantUser['isAdminAdmin'], true, 'patch keeps the rest');
      const put = ok(await call<{ tenantUser: Json }>(t, 'PUT', `/api/v1/tenant-users/${ann['id']}`, { body: { username: 'ann2', email: 'ann2@example.com' } }));
      assert.equal(put.tenantUser['isAdminAdmin'], false, 'replacement resets omitted fields');
      assert.equal(put.tenantUser['signUpDate'], 2000, 'and keeps the sign-up date');
      // The old username and email are free again once changed.
      ok(await call(t, 'POST', '/api/v1/tenant-users', { body: { username: 'ann', email: 'ann@example.com' } }));

      ok(await call(t, 'DELETE', `/api/v1/tenant-users/${bob['id']}`));
      refused(await t.api('GET', `/api/v1/tenant-users/${bob['id']}`), 404, 'not-found');
      refused(await t.api('DELETE', `/api/v1/tenant-users/${bob['id']}`), 404, 'not-found');
      ok(await call(t, 'POST', '/api/v1/tenant-users', { body: { username: 'bob', email: 'bob@example.com' } }), 'a deleted user frees its names');
    });

    test('the rules: required fields, locale, sign-up date, global uniqueness, tenantId, the package limit', async () => {
      refused(await t.api('POST', '/api/v1/tenant-users', { body: { email: 'x@example.com' } }), 400, 'username-required');
      refused(await t.api('POST', '/api/v1/tenant-users', { body: { username: 'x' } }), 400, 'email-required');
      refused(await t.api('POST', '/api/v1/tenant-users', { body: { username: 'x', email: 'x@example.com', locale: 'xx_yy' } }), 400, 'unsupported-locale');
      refused(await t.api('POST', '/api/v1/tenant-users', { body: { username: 'x', email: 'x@example.com', signUpDate: Date.now() + 86_400_000 } }), 400, 'sign-up-date-in-future');
      refused(await t.api('POST', '/api/v1/tenant-users', { body: { username: 'x', email: 'nope' } }), 400, 'invalid-email');
      // Unique across the whole service (compared ignoring case): another tenant cannot take them.
      const other = await managedTenant(t, 'Other');
      refused(await t.api('POST', '/api/v1/tenant-users', { ...as(other), body: { username: 'ANN', email: 'z@example.com' } }), 409, 'username-taken');
      refused(await t.api('POST', '/api/v1/tenant-users', { ...as(other), body: { username: 'zed', email: 'Ann@example.com' } }), 409, 'email-taken');
      const zed = ok(await call<{ tenantUser: Json }>(t, 'POST', '/api/v1/tenant-users', { ...as(other), body: { username: 'zed', email: 'zed@example.com' } })).tenantUser;
      refused(await t.api('PATCH', `/api/v1/tenant-users/${zed['id']}`, { ...as(other), body: { tenantId: t.tenant.tenantId } }), 400, 'tenant-id-immutable');
      refused(await t.api('PATCH', `/api/v1/tenant-users/${zed['id']}`, { ...as(other), body: { username: 'bob' } }), 409, 'username-taken');
      assert.equal(ok(await call<{ tenantUser: Json }>(t, 'GET', `/api/v1/tenant-users/${zed['id']}`, as(other))).tenantUser['username'], 'zed', 'unchanged');

      // maxTenantUsers is 3 (ann2, ann, bob): the fourth is refused, however many race.
      const racing = await Promise.all(Array.from({ length: 4 }, (_, i) => t.api('POST', '/api/v1/tenant-users', { body: { username: `race${i}`, email: `race${i}@example.com` } })));
      for (const res of racing) refused(res, 403, 'tenant-user-limit-reached');
      assert.equal(ok(await call<{ tenantUsers: Json[] }>(t, 'GET', '/api/v1/tenant-users')).tenantUsers.length, 3);
    });

    test("isolation: another tenant's key reaches none of them; a manager's key reaches its managed tenant's", async () => {
      const mine = ok(await call<{ tenantUsers: Json[] }>(t, 'GET', '/api/v1/tenant-users')).tenantUsers[0]!;
      const stranger = await t.addTenant({ name: 'Stranger' });
      refused(await t.api('GET', `/api/v1/tenant-users/${mine['id']}`, as(stranger)), 404, 'not-found');
      refused(await t.api('PATCH', `/api/v1/tenant-users/${mine['id']}`, { ...as(stranger), body: { username: 'stolen' } }), 404, 'not-found');
      refused(await t.api('DELETE', `/api/v1/tenant-users/${mine['id']}`, as(stranger)), 404, 'not-found');
      refused(await t.api('GET', `/api/v1/users/${mine['id']}`, as(stranger)), 404, 'not-found');
      const child = await managedTenant(t, 'Child');
      const childUser = ok(await call<{ tenantUser: Json }>(t, 'POST', '/api/v1/tenant-users', { ...as(t.tenant, child.tenantId), body: { username: 'kid', email: 'kid@example.com' } })).tenantUser;
      assert.equal(childUser['tenantId'], child.tenantId, "the manager's key created it in the managed tenant");
      refused(await t.api('GET', `/api/v1/tenant-users/${mine['id']}`, as(child)), 404, 'not-found', "the managed tenant cannot reach its manager's");
      refused(await t.api('GET', '/api/v1/tenant-users', as(child, t.tenant.tenantId)), 401, 'invalid-api-key');
      refused(await t.api('GET', '/api/v1/tenant-users', as(stranger, child.tenantId)), 401, 'invalid-api-key');
    });
  });
}
