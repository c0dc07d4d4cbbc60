/**
 * The OAuth 2.1 authorization server as a client sees it (docs/oauth.md): the whole flow with
 * `oauth4webapi`, metadata, registration, client authentication, PKCE, redirect URIs, state,
 * scopes, the consent page and the token endpoint's refusals. Each rule its own test.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as oauth from 'oauth4webapi';
import { OAUTH_COLLECTIONS } from '../../actors/oauth/collections.js';
import { storages } from '../fixtures/server.js';
import { ok, refused } from './identity-helpers.js';
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
  register,
  signIn,
  tokenPost,
  withToken,
} from './oauth-helpers.js';

type Json = Record<string, unknown>;

for (const storage of storages()) {
  describe(`OAuth 2.1 clients' view on ${storage}`, () => {
    let f: OAuthFixture;
    before(async () => {
      f = await oauthFixture(storage);
    });
    after(async () => {
      await f?.close();
    });

    /** A code for `reg`, consented by the admin, not yet exchanged. */
    async function codeFor(reg: Awaited<ReturnType<typeof register>>, params: Record<string, string | undefined> = {}) {
      const pending = await authorizationUrl(f.as, reg, params);
      const back = await consent(pending, f.admin.cookie);
      return { pending, code: back.searchParams.get('code')! };
    }

    test('the whole flow with oauth4webapi: register, consent by form posts, exchange, call the API, refresh, revoke', async () => {
      const { t, as, admin } = f;
      const reg = await register(as);
      const tokens = await authorize(as, reg, admin.cookie);
      assert.equal(tokens.token_type, 'bearer');
      assert.equal(tokens.expires_in, 3600);
      assert.equal(tokens.scope, 'read write');
      assert.equal(typeof tokens.refresh_token, 'string');

      const me = ok(await t.api<Json>('GET', '/api/v1/me', withToken(tokens.access_token)));
      assert.equal(me['credential'], 'access-token');
      assert.equal(me['tenantId'], t.tenant.tenantId);
      assert.deepEqual(me['scopes'], ['read', 'write']);
      assert.equal((me['user'] as Json)['id'], admin.user['id']);
      assert.equal((me['user'] as Json)['username'], admin.user['username']);
      ok(await t.api('POST', '/api/v1/pages', { ...withToken(tokens.access_token), body: { urlId: '/oauth-flow', url: 'https://blog.example/oauth-flow', title: 'Made with a token' } }), 'a write with the token');

      const res = await oauth.refreshTokenGrantRequest(as, reg.client, reg.auth, tokens.refresh_token!, INSECURE);
      const refreshed = await oauth.processRefreshTokenResponse(as, reg.client, res);
      assert.notEqual(refreshed.access_token, tokens.access_token);
      assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
      ok(await t.api('GET', '/api/v1/pages', withToken(refreshed.access_token)), 'the refreshed token reads');

      const revoked = await oauth.revocationRequest(as, reg.client, reg.auth, refreshed.refresh_token!, INSECURE);
      assert.equal(revoked.status, 200);
      assert.equal(await revoked.clone().text(), '{}');
      await oauth.processRevocationResponse(revoked);
      for (const token of [tokens.access_token, refreshed.access_token]) refused(await t.api('GET', '/api/v1/me', withToken(token)), 401, 'token-revoked');
      await assert.rejects(oauth.processRefreshTokenResponse(as, reg.client, await oauth.refreshTokenGrantRequest(as, reg.client, reg.auth, refreshed.refresh_token!, INSECURE)), (err: oauth.ResponseBodyError) => err.error === 'invalid_grant');
    });

    test('metadata (RFC 8414): every endpoint, S256 only, the iss parameter, readable from any site', async () => {
      const res = await fetch(`${f.t.url}/.well-known/oauth-authorization-server`, { headers: { origin: 'https://elsewhere.example' } });
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      const meta = (await res.json()) as Json;
      assert.equal(meta['issuer'], f.t.url);
      for (const [name, path] of [['authorization_endpoint', '/oauth/authorize'], ['token_endpoint', '/oauth/token'], ['revocation_endpoint', '/oauth/revoke'], ['registration_endpoint', '/oauth/register']]) {
        assert.equal(meta[name], f.t.url + path);
      }
      assert.deepEqual(meta['code_challenge_methods_supported'], ['S256']);
      assert.deepEqual(meta['scopes_supported'], ['read', 'write']);
      assert.deepEqual(meta['grant_types_supported'], ['authorization_code', 'refresh_token']);
      assert.equal(meta['authorization_response_iss_parameter_supported'], true);
      const preflight = await fetch(`${f.t.url}/oauth/token`, { method: 'OPTIONS', headers: { origin: 'https://spa.example', 'access-control-request-method': 'POST' } });
      assert.deepEqual([preflight.status, preflight.headers.get('access-control-allow-origin')], [204, '*']);
    });

    test('registration (RFC 7591): 201; confidential clients get a secret, public ones none; secrets stored only as hashes', async () => {
      const post = (body: unknown, ip: string) => fetch(`${f.t.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': ip }, body: JSON.stringify(body) });
      const confidential = await post({ redirect_uris: ['https://c.example/cb'], client_name: 'Confidential', client_uri: 'https://c.example', logo_uri: 'https://c.example/logo.png', unknown_field: 1 }, '10.1.0.1');
      assert.equal(confidential.status, 201);
      const c = (await confidential.json()) as Json;
      assert.match(String(c['client_id']), /^fcc_/);
      assert.equal(c['token_endpoint_auth_method'], 'client_secret_basic', 'the RFC 7591 default');
      assert.equal(typeof c['client_secret'], 'string');
      assert.equal(c['client_secret_expires_at'], 0);
      assert.deepEqual(c['redirect_uris'], ['https://c.example/cb']);
      const stored = await f.t.server.services.store.get(OAUTH_COLLECTIONS.clients, String(c['client_id']));
      assert.ok(stored && !JSON.stringify(stored).includes(String(c['client_secret'])) && !('unknown_field' in stored));

      const pub = (await (await post({ redirect_uris: ['http://127.0.0.1/cb', 'com.example.app:/cb'], token_endpoint_auth_method: 'none' }, '10.1.0.2')).json()) as Json;
      assert.equal(pub['client_secret'], undefined);
      assert.equal(pub['token_endpoint_auth_method'], 'none');

      const refusals: [unknown, string][] = [
        [{}, 'invalid_redirect_uri'],
        [{ redirect_uris: [] }, 'invalid_redirect_uri'],
        [{ redirect_uris: ['http://app.example/cb'] }, 'invalid_redirect_uri'],
        [{ redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri'],
        [{ redirect_uris: ['https://app.example/cb#frag'] }, 'invalid_redirect_uri'],
        [{ redirect_uris: ['https://user:pw@app.example/cb'] }, 'invalid_redirect_uri'],
        [{ redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'private_key_jwt' }, 'invalid_client_metadata'],
        [{ redirect_uris: ['https://app.example/cb'], grant_types: ['client_credentials'] }, 'invalid_client_metadata'],
        [{ redirect_uris: ['https://app.example/cb'], scope: 'admin' }, 'invalid_client_metadata'],
        [{ redirect_uris: ['https://app.example/cb'], logo_uri: 'data:image/png,x' }, 'invalid_client_metadata'],
        [[1], 'invalid_request'],
      ];
      let n = 10;
      for (const [body, error] of refusals) {
        const res = await post(body, `10.1.0.${n++}`);
        oauthRefused({ status: res.status, body: (await res.json()) as Json }, 400, error, JSON.stringify(body));
      }
      const notJson = await fetch(`${f.t.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.1.0.99' }, body: '{' });
      oauthRefused({ status: notJson.status, body: (await notJson.json()) as Json }, 400, 'invalid_request');
    });

    test('registration is rate limited per address: 429 rate_limited with Retry-After', async () => {
      const post = (ip: string) => fetch(`${f.t.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': ip }, body: JSON.stringify({ redirect_uris: ['https://r.example/cb'] }) });
      // 4 an hour: one at once.
      assert.equal((await post('10.2.0.1')).status, 201);
      const limited = await post('10.2.0.1');
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get('retry-after')) > 0);
      assert.equal(((await limited.json()) as Json)['error'], 'rate_limited');
      assert.equal((await post('10.2.0.2')).status, 201, 'another address has its own budget');
    });

    test('confidential clients authenticate by client_secret_basic or client_secret_post; a wrong or missing secret is invalid_client (401)', async () => {
      for (const method of ['client_secret_basic', 'client_secret_post'] as const) {
        const reg = await register(f.as, method);
        const tokens = await authorize(f.as, reg, f.admin.cookie);
        ok(await f.t.api('GET', '/api/v1/me', withToken(tokens.access_token)), method);
      }
      const reg = await register(f.as, 'client_secret_basic');
      const secret = String(reg.client['client_secret']);
      const { pending, code } = await codeFor(reg);
      const base = { grant_type: 'authorization_code', code, redirect_uri: reg.redirectUri, code_verifier: pending.verifier };
      const basic = (id: string, pw: string) => ({ authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(pw)}`).toString('base64')}` });
      const wrong = await tokenPost(f.t, base, basic(reg.client.client_id, 'not-the-secret'));
      oauthRefused(wrong, 401, 'invalid_client');
      assert.match(wrong.headers.get('www-authenticate') ?? '', /^Basic /);
      oauthRefused(await tokenPost(f.t, { ...base, client_id: reg.client.client_id }), 401, 'invalid_client', 'no secret');
      oauthRefused(await tokenPost(f.t, { ...base, client_id: 'fcc_nosuchclientnosuchclient' , client_secret: secret }), 401, 'invalid_client', 'unknown client');
      oauthRefused(await tokenPost(f.t, { ...base, client_secret: secret }, basic(reg.client.client_id, secret)), 400, 'invalid_request', 'two methods at once');
      const good = await tokenPost(f.t, { ...base, client_id: reg.client.client_id, client_secret: secret });
      assert.equal(good.status, 200, JSON.stringify(good.body));
      assert.equal(good.headers.get('cache-control'), 'no-store');

      const pub = await register(f.as);
      const other = await codeFor(pub);
      oauthRefused(await tokenPost(f.t, { grant_type: 'authorization_code', code: other.code, redirect_uri: pub.redirectUri, code_verifier: other.pending.verifier, client_id: pub.client.client_id, client_secret: 'x' }), 401, 'invalid_client', 'a public client has no secret');
    });

    test('PKCE: S256 only; a request without a challenge or with plain is refused, a missing or wrong verifier too', async () => {
      const reg = await register(f.as);
      for (const params of [{ code_challenge: undefined, code_challenge_method: undefined }, { code_challenge_method: 'plain' }, { code_challenge_method: undefined }, { code_challenge: 'short' }]) {
        const pending = await authorizationUrl(f.as, reg, params);
        const res = await browse(pending.url, f.admin.cookie);
        assert.equal(res.status, 302, JSON.stringify(params));
        const back = new URL(res.headers.get('location')!);
        assert.equal(back.origin + back.pathname, reg.redirectUri);
        assert.deepEqual([back.searchParams.get('error'), back.searchParams.get('state')], ['invalid_request', pending.state], JSON.stringify(params));
      }
      const { pending, code } = await codeFor(reg);
      const base = { grant_type: 'authorization_code', code, redirect_uri: reg.redirectUri, client_id: reg.client.client_id };
      oauthRefused(await tokenPost(f.t, base), 400, 'invalid_request', 'no code_verifier');
      oauthRefused(await tokenPost(f.t, { ...base, code_verifier: oauth.generateRandomCodeVerifier() }), 400, 'invalid_grant', 'another verifier');
      assert.equal((await tokenPost(f.t, { ...base, code_verifier: pending.verifier })).status, 200, 'the right verifier still works');
    });

    test('redirect URIs match exactly: a mismatch is shown on the page, never redirected; the exchange must repeat the one used', async () => {
      const reg = await register(f.as);
      for (const uri of [`${reg.redirectUri}/more`, reg.redirectUri.replace('https:', 'http:'), `${reg.redirectUri}?x=1`]) {
        const res = await browse((await authorizationUrl(f.as, reg, { redirect_uri: uri })).url, f.admin.cookie);
        assert.equal(res.status, 400, uri);
        assert.equal(res.headers.get('location'), null);
        assert.match(res.headers.get('content-type')!, /^text\/html/);
        assert.match(await res.text(), /redirect_uri is not one of the redirect URIs/);
      }
      const unknown = await browse((await authorizationUrl(f.as, { ...reg, client: { ...reg.client, client_id: 'fcc_nosuchclientnosuchclient' } })).url, f.admin.cookie);
      assert.equal(unknown.status, 401);
      assert.equal(unknown.headers.get('location'), null);

      // Registered once: it may be left out, and then left out of the exchange too.
      const { pending, code } = await codeFor(reg, { redirect_uri: undefined });
      assert.equal((await tokenPost(f.t, { grant_type: 'authorization_code', code, code_verifier: pending.verifier, client_id: reg.client.client_id })).status, 200);
      const named = await codeFor(reg);
      const base = { grant_type: 'authorization_code', code: named.code, code_verifier: named.pending.verifier, client_id: reg.client.client_id };
      oauthRefused(await tokenPost(f.t, base), 400, 'invalid_grant', 'named at authorization, missing at the exchange');
      oauthRefused(await tokenPost(f.t, { ...base, redirect_uri: `${reg.redirectUri}/x` }), 400, 'invalid_grant', 'another at the exchange');

      // A native app's loopback redirect may name any port (RFC 8252).
      const native = await register(f.as, 'none', { redirect_uris: ['http://127.0.0.1:1234/cb'] });
      const other = await browse((await authorizationUrl(f.as, native, { redirect_uri: 'http://127.0.0.1:50123/cb' })).url, f.admin.cookie);
      assert.equal(other.status, 200, await other.text());
    });

    test('state and iss come back with the code and with a denial (access_denied); resource is accepted for this server only', async () => {
      const reg = await register(f.as);
      const pending = await authorizationUrl(f.as, reg, { resource: `${f.t.url}/api/v1` });
      const approved = await consent(pending, f.admin.cookie);
      assert.equal(approved.searchParams.get('state'), pending.state);
      assert.equal(approved.searchParams.get('iss'), f.t.url);
      assert.match(approved.searchParams.get('code')!, /^fcoc_/);
      const denied = await consent(await authorizationUrl(f.as, reg), f.admin.cookie, 'deny');
      assert.equal(denied.searchParams.get('error'), 'access_denied');
      assert.equal(denied.searchParams.get('code'), null);
      assert.throws(() => oauth.validateAuthResponse(f.as, reg.client, denied, denied.searchParams.get('state')!), (err: oauth.AuthorizationResponseError) => err.error === 'access_denied');
      const elsewhere = await browse((await authorizationUrl(f.as, reg, { resource: 'https://other.example/api' })).url, f.admin.cookie);
      assert.equal(new URL(elsewhere.headers.get('location')!).searchParams.get('error'), 'invalid_target');
      oauthRefused(await tokenPost(f.t, { grant_type: 'authorization_code', code: approved.searchParams.get('code')!, code_verifier: pending.verifier, redirect_uri: reg.redirectUri, client_id: reg.client.client_id, resource: 'https://other.example/' }), 400, 'invalid_target');
      const wrongState = () => oauth.validateAuthResponse(f.as, reg.client, approved, 'another-state');
      assert.throws(wrongState, /state/);
    });

    test('scopes: none asked means read and write; read alone cannot write (403); anything else is invalid_scope', async () => {
      const reg = await register(f.as);
      const both = await authorize(f.as, reg, f.admin.cookie, { scope: undefined });
      assert.equal(both.scope, 'read write');
      const readOnly = await authorize(f.as, reg, f.admin.cookie, { scope: 'read' });
      assert.equal(readOnly.scope, 'read');
      ok(await f.t.api('GET', '/api/v1/pages', withToken(readOnly.access_token)));
      const cannot = await f.t.api('POST', '/api/v1/pages', { ...withToken(readOnly.access_token), body: { urlId: '/nope', url: 'https://blog.example/nope', title: 'x' } });
      refused(cannot, 403, 'insufficient-scope');
      assert.equal(cannot.headers.get('www-authenticate'), 'Bearer error="insufficient_scope", scope="write"');
      const writeOnly = await authorize(f.as, reg, f.admin.cookie, { scope: 'write' });
      refused(await f.t.api('GET', '/api/v1/pages', withToken(writeOnly.access_token)), 403, 'insufficient-scope');
      for (const scope of ['admin', 'read admin', 'READ']) {
        const pending = await authorizationUrl(f.as, reg, { scope });
        const back = new URL((await browse(pending.url, f.admin.cookie)).headers.get('location')!);
        assert.deepEqual([back.searchParams.get('error'), back.searchParams.get('state')], ['invalid_scope', pending.state], scope);
      }
      const wider = await tokenPost(f.t, { grant_type: 'refresh_token', refresh_token: readOnly.refresh_token!, scope: 'read write', client_id: reg.client.client_id });
      oauthRefused(wider, 400, 'invalid_scope', 'a refresh cannot widen the grant');
      const narrower = await tokenPost(f.t, { grant_type: 'refresh_token', refresh_token: both.refresh_token!, scope: 'read', client_id: reg.client.client_id });
      assert.equal(narrower.body['scope'], 'read');
    });

    test('the consent page: a signed-in API Admin only, plain HTML without script, never framed, forms checked against CSRF', async () => {
      const reg = await register(f.as);
      const pending = await authorizationUrl(f.as, reg);
      const page = await browse(pending.url, f.admin.cookie);
      const html = await page.text();
      assert.equal(page.headers.get('x-frame-options'), 'DENY');
      assert.match(page.headers.get('content-security-policy')!, /frame-ancestors 'none'/);
      assert.equal(page.headers.get('cache-control'), 'no-store');
      assert.doesNotMatch(html, /<script/i);
      assert.match(html, /<form method="post" action="\/oauth\/authorize">/);
      assert.match(html, /Test app/);

      const signedOut = await browse(pending.url, null);
      assert.equal(signedOut.status, 401);
      assert.match(await signedOut.text(), /Sign in first/);
      const plain = await signIn(f.t, f.sink, { isAPIAdmin: false });
      const notAdmin = await browse(pending.url, plain.cookie);
      assert.equal(notAdmin.status, 403);
      assert.match(await notAdmin.text(), /API Admin/);
      assert.equal(notAdmin.headers.get('x-frame-options'), 'DENY', 'error pages too');

      const fields = formFields(html);
      const without: Record<string, string> = { ...fields, decision: 'approve' };
      delete without['csrf'];
      for (const [what, cookie, form] of [
        ['no CSRF token', f.admin.cookie, without],
        ["another session's token", f.admin.cookie, { ...fields, decision: 'approve', csrf: formFields(await (await browse(pending.url, (await signIn(f.t, f.sink)).cookie)).text())['csrf']! }],
      ] as const) {
        const res = await postForm(new URL('/oauth/authorize', f.t.url), cookie, form);
        assert.deepEqual([res.status, res.headers.get('location')], [403, null], what);
        assert.match(await res.text(), /csrf-invalid/);
      }
      const crossSite = await postForm(new URL('/oauth/authorize', f.t.url), null, { ...fields, decision: 'approve' });
      assert.equal(crossSite.status, 401, 'a post without the session cookie');
      const answered = await postForm(new URL('/oauth/authorize', f.t.url), f.admin.cookie, { ...fields, decision: 'approve' });
      assert.equal(answered.status, 303);
    });

    test('the token endpoint takes form posts of the two grant types only', async () => {
      const json = await fetch(`${f.t.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'refresh_token' }) });
      oauthRefused({ status: json.status, body: (await json.json()) as Json }, 400, 'invalid_request', 'JSON body');
      const reg = await register(f.as);
      oauthRefused(await tokenPost(f.t, { client_id: reg.client.client_id }), 400, 'invalid_request', 'no grant_type');
      oauthRefused(await tokenPost(f.t, { grant_type: 'client_credentials', client_id: reg.client.client_id }), 400, 'unsupported_grant_type');
      oauthRefused(await tokenPost(f.t, { grant_type: 'authorization_code', code: 'fcoc_x.y.z', code_verifier: oauth.generateRandomCodeVerifier(), client_id: reg.client.client_id }), 400, 'invalid_grant');
      const repeated = await fetch(`${f.t.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `grant_type=refresh_token&refresh_token=a&refresh_token=b&client_id=${reg.client.client_id}` });
      oauthRefused({ status: repeated.status, body: (await repeated.json()) as Json }, 400, 'invalid_request', 'a repeated parameter');
    });
  });
}

