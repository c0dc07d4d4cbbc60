/**
 * What the OAuth tests share: a signed-in tenant user (through the real login link), an
 * `oauth4webapi` client of the test server, and the consent page driven by form posts as a
 * browser would (no script: GET the page, read its form, POST it, follow nothing).
 */
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import type { Config } from '../../engine/config.js';
import { startTestServer, type StorageName, type TestServer } from '../fixtures/server.js';
import { type Received, SmtpSink } from '../fixtures/smtp-sink.js';
import type { ProvisionedTenant } from '../../actors/tenant/provision.js';
import { as, call, linkIn, ok } from './identity-helpers.js';

type Json = Record<string, unknown>;

/** oauth4webapi refuses http unless told: the test server is plain http on loopback. */
export const INSECURE = { [oauth.allowInsecureRequests]: true } as const;

/** A tenant user and the session cookie a login link opened for it. */
export interface SignedIn {
  readonly user: Json;
  readonly cookie: string;
}

let people = 0;

/**
 * Creates a tenant user (API Admin unless told otherwise) of the test tenant, or of `tenant`,
 * emails it a login link, opens it: the session cookie.
 */
export async function signIn(t: TestServer, sink: SmtpSink, fields: Json = { isAPIAdmin: true }, tenant?: ProvisionedTenant): Promise<SignedIn> {
  const n = ++people;
  const email = `oauth-user-${n}-${t.storage}@example.com`;
  const key = tenant === undefined ? {} : as(tenant);
  const user = ok(await call<{ tenantUser: Json }>(t, 'POST', '/api/v1/tenant-users', { ...key, body: { username: `oauth-user-${n}-${t.storage}`, email, ...fields } })).tenantUser;
  ok(await call(t, 'POST', `/api/v1/tenant-users/${String(user['id'])}/send-login-link`, key));
  const got = await sink.waitFor((r: Received) => r.rcptTo.includes(email), 'the login link');
  const opened = await fetch(linkIn(got, '/auth/login-link/'));
  assert.equal(opened.status, 200, await opened.clone().text());
  return { user, cookie: opened.headers.get('set-cookie')!.split(';')[0]! };
}

/** The authorization server as the client library discovers it. */
export async function discover(t: TestServer): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(t.url);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...INSECURE }));
}

/** A client registered dynamically, with how it authenticates. */
export interface RegisteredClient {
  readonly client: oauth.Client;
  readonly auth: oauth.ClientAuth;
  readonly redirectUri: string;
}

/**
 * Registers a client (public unless `method` says otherwise) through the registration endpoint,
 * from an address of its own (`X-Forwarded-For`, for servers that trust it): registrations are
 * limited per address.
 */
export async function register(as: oauth.AuthorizationServer, method: 'none' | 'client_secret_basic' | 'client_secret_post' = 'none', extra: Json = {}): Promise<RegisteredClient> {
  const n = ++people;
  const redirectUri = `https://app.example/callback/${n}`;
  const headers = { 'x-forwarded-for': `10.77.${(n >> 8) & 255}.${n & 255}` };
  const res = await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [redirectUri], client_name: 'Test app', token_endpoint_auth_method: method, ...extra }, { ...INSECURE, headers });
  const client = (await oauth.processDynamicClientRegistrationResponse(res)) as oauth.Client;
  const secret = client['client_secret'] as string | undefined;
  const auth = method === 'none' ? oauth.None() : method === 'client_secret_basic' ? oauth.ClientSecretBasic(secret!) : oauth.ClientSecretPost(secret!);
  return { client, auth, redirectUri };
}

/** An authorization request being made: its URL, and what the client keeps to finish it. */
export interface Pending {
  readonly url: URL;
  readonly state: string;
  readonly verifier: string;
}

/** The authorization URL the client sends the browser to (PKCE S256, a state); `params` add or override (undefined removes). */
export async function authorizationUrl(as: oauth.AuthorizationServer, reg: RegisteredClient, params: Record<string, string | undefined> = {}): Promise<Pending> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  const all: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: reg.client.client_id,
    redirect_uri: reg.redirectUri,
    scope: 'read write',
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...params,
  };
  for (const [name, value] of Object.entries(all)) if (value !== undefined) url.searchParams.set(name, value);
  return { url, state, verifier };
}

const ENTITIES: Readonly<Record<string, string>> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** The hidden fields of the first form of a page, as a browser would send them. */
export function formFields(page: string): Record<string, string> {
  const form = /<form[^>]*>([\s\S]*?)<\/form>/.exec(page);
  assert.ok(form, `no form in ${page.slice(0, 500)}`);
  const fields: Record<string, string> = {};
  for (const m of form[1]!.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    fields[m[1]!] = m[2]!.replace(/&(?:amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]!);
  }
  return fields;
}

/** GETs a page as the signed-in browser (no redirect followed). */
export function browse(url: URL | string, cookie: string | null): Promise<Response> {
  return fetch(url, { redirect: 'manual', headers: cookie === null ? {} : { cookie } });
}

/** Posts a form as the signed-in browser (no redirect followed). */
export function postForm(url: URL | string, cookie: string | null, fields: Record<string, string>): Promise<Response> {
  return fetch(url, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie === null ? {} : { cookie }) }, body: new URLSearchParams(fields).toString() });
}

/** Opens the consent page and answers it: the redirect's Location. */
export async function consent(pending: Pending, cookie: string, decision: 'approve' | 'deny' = 'approve'): Promise<URL> {
  const page = await browse(pending.url, cookie);
  const text = await page.text();
  assert.equal(page.status, 200, text);
  const answered = await postForm(new URL('/oauth/authorize', pending.url), cookie, { ...formFields(text), decision });
  assert.equal(answered.status, 303, await answered.text());
  return new URL(answered.headers.get('location')!);
}

/** A whole authorization: consent, then the code exchanged; the token answer. */
export async function authorize(as: oauth.AuthorizationServer, reg: RegisteredClient, cookie: string, params: Record<string, string | undefined> = {}): Promise<oauth.TokenEndpointResponse> {
  const pending = await authorizationUrl(as, reg, params);
  const back = await consent(pending, cookie);
  const callback = oauth.validateAuthResponse(as, reg.client, back, pending.state);
  const res = await oauth.authorizationCodeGrantRequest(as, reg.client, reg.auth, callback, reg.redirectUri, pending.verifier, INSECURE);
  return oauth.processAuthorizationCodeResponse(as, reg.client, res);
}

/** A raw form post to the token endpoint: status and JSON body. */
export async function tokenPost(t: TestServer, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<{ status: number; body: Json; headers: Headers }> {
  const res = await fetch(`${t.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(fields).toString() });
  return { status: res.status, body: (await res.json()) as Json, headers: res.headers };
}

/** Refreshes through the client library: the token answer, or the library's error. */
export async function refresh(as: oauth.AuthorizationServer, reg: RegisteredClient, token: string): Promise<oauth.TokenEndpointResponse> {
  const res = await oauth.refreshTokenGrantRequest(as, reg.client, reg.auth, token, INSECURE);
  return oauth.processRefreshTokenResponse(as, reg.client, res);
}

/** Asserts an RFC 6749 error answer: status and `error`. */
export function oauthRefused(res: { status: number; body: Json }, status: number, error: string, what = ''): void {
  assert.deepEqual([res.status, res.body['error']], [status, error], `${what} ${JSON.stringify(res.body)}`);
  assert.equal(typeof res.body['error_description'], 'string');
}

/** Calls the API with a bearer token. */
export function withToken(token: string): { auth: 'none'; headers: Record<string, string> } {
  return { auth: 'none', headers: { authorization: `Bearer ${token}` } };
}

/** A test server for OAuth: an SMTP sink for login links, proxies trusted (registrations come from many addresses), its metadata, and a signed-in API administrator. */
export interface OAuthFixture {
  readonly t: TestServer;
  readonly sink: SmtpSink;
  readonly as: oauth.AuthorizationServer;
  readonly admin: SignedIn;
  close(): Promise<void>;
}

/** Starts an `OAuthFixture`; `overrides` change settings. */
export async function oauthFixture(storage: StorageName, overrides: Partial<Config> = {}): Promise<OAuthFixture> {
  const sink = await SmtpSink.start();
  const t = await startTestServer(storage, { smtpUrl: sink.url, trustProxy: true, oauthRegistrationsPerHour: 4, ...overrides });
  const as = await discover(t);
  const admin = await signIn(t, sink);
  return {
    t,
    sink,
    as,
    admin,
    async close() {
      await t.destroy();
      await sink.close();
    },
  };
}
