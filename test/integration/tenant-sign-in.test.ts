import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { USER_TOKENS } from '../../actors/user/user-tokens.js';
import { clock } from '../../engine/clock.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { type Received, SmtpSink } from '../fixtures/smtp-sink.js';
import { as, call, linkIn, ok, refused } from './identity-helpers.js';

type Json = Record<string, unknown>;

for (const storage of storages()) {
  describe(`tenant users' login links and sessions on ${storage}`, () => {
    let t: TestServer;
    let sink: SmtpSink;
    let n = 0;
    before(async () => {
      sink = await SmtpSink.start();
      t = await startTestServer(storage, { smtpUrl: sink.url, trustProxy: true });
    });
    after(async () => {
      await t?.destroy();
      await sink.close();
    });

    /** A tenant user, sent a login link: answers the user and the link from the email. */
    async function linkFor(query: Json = {}): Promise<{ user: Json; link: string; email: string }> {
      const email = `signer${++n}@example.com`;
      const user = ok(await call<{ tenantUser: Json }>(t, 'POST', '/api/v1/tenant-users', { body: { username: `signer${n}`, email } })).tenantUser;
      ok(await call(t, 'POST', `/api/v1/tenant-users/${user['id']}/send-login-link`, { query: query as Record<string, string> }));
      const got = await sink.waitFor((r: Received) => r.rcptTo.includes(email), 'the login link');
      return { user, link: linkIn(got, '/auth/login-link/'), email };
    }

    const session = (cookie: string) => fetch(`${t.url}/auth/tenant-session`, { headers: { cookie } });

    test('the emailed link signs the user in once, with an HttpOnly SameSite=Lax session cookie the server reads back', async () => {
      const { user, link } = await linkFor({ redirectURL: 'https://app.example.com/welcome' });
      const opened = await fetch(link);
      assert.equal(opened.status, 200, await opened.clone().text());
      const body = (await opened.json()) as Json;
      assert.equal((body['user'] as Json)['id'], user['id']);
      assert.equal(body['redirectURL'], 'https://app.example.com/welcome');
      const setCookie = opened.headers.get('set-cookie')!;
      assert.match(setCookie, /^fc_tenant_session=[A-Za-z0-9_-]{43};/);
      assert.match(setCookie, /HttpOnly/);
      assert.match(setCookie, /SameSite=Lax/);
      assert.doesNotMatch(setCookie, /Secure/, 'plain http');
      const cookie = setCookie.split(';')[0]!;
      const me = await session(cookie);
      assert.equal(me.status, 200);
      assert.equal((((await me.json()) as Json)['user'] as Json)['username'], user['username']);

      const again = await fetch(link);
      assert.deepEqual([again.status, ((await again.json()) as Json)['code']], [410, 'login-link-used']);
      // Secrets are stored only as hashes.
      const secret = link.split('/').pop()!;
      for (const doc of await t.server.services.store.find(USER_TOKENS, {})) assert.ok(!JSON.stringify(doc).includes(secret) && !JSON.stringify(doc).includes(cookie.split('=')[1]!));

      const out = await fetch(`${t.url}/auth/sign-out`, { method: 'POST', headers: { cookie } });
      assert.equal(out.status, 200);
      assert.match(out.headers.get('set-cookie')!, /Max-Age=0/);
      const ended = await session(cookie);
      assert.deepEqual([ended.status, ((await ended.json()) as Json)['code']], [401, 'not-signed-in']);
    });

    test('behind an https proxy the cookie is Secure; sessions end with the user; links expire after 30 days', async () => {
      const { user, link } = await linkFor();
      const opened = await fetch(link, { headers: { 'x-forwarded-proto': 'https' } });
      assert.match(opened.headers.get('set-cookie')!, /; Secure/);
      const cookie = opened.headers.get('set-cookie')!.split(';')[0]!;
      assert.equal((await session(cookie)).status, 200);
      ok(await call(t, 'DELETE', `/api/v1/tenant-users/${user['id']}`));
      assert.equal((await session(cookie)).status, 401, 'a deleted user is signed in nowhere');

      const late = await linkFor();
      const restore = clock.set(() => Date.now() + 31 * 86_400_000);
      try {
        const res = await fetch(late.link);
        assert.deepEqual([res.status, ((await res.json()) as Json)['code']], [410, 'login-link-expired']);
      } finally {
        restore();
      }
      const forged = await fetch(`${t.url}/auth/login-link/${'b'.repeat(43)}`);
      assert.deepEqual([forged.status, ((await forged.json()) as Json)['code']], [404, 'login-link-invalid']);
      assert.equal((await session('fc_tenant_session=nonsense')).status, 401);
    });

    test('send-login-link: only for a tenant user of a tenant the caller reaches', async () => {
      refused(await t.api('POST', '/api/v1/tenant-users/nobody/send-login-link'), 404, 'not-found');
      ok(await call(t, 'POST', '/api/v1/sso-users', { body: { id: 'ssoer', username: 'ssoer', email: 'ssoer@example.com' } }));
      refused(await t.api('POST', `/api/v1/tenant-users/${t.tenant.tenantId}:ssoer/send-login-link`), 404, 'not-found', 'not a tenant user');
      const user = ok(await call<{ tenantUser: Json }>(t, 'POST', '/api/v1/tenant-users', { body: { username: 'mine', email: 'mine@example.com' } })).tenantUser;
      const other = await t.addTenant({ name: 'Other' });
      refused(await t.api('POST', `/api/v1/tenant-users/${user['id']}/send-login-link`, as(other)), 404, 'not-found');
      refused(await t.api('POST', `/api/v1/tenant-users/${user['id']}/send-login-link`, { query: { redirectURL: 'javascript:alert(1)' } }), 400, 'invalid-url');
    });
  });
}
