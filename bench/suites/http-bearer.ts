/**
 * What an OAuth access token costs over an API key on the same read: `GET /api/v1/domain-configs`
 * (a tenant actor ask, a credit charge) with `X-API-KEY`, then with `Authorization: Bearer`, each
 * against the hello-world baseline in the same run. The token is obtained as an application
 * would: a tenant user with API Admin opens a login link (read from the email the server wrote
 * under its data directory), consents by form posts, and the code is exchanged with PKCE.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { figureServerCpu } from '../lib/cpu.js';
import type { ServerProcess } from '../lib/processes.js';
import type { Suite, SuiteContext } from '../lib/suite.js';

const PATH = '/api/v1/domain-configs';
const REDIRECT = 'https://bench-app.example/cb';

async function ok(res: Response, what: string): Promise<string> {
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${what}: ${res.status} ${text.slice(0, 300)}`);
  return text;
}

/** The login link of the email the server wrote for `email` (no SMTP_URL: `.eml` files under DATA_DIR). */
async function loginLink(server: ServerProcess, email: string): Promise<string> {
  const dir = join(server.dataDir, 'outbox-mail');
  for (let attempt = 0; attempt < 200; attempt++) {
    let files: string[] = [];
    try {
      files = readdirSync(dir);
    } catch {
      // Not written yet.
    }
    for (const file of files) {
      const text = readFileSync(join(dir, file), 'utf8').replace(/=\r?\n/g, '').replaceAll('=3D', '=');
      const link = text.includes(email) ? /https?:\/\/[^"\s]+\/auth\/login-link\/[A-Za-z0-9_-]{43}/.exec(text) : null;
      if (link !== null) return link[0];
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no login link was written for ${email}`);
}

/** An access token of the demo tenant, through the whole authorization code flow. */
async function accessToken(server: ServerProcess): Promise<string> {
  const json = { ...server.authHeaders, 'content-type': 'application/json' };
  const email = 'bench-admin@example.com';
  const created = JSON.parse(await ok(await fetch(`${server.url}/api/v1/tenant-users`, { method: 'POST', headers: json, body: JSON.stringify({ username: 'bench-admin', email, isAPIAdmin: true }) }), 'create the user')) as { tenantUser: { id: string } };
  await ok(await fetch(`${server.url}/api/v1/tenant-users/${created.tenantUser.id}/send-login-link`, { method: 'POST', headers: server.authHeaders }), 'send the login link');
  const link = new URL(await loginLink(server, email));
  const opened = await fetch(`${server.url}${link.pathname}`);
  await ok(opened, 'open the login link');
  const cookie = opened.headers.get('set-cookie')!.split(';')[0]!;
  const client = JSON.parse(await ok(await fetch(`${server.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }) }), 'register')) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const query = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256' });
  const page = await ok(await fetch(`${server.url}/oauth/authorize?${query}`, { headers: { cookie } }), 'the consent page');
  const fields = Object.fromEntries([...page.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!.replaceAll('&amp;', '&')]));
  const answered = await fetch(`${server.url}/oauth/authorize`, { method: 'POST', redirect: 'manual', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ ...fields, decision: 'approve' }) });
  const code = new URL(answered.headers.get('location')!).searchParams.get('code')!;
  const tokens = JSON.parse(await ok(await fetch(`${server.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, client_id: client.client_id }) }), 'exchange')) as { access_token: string };
  return tokens.access_token;
}

async function run(ctx: SuiteContext): Promise<void> {
  const baseline = await ctx.startBaseline();
  const server = await ctx.startServer();
  const bearer = { authorization: `Bearer ${await accessToken(server)}` };
  for (const headers of [server.authHeaders, bearer]) await ok(await fetch(`${server.url}${PATH}`, { headers }), `GET ${PATH}`);

  const key = await ctx.compare({ label: `GET ${PATH} with an API key`, subject: { url: `${server.url}${PATH}`, headers: server.authHeaders, serverPid: server.pid }, baseline: { url: `${baseline.url}/` } });
  const token = await ctx.compare({ label: `GET ${PATH} with an access token`, subject: { url: `${server.url}${PATH}`, headers: bearer, serverPid: server.pid }, baseline: { url: `${baseline.url}/` } });
  ctx.figure({ key: 'keyRatio', label: 'API key: throughput ÷ hello-world throughput', value: key.ratio, unit: '×', digits: 3 });
  ctx.figure({ key: 'ratio', label: 'access token: throughput ÷ hello-world throughput', value: token.ratio, unit: '×', digits: 3 });
  ctx.figure({ key: 'tokenOverKey', label: 'access-token throughput ÷ API-key throughput (ratios to their own baselines)', value: token.ratio / key.ratio, unit: '×', digits: 3 });
  const keyCpu = key.subject.serverCpu;
  const tokenCpu = token.subject.serverCpu;
  if (keyCpu !== undefined && tokenCpu !== undefined) {
    ctx.figure({ key: 'keyMainCpuUs', label: 'server main-thread CPU per read, API key', value: keyCpu.mainThreadUs, unit: 'µs', digits: 1 });
    ctx.figure({ key: 'cpuTokenOverKey', label: 'main-thread CPU per read, access token ÷ API key', value: tokenCpu.mainThreadUs / keyCpu.mainThreadUs, unit: '×', digits: 2 });
  }
  figureServerCpu(ctx, token.subject, 'read with an access token');
  ctx.figure({ key: 'failedRequests', label: 'failed requests, both runs (socket errors, timeouts, non-2xx)', value: key.subject.errors.total + token.subject.errors.total, unit: '' });
  ctx.note('A bearer request reads its token by hash from storage (so a revocation takes effect at once) and asks the tenant actor to admit it; a key is checked against the tenant actor\'s published view.');
}

/** See the module comment. */
export const httpBearer: Suite = {
  name: 'http-bearer',
  description: 'GET /api/v1/domain-configs with an API key, then with an OAuth access token (obtained through the real flow), each versus a bare uWebSockets.js hello world in the same run.',
  targets: [{ figure: 'failedRequests', op: '<=', value: 0, description: 'failed requests under load' }],
  run,
};
