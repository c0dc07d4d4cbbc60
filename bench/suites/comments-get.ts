/**
 * `GET /api/v1/comments?urlId=` on a page of 500 comments, default page (30 comments, most
 * relevant first), with the demo tenant's key, against the hello-world baseline. Every call
 * authenticates, reads the page's settings, asks the page actor and is charged a credit; the
 * page actor answers from the serialised page it keeps until the page next changes. Then the
 * same read of a tenant whose package audits every access (each read recorded in its audit
 * log, in batches off the request path).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DemoTenant, ServerProcess } from '../lib/processes.js';
import { figureServerCpu } from '../lib/cpu.js';
import type { Suite, SuiteContext } from '../lib/suite.js';

const CLI_JS = fileURLToPath(new URL('../../cli.js', import.meta.url));
/** The page the comment suites read. */
export const URL_ID = 'bench-page';
const COMMENTS = 500;
const PATH = `/api/v1/comments?urlId=${URL_ID}`;
/** Comments of everyday length (40 to 140 characters), some with markdown. */
const TEXTS = [
  'Great post, thanks for writing it up!',
  'I had the same problem last week; restarting the router fixed it for me.',
  'Not sure I agree with the second point, but the **first** one is spot on.',
  'Could you share the config you used? I would like to try it at home.',
  'This is exactly what I was looking for. Bookmarked.',
  'The numbers in the third table look off to me: shouldn\'t the total be *higher* than that?',
  'Thanks! Worked on the first try.',
  'Any plans for a follow-up on how this scales past a few thousand users? Would love to read it.',
];

/** Seeds the bench page with `COMMENTS` root comments through the API (shared with public-comments-get). */
export async function seed(server: Pick<ServerProcess, 'url' | 'authHeaders'>, headers: Record<string, string> = server.authHeaders): Promise<void> {
  for (let i = 0; i < COMMENTS; i += 25) {
    await Promise.all(
      Array.from({ length: Math.min(25, COMMENTS - i) }, async (_, j) => {
        const n = i + j;
        const res = await fetch(`${server.url}/api/v1/comments`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({
            commenterName: `Reader ${n % 40}`,
            comment: TEXTS[n % TEXTS.length]!,
            url: 'https://example.com/bench',
            urlId: URL_ID,
            locale: 'en_us',
            parentId: null,
            date: Date.UTC(2024, 0, 1) + n * 60_000,
          }),
        });
        if (res.status !== 200) throw new Error(`seeding comment ${n}: ${res.status} ${await res.text()}`);
      }),
    );
  }
}

/** A tenant made with the command line on a data directory no server uses yet (`--auditing`: its package audits every call). */
function cliTenant(dataDir: string, args: readonly string[]): DemoTenant {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
  // The suite's server runs on LMDB: an inherited MongoDB setting must not send the tenants elsewhere.
  delete env['MONGODB_URI'];
  const out = execFileSync(process.execPath, [CLI_JS, 'tenant', 'create', ...args], { env, encoding: 'utf8' });
  return JSON.parse(out) as DemoTenant;
}

async function run(ctx: SuiteContext): Promise<void> {
  const baseline = await ctx.startBaseline();
  // Both tenants are made before the server starts: only the operator gives a tenant a package of its own.
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-server-'));
  const plain = cliTenant(dataDir, ['--name', 'Bench']);
  const audited = cliTenant(dataDir, ['--name', 'Audited', '--auditing']);
  const server = await ctx.startServer({ dataDir, tenant: plain });
  ctx.progress(`seeding ${COMMENTS} comments`);
  await seed(server);

  const probe = await fetch(`${server.url}${PATH}`, { headers: server.authHeaders });
  const text = await probe.text();
  const body = JSON.parse(text) as { status?: string; comments?: unknown[] };
  if (probe.status !== 200 || body.status !== 'success' || body.comments?.length !== 30) {
    throw new Error(`GET ${PATH} answered ${probe.status} ${text.slice(0, 300)}`);
  }

  const cmp = await ctx.compare({
    label: `GET ${PATH} (500 comments, page of 30)`,
    subject: { url: `${server.url}${PATH}`, headers: server.authHeaders, serverPid: server.pid },
    baseline: { url: `${baseline.url}/` },
  });
  const s = cmp.subject;
  ctx.figure({ key: 'ratio', label: 'throughput ÷ hello-world throughput', value: cmp.ratio, unit: '×', digits: 3 });
  ctx.figure({ key: 'rps', label: 'GET comments throughput', value: s.rps, unit: 'req/s' });
  ctx.figure({ key: 'baselineRps', label: 'hello-world throughput (mean of both runs)', value: cmp.baselineRps, unit: 'req/s' });
  ctx.figure({ key: 'p50Ms', label: 'GET comments latency p50', value: s.latencyMs.p50, unit: 'ms' });
  ctx.figure({ key: 'p99Ms', label: 'GET comments latency p99', value: s.latencyMs.p99, unit: 'ms' });
  figureServerCpu(ctx, s, 'read');
  ctx.figure({ key: 'failedRequests', label: 'failed requests (socket errors, timeouts, non-2xx)', value: s.errors.total, unit: '' });
  ctx.figure({ key: 'bodyKb', label: 'response body size', value: Buffer.byteLength(text) / 1024, unit: 'KB', digits: 1 });
  const rss = server.rssBytes();
  if (rss !== undefined) ctx.figure({ key: 'serverRssMb', label: 'server resident memory after the load', value: rss / 1024 / 1024, unit: 'MB', digits: 0 });
  ctx.note('Each call is authenticated with X-API-KEY/X-TENANT-ID and charged one credit (reads do not wait for the charge to be durable).');

  ctx.progress(`seeding ${COMMENTS} comments of an audited tenant`);
  const auditedHeaders = { 'X-API-KEY': audited.apiKey, 'X-TENANT-ID': audited.tenantId };
  await seed(server, auditedHeaders);
  const auditedProbe = await fetch(`${server.url}${PATH}`, { headers: auditedHeaders });
  if (auditedProbe.status !== 200) throw new Error(`audited GET ${PATH} answered ${auditedProbe.status} ${(await auditedProbe.text()).slice(0, 300)}`);
  const a = (
    await ctx.compare({
      label: `GET ${PATH} of an audited tenant (every read recorded)`,
      subject: { url: `${server.url}${PATH}`, headers: auditedHeaders, serverPid: server.pid },
      baseline: { url: `${baseline.url}/` },
    })
  ).subject;
  ctx.figure({ key: 'auditedRps', label: 'GET comments throughput, audited tenant', value: a.rps, unit: 'req/s' });
  if (a.serverCpu !== undefined) {
    ctx.figure({ key: 'auditedMainCpuUs', label: 'server main-thread CPU per audited read', value: a.serverCpu.mainThreadUs, unit: 'µs', digits: 1 });
    ctx.figure({ key: 'auditedProcessCpuUs', label: 'server CPU per audited read, all threads', value: a.serverCpu.processUs, unit: 'µs', digits: 1 });
  }
  ctx.figure({ key: 'auditedFailedRequests', label: 'failed audited requests', value: a.errors.total, unit: '' });
  ctx.note('The audited tenant was made with `cli tenant create --auditing`: its package has hasAuditing.');
}

/** See the module comment. */
export const commentsGet: Suite = {
  name: 'comments-get',
  description: 'GET /api/v1/comments?urlId= on a 500-comment page (default page of 30, API key, credit charged) versus a bare uWebSockets.js hello world.',
  targets: [
    { figure: 'ratio', op: '>=', value: 0.5, description: 'share of hello-world throughput' },
    { figure: 'failedRequests', op: '<=', value: 0, description: 'failed requests under load' },
    { figure: 'auditedFailedRequests', op: '<=', value: 0, description: 'failed audited requests under load' },
  ],
  run,
};
