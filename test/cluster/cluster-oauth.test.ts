/**
 * OAuth in cluster mode: each grant is one actor on one node, reached by routed asks from
 * whichever node a request lands on (every request here is a fresh connection, spread by the
 * kernel). A code raced through both nodes is used once; concurrent refreshes make one branch;
 * a token issued by the node holding the grant is refreshed by the other once the first stops.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, test } from 'node:test';
import * as oauth from 'oauth4webapi';
import { parseToken } from '../../actors/oauth/oauth-tokens.js';
import { startTestCluster, type TestCluster } from '../fixtures/cluster.js';
import { eventually } from '../fixtures/eventually.js';
import { clusterTestsEnabled } from '../fixtures/nats.js';
import { type Received, SmtpSink } from '../fixtures/smtp-sink.js';
import { linkIn } from '../integration/identity-helpers.js';
import { formFields } from '../integration/oauth-helpers.js';

type Json = Record<string, unknown>;

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

/** One request on a fresh connection (so it may land on any node); 503 while a shard moves is retried. */
async function send(c: TestCluster, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  for (let attempt = 0; ; attempt++) {
    const answer = await new Promise<Answer>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: c.port, method, path, agent: false, headers: { ...headers, ...(body === undefined ? {} : { 'content-length': Buffer.byteLength(body) }) }, timeout: 60_000 }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      });
      req.on('timeout', () => req.destroy(new Error('no answer in 60 s')));
      req.on('error', reject);
      req.end(body);
    }).catch((): Answer => ({ status: 0, headers: {}, text: '' }));
    if ((answer.status !== 503 && answer.status !== 0) || attempt >= 40) return answer;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('cluster mode: OAuth grants', { skip: !clusterTestsEnabled() }, () => {
  test('codes used once and one refresh branch across nodes; a token issued by one node is refreshed by another', async () => {
    const sink = await SmtpSink.start();
    const c = await startTestCluster({ nodes: 2, env: { SMTP_URL: sink.url } });
    try {
      const api = { ...c.headers, 'content-type': 'application/json' };
      const user = JSON.parse((await send(c, 'POST', '/api/v1/tenant-users', api, JSON.stringify({ username: 'cluster-admin', email: 'cluster-admin@example.com', isAPIAdmin: true }))).text) as { tenantUser: Json };
      assert.equal((await send(c, 'POST', `/api/v1/tenant-users/${String(user.tenantUser['id'])}/send-login-link`, c.headers)).status, 200);
      const mail = await sink.waitFor((r: Received) => r.rcptTo.includes('cluster-admin@example.com'), 'the login link');
      const opened = await send(c, 'GET', new URL(linkIn(mail, '/auth/login-link/')).pathname);
      assert.equal(opened.status, 200, opened.text);
      const cookie = String(opened.headers['set-cookie']).split(';')[0]!;

      const registered = await send(c, 'POST', '/oauth/register', { 'content-type': 'application/json' }, JSON.stringify({ redirect_uris: ['https://cluster-app.example/cb'], token_endpoint_auth_method: 'none', client_name: 'Cluster app' }));
      assert.equal(registered.status, 201, registered.text);
      const clientId = String((JSON.parse(registered.text) as Json)['client_id']);

      /** Consents through the pages (any node each), answering a code and its verifier. */
      const codeFor = async () => {
        const verifier = oauth.generateRandomCodeVerifier();
        const query = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: 'https://cluster-app.example/cb', code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state: 'x' });
        const page = await send(c, 'GET', `/oauth/authorize?${query}`, { cookie });
        assert.equal(page.status, 200, page.text);
        const answered = await send(c, 'POST', '/oauth/authorize', { ...FORM, cookie }, form({ ...formFields(page.text), decision: 'approve' }));
        assert.equal(answered.status, 303, answered.text);
        return { code: new URL(String(answered.headers['location'])).searchParams.get('code')!, verifier };
      };
      const token = (fields: Record<string, string>) => send(c, 'POST', '/oauth/token', FORM, form({ client_id: clientId, ...fields }));
      const me = (accessToken: string) => send(c, 'GET', '/api/v1/me', { authorization: `Bearer ${accessToken}` });

      // One code raced through both nodes: one exchange wins, the others are replays that revoke what it got.
      const raced = await codeFor();
      const exchanges = await Promise.all(Array.from({ length: 6 }, () => token({ grant_type: 'authorization_code', code: raced.code, code_verifier: raced.verifier, redirect_uri: 'https://cluster-app.example/cb' })));
      assert.deepEqual(exchanges.map((e) => e.status).sort(), [200, 400, 400, 400, 400, 400], exchanges.map((e) => e.text).join('\n'));
      const won = JSON.parse(exchanges.find((e) => e.status === 200)!.text) as Json;
      assert.equal((await me(String(won['access_token']))).status, 401, 'the replays revoked the winner');

      // Concurrent refreshes of one token through both nodes: one new branch.
      const fresh = await codeFor();
      const t0 = JSON.parse((await token({ grant_type: 'authorization_code', code: fresh.code, code_verifier: fresh.verifier, redirect_uri: 'https://cluster-app.example/cb' })).text) as Json;
      const refreshes = await Promise.all(Array.from({ length: 6 }, () => token({ grant_type: 'refresh_token', refresh_token: String(t0['refresh_token']) })));
      for (const r of refreshes) assert.equal(r.status, 200, r.text);
      const pairs = new Set(refreshes.map((r) => { const b = JSON.parse(r.text) as Json; return `${String(b['access_token'])} ${String(b['refresh_token'])}`; }));
      assert.equal(pairs.size, 1, 'every node answered the same pair');
      const t1 = JSON.parse(refreshes[0]!.text) as Json;

      // The node holding the grant stops; the other takes its shard and refreshes from storage.
      const key = `oauth-grant:${c.tenant.tenantId}:${parseToken(String(t1['refresh_token']))!.grantId}`;
      await eventually(async () => c.nodes.some((n) => n.logs.some((l) => l.event === 'actor-activated' && l['key'] === key)), 30_000);
      const holder = c.nodes.find((n) => n.logs.some((l) => l.event === 'actor-activated' && l['key'] === key))!;
      await holder.signal('SIGTERM');
      const t2res = await token({ grant_type: 'refresh_token', refresh_token: String(t1['refresh_token']) });
      assert.equal(t2res.status, 200, t2res.text);
      const t2 = JSON.parse(t2res.text) as Json;
      const survivor = c.nodes.find((n) => n !== holder)!;
      await eventually(async () => survivor.logs.some((l) => l.event === 'actor-activated' && l['key'] === key), 30_000);
      assert.notEqual(t2['refresh_token'], t1['refresh_token']);
      assert.equal((await me(String(t2['access_token']))).status, 200);
      const revoked = await send(c, 'POST', '/oauth/revoke', FORM, form({ client_id: clientId, token: String(t2['refresh_token']) }));
      assert.deepEqual([revoked.status, revoked.text], [200, '{}']);
      for (const access of [t0, t1, t2].map((t) => String(t['access_token']))) assert.equal((await me(access)).status, 401);
    } finally {
      await c.destroy();
      await sink.close();
    }
  });
});
