/**
 * What happens to a grant and its tokens (docs/oauth.md): codes used once within 10 minutes,
 * refresh rotation with its grace window and replay detection, concurrent refreshes, API Admin
 * re-checked, partner clients, revocation, the bearer rules, connected apps, user deletion,
 * storage of hashes only, and the sweep. Each rule its own test.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import * as oauth from 'oauth4webapi';
import { OAUTH_COLLECTIONS } from '../../actors/oauth/collections.js';
import type { GrantDoc } from '../../actors/oauth/grant-protocol.js';
import { parseToken } from '../../actors/oauth/oauth-tokens.js';
import { OAuthSweeperKind } from '../../actors/oauth/sweeper.js';
import { clock } from '../../engine/clock.js';
import { repoFile } from '../fixtures/paths.js';
import { storages } from '../fixtures/server.js';
import { as, ok, refused } from './identity-helpers.js';
import {
  authorizationUrl,
  authorize,
  browse,
  consent,
  formFields,
  INSECURE,
  oauthFixture,
  type OAuthFixture,
  oauthRefused,
  postForm,
  refresh,
  register,
  type RegisteredClient,
  signIn,
  tokenPost,
  withToken,
} from './oauth-helpers.js';

type Json = Record<string, unknown>;
const run = promisify(execFile);

/** Runs `fn` with the server's clock moved `ms` ahead. */
async function later<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  const restore = clock.set(() => Date.now() + ms);
  try {
    return await fn();
  } finally {
    restore();
  }
}

/**
 * Runs `fn` with the server's clock stopped, moved only by the `advance` it is given: a test of
 * the 30-second grace must not depend on how fast the machine answers.
 */
async function frozen<T>(fn: (advance: (ms: number) => void) => Promise<T>): Promise<T> {
  let now = Date.now();
  const restore = clock.set(() => now);
  try {
    return await fn((ms) => {
      now += ms;
    });
  } finally {
    restore();
  }
}

for (const storage of storages()) {
  describe(`OAuth grants and tokens on ${storage}`, () => {
    let f: OAuthFixture;
    before(async () => {
      f = await oauthFixture(storage);
    });
    after(async () => {
      await f?.close();
    });

    const me = (token: string) => f.t.api('GET', '/api/v1/me', withToken(token));
    const grantOf = (token: string) => f.t.server.services.store.get<GrantDoc>(OAUTH_COLLECTIONS.grants, parseToken(token)!.grantId);
    const refreshRaw = (reg: RegisteredClient, token: string) => tokenPost(f.t, { grant_type: 'refresh_token', refresh_token: token, client_id: reg.client.client_id });

    test('a code works once: a second exchange is invalid_grant and revokes every token the first produced', async () => {
      const reg = await register(f.as);
      const pending = await authorizationUrl(f.as, reg);
      const back = await consent(pending, f.admin.cookie);
      const exchange = { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: reg.redirectUri, code_verifier: pending.verifier, client_id: reg.client.client_id };
      const first = await tokenPost(f.t, exchange);
      assert.equal(first.status, 200);
      const refreshed = await refreshRaw(reg, String(first.body['refresh_token']));
      assert.equal(refreshed.status, 200);
      ok(await me(String(refreshed.body['access_token'])));
      oauthRefused(await tokenPost(f.t, exchange), 400, 'invalid_grant', 'the replay');
      for (const token of [first.body['access_token'], refreshed.body['access_token']]) refused(await me(String(token)), 401, 'token-revoked');
      oauthRefused(await refreshRaw(reg, String(refreshed.body['refresh_token'])), 400, 'invalid_grant', 'the descendants of the code');
    });

    test('a code lasts 10 minutes', async () => {
      const reg = await register(f.as);
      const pending = await authorizationUrl(f.as, reg);
      const code = (await consent(pending, f.admin.cookie)).searchParams.get('code')!;
      const exchange = { grant_type: 'authorization_code', code, redirect_uri: reg.redirectUri, code_verifier: pending.verifier, client_id: reg.client.client_id };
      const late = await later(10 * 60_000 + 1000, () => tokenPost(f.t, exchange));
      oauthRefused(late, 400, 'invalid_grant');
      assert.match(String(late.body['error_description']), /expired/);
      assert.equal((await later(9 * 60_000, () => tokenPost(f.t, exchange))).status, 200, 'within 10 minutes');
      const other = await register(f.as);
      oauthRefused(await tokenPost(f.t, { ...exchange, client_id: other.client.client_id }), 400, 'invalid_grant', "another client's code");
    });

    test('refresh rotates; within 30 seconds the replaced token gets the current pair back, not a new branch', () =>
      frozen(async (advance) => {
        const reg = await register(f.as);
        const t0 = await authorize(f.as, reg, f.admin.cookie);
        advance(1000);
        const t1 = await refresh(f.as, reg, t0.refresh_token!);
        assert.notEqual(t1.refresh_token, t0.refresh_token);
        advance(1000);
        const retry = await refresh(f.as, reg, t0.refresh_token!);
        assert.deepEqual([retry.access_token, retry.refresh_token], [t1.access_token, t1.refresh_token], 'the retry gets the pair the first use made');
        assert.equal(retry.expires_in, 3599, 'what the access token has left');
        advance(1000);
        const t2 = await refresh(f.as, reg, t1.refresh_token!);
        advance(28_000);
        const oldest = await refresh(f.as, reg, t0.refresh_token!);
        assert.deepEqual([oldest.access_token, oldest.refresh_token], [t2.access_token, t2.refresh_token], 'at 30 s after its rotation: followed to the current pair');
        const grant = await grantOf(t2.refresh_token!);
        assert.equal(grant!.rotated.length, 2);
        for (const token of [t0, t1, t2]) ok(await me(token.access_token), 'access tokens of a grant live their hour');
        advance(1);
        oauthRefused(await refreshRaw(reg, t0.refresh_token!), 400, 'invalid_grant', 'a moment later: a replay');
        oauthRefused(await refreshRaw(reg, t2.refresh_token!), 400, 'invalid_grant', 'which revoked the grant');
      }));

    test('a refresh token rotated over 30 seconds ago, presented again, revokes the whole grant', async () => {
      const reg = await register(f.as);
      const t0 = await authorize(f.as, reg, f.admin.cookie);
      const t1 = await refresh(f.as, reg, t0.refresh_token!);
      const replay = await later(31_000, () => refreshRaw(reg, t0.refresh_token!));
      oauthRefused(replay, 400, 'invalid_grant');
      assert.match(String(replay.body['error_description']), /revoked/);
      oauthRefused(await refreshRaw(reg, t1.refresh_token!), 400, 'invalid_grant', 'the current token went with the grant');
      for (const token of [t0, t1]) refused(await me(token.access_token), 401, 'token-revoked');
      assert.notEqual((await grantOf(t1.refresh_token!))!.revokedAt, null);
    });

    test('concurrent refreshes of one token make exactly one new branch', () =>
      frozen(async () => {
        const reg = await register(f.as);
        const t0 = await authorize(f.as, reg, f.admin.cookie);
        const answers = await Promise.all(Array.from({ length: 8 }, () => refreshRaw(reg, t0.refresh_token!)));
        for (const a of answers) assert.equal(a.status, 200, JSON.stringify(a.body));
        assert.equal(new Set(answers.map((a) => a.body['refresh_token'])).size, 1, 'one new refresh token');
        assert.equal(new Set(answers.map((a) => a.body['access_token'])).size, 1, 'one new access token');
        const grant = await grantOf(t0.refresh_token!);
        assert.equal(grant!.rotated.length, 1);
        const issued = await f.t.server.services.store.find(OAUTH_COLLECTIONS.accessTokens, { grantId: grant!._id });
        assert.equal(issued.length, 2, 'the exchange and one refresh');
        assert.equal((await refreshRaw(reg, String(answers[0]!.body['refresh_token']))).status, 200);
      }));

    test('each refresh re-checks API Admin: once it is removed, the grant is revoked and the refresh is invalid_grant', async () => {
      const user = await signIn(f.t, f.sink);
      const reg = await register(f.as);
      const t0 = await authorize(f.as, reg, user.cookie);
      ok(await f.t.api('PATCH', `/api/v1/tenant-users/${String(user.user['id'])}`, { body: { isAPIAdmin: false } }));
      const res = await refreshRaw(reg, t0.refresh_token!);
      oauthRefused(res, 400, 'invalid_grant');
      assert.match(String(res.body['error_description']), /API Admin/);
      refused(await me(t0.access_token), 401, 'token-revoked');
      ok(await f.t.api('PATCH', `/api/v1/tenant-users/${String(user.user['id'])}`, { body: { isAPIAdmin: true } }));
      oauthRefused(await refreshRaw(reg, t0.refresh_token!), 400, 'invalid_grant', 'restoring the permission does not restore the grant');
    });

    test("partner clients (the operator's command) get the same refresh token back, its life extended by 30 days", async () => {
      const config = f.t.server.services.config;
      const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: config.dataDir, MONGODB_URI: config.mongodbUri ?? '', MONGODB_DB: config.mongodbDb ?? '' };
      const { stdout } = await run(process.execPath, [repoFile('dist/cli.js'), 'oauth-client', 'create', '--name', 'Partner', '--redirect-uris', 'https://partner.example/cb,https://partner.example/cb2'], { env });
      const created = JSON.parse(stdout) as { clientId: string; clientSecret: string; partner: boolean };
      assert.equal(created.partner, true);
      const client: oauth.Client = { client_id: created.clientId };
      const reg: RegisteredClient = { client, auth: oauth.ClientSecretBasic(created.clientSecret), redirectUri: 'https://partner.example/cb2' };
      const t0 = await authorize(f.as, reg, f.admin.cookie);
      const before = (await grantOf(t0.refresh_token!))!.refreshExpiresAt;
      const t1 = await later(24 * 3600_000, () => refresh(f.as, reg, t0.refresh_token!));
      assert.equal(t1.refresh_token, t0.refresh_token);
      assert.notEqual(t1.access_token, t0.access_token);
      const extended = (await grantOf(t0.refresh_token!))!.refreshExpiresAt;
      assert.ok(extended - before >= 24 * 3600_000 - 5000 && extended - before <= 24 * 3600_000 + 60_000, `${extended - before}`);
      const t2 = await later(29 * 24 * 3600_000, () => refresh(f.as, reg, t0.refresh_token!));
      assert.equal(t2.refresh_token, t0.refresh_token, 'in the days the first extension added');
      const unused = () => tokenPost(f.t, { grant_type: 'refresh_token', refresh_token: t0.refresh_token!, client_id: created.clientId, client_secret: created.clientSecret });
      oauthRefused(await later(90 * 24 * 3600_000, unused), 400, 'invalid_grant', 'unused for 30 days');
      await assert.rejects(run(process.execPath, [repoFile('dist/cli.js'), 'oauth-client', 'create', '--name', 'Bad', '--redirect-uris', 'http://bad.example/cb'], { env }), /http is allowed only for loopback/);
    });

    test('revocation (RFC 7009): 200 {} found or not; an access token alone, or a refresh token with every access token of its grant', async () => {
      const reg = await register(f.as);
      const revoke = (token: string, who: RegisteredClient = reg) => oauth.revocationRequest(f.as, who.client, who.auth, token, INSECURE);
      for (const token of ['nothing-like-a-token', 'fcor_x.000000000000000000000000.' + 'a'.repeat(43)]) {
        const res = await revoke(token);
        assert.deepEqual([res.status, await res.text()], [200, '{}']);
      }
      const t0 = await authorize(f.as, reg, f.admin.cookie);
      const t1 = await refresh(f.as, reg, t0.refresh_token!);
      await oauth.processRevocationResponse(await revoke(t1.access_token));
      refused(await me(t1.access_token), 401, 'token-revoked');
      ok(await me(t0.access_token), 'only that access token');
      const t2 = await refresh(f.as, reg, t1.refresh_token!);

      const other = await register(f.as, 'client_secret_post');
      await oauth.processRevocationResponse(await revoke(t2.refresh_token!, other));
      ok(await me(t2.access_token), "another client's revocation changes nothing");
      const noSecret = await fetch(`${f.t.url}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: t2.refresh_token!, client_id: other.client.client_id }) });
      assert.deepEqual([noSecret.status, ((await noSecret.json()) as Json)['error']], [401, 'invalid_client']);

      await oauth.processRevocationResponse(await revoke(t2.refresh_token!));
      for (const token of [t0, t2]) refused(await me(token.access_token), 401, 'token-revoked');
      oauthRefused(await refreshRaw(reg, t2.refresh_token!), 400, 'invalid_grant');
      const again = await revoke(t2.refresh_token!);
      assert.deepEqual([again.status, await again.text()], [200, '{}'], 'revoking twice');
    });

    test('bearer tokens: tenantId must be the token’s, an expired token is 401, other tenants stay out of reach', async () => {
      const reg = await register(f.as);
      const t0 = await authorize(f.as, reg, f.admin.cookie);
      const tenantId = f.t.tenant.tenantId;
      ok(await f.t.api('GET', '/api/v1/me', { ...withToken(t0.access_token), query: { tenantId } }));
      const other = await f.t.addTenant({ name: 'Other' });
      refused(await f.t.api('GET', '/api/v1/me', { ...withToken(t0.access_token), query: { tenantId: other.tenantId } }), 403, 'tenant-id-mismatch');
      refused(await f.t.api('GET', '/api/v1/pages', { auth: 'none', headers: { authorization: `Bearer ${t0.access_token}`, 'x-tenant-id': other.tenantId } }), 403, 'tenant-id-mismatch');
      ok(await f.t.api('GET', '/api/v1/me', as(other)), "the other tenant's key still works");
      const expired = await later(3600_000 + 1000, () => me(t0.access_token));
      refused(expired, 401, 'token-expired');
      assert.match(expired.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_token"/, 'RFC 6750 challenge');
      refused(await me(`${t0.access_token}x`), 401, 'invalid-token');
    });

    test("a bearer token spends its tenant's credits and is refused with 402 once they are spent", async () => {
      const limited = await f.t.addTenant({ name: 'Limited', monthlyCredits: 12 });
      const user = await signIn(f.t, f.sink, { isAPIAdmin: true }, limited);
      const t0 = await authorize(f.as, await register(f.as), user.cookie);
      const statuses: number[] = [];
      for (let i = 0; i < 14 && statuses.at(-1) !== 402; i++) statuses.push((await f.t.api('GET', '/api/v1/pages', withToken(t0.access_token))).status);
      assert.equal(statuses.at(-1), 402, statuses.join(' '));
      assert.ok(statuses.slice(0, -1).every((s) => s === 200), statuses.join(' '));
      refused(await f.t.api('GET', '/api/v1/pages', withToken(t0.access_token)), 402, 'credits-exhausted');
    });

    test('connected apps: the signed-in user sees their apps and disconnects one with a form post', async () => {
      const user = await signIn(f.t, f.sink);
      const reg = await register(f.as, 'none', { client_name: 'Dashboard <b>app</b>' });
      const t0 = await authorize(f.as, reg, user.cookie);
      const page = await browse(`${f.t.url}/oauth/connected-apps`, user.cookie);
      const html = await page.text();
      assert.equal(page.status, 200);
      assert.equal(page.headers.get('x-frame-options'), 'DENY');
      assert.match(html, /Dashboard &lt;b&gt;app&lt;\/b&gt;/, 'names are escaped');
      const fields = formFields(html);
      assert.equal(fields['grant_id'], parseToken(t0.refresh_token!)!.grantId);

      assert.equal((await browse(`${f.t.url}/oauth/connected-apps`, null)).status, 401);
      assert.doesNotMatch(await (await browse(`${f.t.url}/oauth/connected-apps`, f.admin.cookie)).text(), /Dashboard/, "another user's list");
      const forged = await postForm(`${f.t.url}/oauth/connected-apps/revoke`, user.cookie, { grant_id: fields['grant_id']! });
      assert.equal(forged.status, 403, 'no CSRF token');
      const notMine = await postForm(`${f.t.url}/oauth/connected-apps/revoke`, f.admin.cookie, { grant_id: fields['grant_id']!, csrf: formFields(await (await browse(authorizationUrlFor(reg), f.admin.cookie)).text())['csrf']! });
      assert.equal(notMine.status, 404, "another user's app");
      ok(await me(t0.access_token));

      const done = await postForm(`${f.t.url}/oauth/connected-apps/revoke`, user.cookie, fields);
      assert.deepEqual([done.status, done.headers.get('location')], [303, '/oauth/connected-apps?revoked=1']);
      refused(await me(t0.access_token), 401, 'token-revoked');
      oauthRefused(await refreshRaw(reg, t0.refresh_token!), 400, 'invalid_grant');
      assert.doesNotMatch(await (await browse(`${f.t.url}/oauth/connected-apps?revoked=1`, user.cookie)).text(), /Dashboard/);
    });

    /** A consent page URL for `reg` (any one: its form carries the session's CSRF token). */
    function authorizationUrlFor(reg: RegisteredClient): string {
      return `${f.t.url}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: reg.client.client_id, redirect_uri: reg.redirectUri, code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' })}`;
    }

    test('deleting a tenant user revokes the apps it connected', async () => {
      const user = await signIn(f.t, f.sink);
      const reg = await register(f.as);
      const t0 = await authorize(f.as, reg, user.cookie);
      ok(await f.t.api('DELETE', `/api/v1/tenant-users/${String(user.user['id'])}`));
      refused(await me(t0.access_token), 401, 'token-revoked');
      oauthRefused(await refreshRaw(reg, t0.refresh_token!), 400, 'invalid_grant');
    });

    test('codes, tokens and client secrets are stored only as hashes', async () => {
      const reg = await register(f.as, 'client_secret_post');
      const pending = await authorizationUrl(f.as, reg);
      const code = (await consent(pending, f.admin.cookie)).searchParams.get('code')!;
      const secret = String(reg.client['client_secret']);
      const res = await tokenPost(f.t, { grant_type: 'authorization_code', code, redirect_uri: reg.redirectUri, code_verifier: pending.verifier, client_id: reg.client.client_id, client_secret: secret });
      const t1 = await refresh(f.as, reg, String(res.body['refresh_token']));
      const secrets = [code, secret, String(res.body['access_token']), String(res.body['refresh_token']), t1.access_token, t1.refresh_token!].map((s) => s.slice(s.lastIndexOf('.') + 1));
      const store = f.t.server.services.store;
      for (const collection of Object.values(OAUTH_COLLECTIONS)) {
        const text = JSON.stringify(await store.find(collection, {}));
        for (const s of secrets) assert.ok(!text.includes(s), `${collection} holds a secret in the clear`);
      }
    });

    test('expired access tokens and grants are swept', async () => {
      const reg = await register(f.as);
      const t0 = await authorize(f.as, reg, f.admin.cookie);
      const abandoned = await authorizationUrl(f.as, reg);
      await consent(abandoned, f.admin.cookie);
      const store = f.t.server.services.store;
      const grantId = parseToken(t0.refresh_token!)!.grantId;
      const sweep = () => f.t.server.services.system.ask(OAuthSweeperKind, 'all', 'sweep', null);
      await later(2 * 3600_000, sweep);
      assert.equal((await store.find(OAUTH_COLLECTIONS.accessTokens, { grantId })).length, 0, 'the access token is gone after its hour');
      assert.ok(await store.get(OAUTH_COLLECTIONS.grants, grantId), 'the grant lives while its refresh token does');
      const { removed } = await later(31 * 24 * 3600_000, sweep);
      assert.ok(removed > 0);
      assert.equal(await store.get(OAUTH_COLLECTIONS.grants, grantId), undefined);
      assert.equal((await store.find(OAUTH_COLLECTIONS.grants, { expiresAt: { $lt: Date.now() + 31 * 24 * 3600_000 } })).length, 0);
    });
  });
}
