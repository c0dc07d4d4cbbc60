/**
 * Clients identified by an https URL whose JSON document is their metadata: fetched over real
 * TLS from a server in this process (its self-signed certificate, test/fixtures/tls, trusted by
 * the server process through NODE_EXTRA_CA_CERTS, as an operator trusts a private CA), with the
 * limits of docs/oauth.md: 2.5 s, 5 KiB, no redirects, no loopback or private address unless
 * allowed.
 */
import assert from 'node:assert/strict';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as oauth from 'oauth4webapi';
import { repoFile } from '../fixtures/paths.js';
import { spawnServer, demoHeaders, type ServerProcess } from '../fixtures/server-process.js';
import { startTestServer, storages } from '../fixtures/server.js';
import { type Received, SmtpSink } from '../fixtures/smtp-sink.js';
import { linkIn } from './identity-helpers.js';
import { browse, formFields, INSECURE, postForm } from './oauth-helpers.js';

type Json = Record<string, unknown>;
const CERT = repoFile('test/fixtures/tls/loopback-cert.pem');
const KEY = repoFile('test/fixtures/tls/loopback-key.pem');

/** An https server of client metadata documents: path → answer. */
async function documentServer(): Promise<{ base: string; serve(path: string, answer: (res: import('node:http').ServerResponse) => void): void; close(): Promise<void> }> {
  const routes = new Map<string, (res: import('node:http').ServerResponse) => void>();
  const held: import('node:http').ServerResponse[] = [];
  const server = https.createServer({ key: readFileSync(KEY), cert: readFileSync(CERT) }, (req, res) => {
    const answer = routes.get(req.url ?? '');
    if (answer === undefined) res.writeHead(404).end();
    else answer(res);
    if (!res.writableEnded) held.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    serve: (path, answer) => routes.set(path, answer),
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const json = (body: unknown) => (res: import('node:http').ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));

describe('clients identified by a metadata document URL', () => {
  let docs: Awaited<ReturnType<typeof documentServer>>;
  let sink: SmtpSink;
  let server: ServerProcess;
  let dataDir: string;
  let cookie: string;

  before(async () => {
    docs = await documentServer();
    sink = await SmtpSink.start();
    dataDir = mkdtempSync(join(tmpdir(), 'oauth-docs-'));
    server = await spawnServer({ DATA_DIR: dataDir, SMTP_URL: sink.url, OAUTH_ALLOW_PRIVATE_METADATA: 'true', NODE_EXTRA_CA_CERTS: CERT });
    const headers = demoHeaders(server);
    const created = await fetch(`${server.url}/api/v1/tenant-users`, { method: 'POST', headers, body: JSON.stringify({ username: 'docs-admin', email: 'docs-admin@example.com', isAPIAdmin: true }) });
    const user = ((await created.json()) as { tenantUser: Json }).tenantUser;
    assert.equal((await fetch(`${server.url}/api/v1/tenant-users/${String(user['id'])}/send-login-link`, { method: 'POST', headers })).status, 200);
    const got = await sink.waitFor((r: Received) => r.rcptTo.includes('docs-admin@example.com'), 'the login link');
    const opened = await fetch(linkIn(got, '/auth/login-link/'));
    cookie = opened.headers.get('set-cookie')!.split(';')[0]!;
  });
  after(async () => {
    await server?.kill('SIGTERM');
    await docs?.close();
    await sink?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** Opens the consent page of `clientId`: the response. */
  async function consentPageOf(clientId: string, redirectUri = 'https://docs-app.example/cb'): Promise<Response> {
    const url = new URL('/oauth/authorize', server.url);
    const verifier = oauth.generateRandomCodeVerifier();
    for (const [k, v] of Object.entries({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, state: 's', code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' })) url.searchParams.set(k, v);
    return browse(url, cookie);
  }

  test('the whole flow with a client whose client_id is its metadata document', async () => {
    const clientId = `${docs.base}/apps/good.json`;
    docs.serve('/apps/good.json', json({ client_id: clientId, client_name: 'Document app', redirect_uris: ['https://docs-app.example/cb'], token_endpoint_auth_method: 'none' }));
    const issuer = new URL(server.url);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...INSECURE }));
    const client: oauth.Client = { client_id: clientId };
    const verifier = oauth.generateRandomCodeVerifier();
    const url = new URL(as.authorization_endpoint!);
    for (const [k, v] of Object.entries({ response_type: 'code', client_id: clientId, redirect_uri: 'https://docs-app.example/cb', state: 'st', code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' })) url.searchParams.set(k, v);
    const page = await browse(url, cookie);
    const html = await page.text();
    assert.equal(page.status, 200, html);
    assert.match(html, /Document app/);
    const answered = await postForm(new URL('/oauth/authorize', server.url), cookie, { ...formFields(html), decision: 'approve' });
    const callback = oauth.validateAuthResponse(as, client, new URL(answered.headers.get('location')!), 'st');
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), callback, 'https://docs-app.example/cb', verifier, INSECURE));
    const me = await fetch(`${server.url}/api/v1/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(((await me.json()) as Json)['credential'], 'access-token');
    const refreshed = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, INSECURE));
    assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
  });

  test('a document that is not the client’s, too large, too slow, redirected, not JSON or asking for a secret is refused', async () => {
    const cases: [string, (url: string) => (res: import('node:http').ServerResponse) => void, RegExp][] = [
      ['/other-id.json', () => json({ client_id: `${docs.base}/somebody-else.json`, redirect_uris: ['https://docs-app.example/cb'] }), /names another client_id/],
      ['/large.json', (url) => json({ client_id: url, redirect_uris: ['https://docs-app.example/cb'], padding: 'x'.repeat(6000) }), /larger than 5120 bytes/],
      ['/slow.json', () => () => undefined, /no answer within 2500 ms/],
      ['/moved.json', () => (res) => res.writeHead(302, { location: `${docs.base}/apps/good.json` }).end(), /HTTP 302/],
      ['/text.json', () => (res) => res.writeHead(200).end('<html>'), /not JSON/],
      ['/secret.json', (url) => json({ client_id: url, redirect_uris: ['https://docs-app.example/cb'], token_endpoint_auth_method: 'client_secret_basic' }), /public client/],
      ['/bad-redirect.json', (url) => json({ client_id: url, redirect_uris: ['http://docs-app.example/cb'] }), /not valid/],
    ];
    for (const [path, answer, why] of cases) {
      const url = `${docs.base}${path}`;
      docs.serve(path, answer(url));
      const res = await consentPageOf(url);
      const text = await res.text();
      assert.deepEqual([res.status, res.headers.get('location')], [401, null], path);
      assert.match(text, why, path);
    }
    const res = await consentPageOf(`${docs.base}/`);
    assert.match(await res.text(), /an https URL with a path/, 'a client_id URL needs a path');
    const token = await fetch(`${server.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', client_id: `${docs.base}/large.json` }) });
    assert.deepEqual([token.status, ((await token.json()) as Json)['error']], [401, 'invalid_client'], 'at the token endpoint too');
  });
});

describe('metadata documents on private addresses', () => {
  test('are refused unless the operator allows them (OAUTH_ALLOW_PRIVATE_METADATA)', async () => {
    const t = await startTestServer(storages()[0]!);
    try {
      for (const clientId of ['https://127.0.0.1:9/client.json', 'https://localhost:9/client.json', 'https://10.0.0.1/client.json', 'https://[::1]:9/client.json', 'https://169.254.169.254/latest/meta-data']) {
        const url = new URL('/oauth/authorize', t.url);
        for (const [k, v] of Object.entries({ response_type: 'code', client_id: clientId, code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' })) url.searchParams.set(k, v);
        const res = await fetch(url, { redirect: 'manual' });
        assert.equal(res.status, 401, clientId);
        assert.match(await res.text(), /loopback, private or link-local/, clientId);
      }
    } finally {
      await t.destroy();
    }
  });
});
