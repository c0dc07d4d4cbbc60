import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { as, call, ok, refused } from './identity-helpers.js';

type Json = Record<string, unknown>;

/** A secure `sso` parameter for the widget routes. */
function securePayload(apiSecret: string, user: Json): string {
  const data = Buffer.from(JSON.stringify(user)).toString('base64');
  const timestamp = Date.now();
  const verificationHash = createHmac('sha256', apiSecret).update(`${timestamp}${data}`).digest('hex');
  return JSON.stringify({ userDataJSONBase64: data, verificationHash, timestamp });
}

for (const storage of storages()) {
  describe(`SSO users on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage);
    });
    after(async () => {
      await t?.destroy();
    });

    test('create, read by id and email, list in sign-up order, patch, put, delete', async () => {
      const created = ok(await call<{ user: Json }>(t, 'POST', '/api/v1/sso-users', {
        body: { id: 'ford', username: 'fordperfect', email: 'Ford@Galaxy.com', displayName: 'Ford', groupIds: ['g1'], signUpDate: 1000 },
      }));
      assert.equal(created.user['id'], 'ford');
      assert.equal(created.user['email'], 'ford@galaxy.com');
      assert.equal(created.user['signUpDate'], 1000);
      assert.equal(created.user['isProfileActivityPrivate'], true, 'private by default');
      assert.deepEqual(created.user['groupIds'], ['g1']);
      ok(await call(t, 'POST', '/api/v1/sso-users', { body: { id: 'arthur', username: 'arthur', email: 'arthur@earth.com', signUpDate: 500 } }));

      const dup = await t.api('POST', '/api/v1/sso-users', { body: { id: 'ford', username: 'x', email: 'x@y.com' } });
      refused(dup, 409, 'user-exists');

      assert.equal(ok(await call<{ user: Json }>(t, 'GET', '/api/v1/sso-users/by-id/ford')).user['username'], 'fordperfect');
      assert.equal(ok(await call<{ user: Json }>(t, 'GET', '/api/v1/sso-users/by-email/FORD%40galaxy.com')).user['id'], 'ford');
      refused(await t.api('GET', '/api/v1/sso-users/by-id/nobody'), 404, 'not-found');
      refused(await t.api('GET', '/api/v1/sso-users/by-email/nobody%40x.com'), 404, 'not-found');

      const list = ok(await call<{ users: Json[]; creditsCost: number }>(t, 'GET', '/api/v1/sso-users'));
      assert.deepEqual(list.users.map((u) => u['id']), ['arthur', 'ford'], 'by signUpDate');
      assert.equal(list.creditsCost, 1);
      assert.deepEqual(ok(await call<{ users: Json[] }>(t, 'GET', '/api/v1/sso-users', { query: { skip: 1 } })).users.map((u) => u['id']), ['ford']);

      const patched = ok(await call<{ user: Json }>(t, 'PATCH', '/api/v1/sso-users/ford', { body: { displayName: 'Ford P.', isCommentModeratorAdmin: true } }));
      assert.equal(patched.user['displayName'], 'Ford P.');
      assert.equal(patched.user['username'], 'fordperfect', 'patch keeps the rest');
      assert.equal(patched.user['isCommentModeratorAdmin'], true);

      const put = ok(await call<{ user: Json }>(t, 'PUT', '/api/v1/sso-users/ford', { body: { username: 'ford2', email: 'ford2@galaxy.com' } }));
      assert.equal(put.user['displayName'], '', 'replacement drops omitted fields');
      assert.equal(put.user['isCommentModeratorAdmin'], false);
      assert.equal(put.user['signUpDate'], 1000, 'replacement keeps the sign-up date');
      assert.equal(put.user['groupIds'], undefined);

      refused(await t.api('PATCH', '/api/v1/sso-users/nobody', { body: { displayName: 'x' } }), 404, 'not-found');
      refused(await t.api('PATCH', '/api/v1/sso-users/ford', { body: { id: 'other' } }), 400, 'id-immutable');
      refused(await t.api('PATCH', '/api/v1/sso-users/ford', { body: {} }), 400, 'invalid-param');

      const del = ok(await call<{ user: Json }>(t, 'DELETE', '/api/v1/sso-users/ford'));
      assert.equal(del.user['id'], 'ford');
      refused(await t.api('DELETE', '/api/v1/sso-users/ford'), 404, 'not-found');
      refused(await t.api('GET', '/api/v1/sso-users/by-id/ford'), 404, 'not-found');
    });

    test('bad input is refused with its own code and changes nothing', async () => {
      refused(await t.api('POST', '/api/v1/sso-users', { body: { id: 'a', email: 'a@b.com' } }), 400, 'username-required');
      refused(await t.api('POST', '/api/v1/sso-users', { body: { id: 'a', username: 'a' } }), 400, 'email-required');
      refused(await t.api('POST', '/api/v1/sso-users', { body: { username: 'a', email: 'a@b.com' } }), 400, 'missing-param');
      refused(await t.api('POST', '/api/v1/sso-users', { body: { id: 'a', username: 'a', email: 'not an email' } }), 400, 'invalid-email');
      refused(await t.api('POST', '/api/v1/sso-users', { body: { id: 'a', username: 'a\u202e', email: 'a@b.com' } }), 400, 'invalid-name');
      refused(await t.api('POST', '/api/v1/sso-users', { body: { id: 'a', username: 'a', email: 'a@b.com', avatarSrc: 'javascript:x' } }), 400, 'invalid-url');
      refused(await t.api('POST', '/api/v1/sso-users', { body: { id: 'a', username: 'a', email: 'a@b.com', signUpDate: Date.now() + 86_400_000 } }), 400, 'sign-up-date-in-future');
      const badges = Array.from({ length: 31 }, (_, i) => `b${i}`);
      refused(await t.api('POST', '/api/v1/sso-users', { body: { id: 'a', username: 'a', email: 'a@b.com', badgeConfig: { badgeIds: badges } } }), 400, 'too-many-badges');
      refused(await t.api('POST', '/api/v1/sso-users', { body: { id: 'a', username: 'a', email: 'a@b.com', extra: 1 } }), 400, 'unexpected-param');
      refused(await t.api('POST', '/api/v1/sso-users', { body: '{"id":' }), 400, 'invalid-json');
      refused(await t.api('GET', '/api/v1/sso-users/by-id/a'), 404, 'not-found');
      const ok30 = ok(await call<{ user: Json }>(t, 'POST', '/api/v1/sso-users', { body: { id: 'b30', username: 'b', email: 'b@b.com', badgeConfig: { badgeIds: badges.slice(0, 30), override: true } } }));
      assert.equal((ok30.user['badgeConfig'] as { badgeIds: string[] }).badgeIds.length, 30);
    });

    test('the widget and the API manage the same records; SSO values override only what they name', async () => {
      ok(await call(t, 'POST', '/api/v1/sso-users', { body: { id: 'zaphod', username: 'zaphod', email: 'z@galaxy.com', displayName: 'Zaphod', websiteUrl: 'https://heart.of.gold' } }));
      const sso = securePayload(t.tenant.apiSecret, { id: 'zaphod', username: 'president', displayName: null });
      const read = await fetch(`${t.url}/page-reacts/v1/likes/${t.tenant.tenantId}?urlId=p1&sso=${encodeURIComponent(sso)}`);
      assert.equal(read.status, 200);
      const user = ok(await call<{ user: Json }>(t, 'GET', '/api/v1/sso-users/by-id/zaphod')).user;
      assert.equal(user['username'], 'president', 'named: replaced');
      assert.equal(user['displayName'], '', 'null: cleared');
      assert.equal(user['websiteUrl'], 'https://heart.of.gold', 'absent: kept');
      // The User view of the same record, by its stored id.
      const viewed = ok(await call<{ user: Json }>(t, 'GET', `/api/v1/users/${t.tenant.tenantId}:zaphod`)).user;
      assert.equal(viewed['username'], 'president');

      // An unsigned payload cannot change a user the API manages.
      const simple = JSON.stringify({ username: 'president', email: 'z@galaxy.com' });
      await fetch(`${t.url}/page-reacts/v1/likes/${t.tenant.tenantId}?urlId=p1&sso=${encodeURIComponent(simple)}`);

      // A widget user made by single sign-on is listed and managed by the API.
      await fetch(`${t.url}/page-reacts/v1/likes/${t.tenant.tenantId}?urlId=p1&sso=${encodeURIComponent(securePayload(t.tenant.apiSecret, { id: 'trillian', username: 'trillian', email: 't@g.com' }))}`);
      const trillian = ok(await call<{ user: Json }>(t, 'GET', '/api/v1/sso-users/by-id/trillian')).user;
      assert.equal(trillian['isProfileActivityPrivate'], true);
      ok(await call(t, 'DELETE', '/api/v1/sso-users/trillian'));
      // Loading the widget again recreates the deleted user.
      await fetch(`${t.url}/page-reacts/v1/likes/${t.tenant.tenantId}?urlId=p1&sso=${encodeURIComponent(securePayload(t.tenant.apiSecret, { id: 'trillian', username: 'trillian2' }))}`);
      assert.equal(ok(await call<{ user: Json }>(t, 'GET', '/api/v1/sso-users/by-id/trillian')).user['username'], 'trillian2');
    });

    test("another tenant's key reaches none of these users", async () => {
      ok(await call(t, 'POST', '/api/v1/sso-users', { body: { id: 'mine', username: 'mine', email: 'mine@x.com' } }));
      const other = await t.addTenant();
      refused(await t.api('GET', '/api/v1/sso-users/by-id/mine', as(other)), 404, 'not-found');
      refused(await t.api('GET', '/api/v1/sso-users/by-email/mine%40x.com', as(other)), 404, 'not-found');
      refused(await t.api('PATCH', '/api/v1/sso-users/mine', { ...as(other), body: { username: 'hijack' } }), 404, 'not-found');
      refused(await t.api('DELETE', '/api/v1/sso-users/mine', as(other)), 404, 'not-found');
      assert.deepEqual(ok(await call<{ users: Json[] }>(t, 'GET', '/api/v1/sso-users', as(other))).users, []);
      refused(await t.api('GET', '/api/v1/sso-users/by-id/mine', as(other, t.tenant.tenantId)), 401, 'invalid-api-key');
      assert.equal(ok(await call<{ user: Json }>(t, 'GET', '/api/v1/sso-users/by-id/mine')).user['username'], 'mine');
    });
  });
}
