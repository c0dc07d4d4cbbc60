/**
 * The anonymous page view of the widget API (`GET /comments/{tenantId}?urlId=`, default page of
 * a 500-comment page, no identity, no API key) against its read ceiling: bare uWebSockets.js
 * answering the very same bytes in the same run (bench/bytes-server.ts). Measured three ways:
 * identity, gzip and brotli, as `Accept-Encoding` asks. The server answers from the bytes its
 * page actor kept at the page's last change, found without a message.
 */
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { processCpuSeconds } from '../lib/cpu.js';
import { startComparisonProcess } from '../lib/processes.js';
import type { Suite, SuiteContext } from '../lib/suite.js';
import { seed, URL_ID } from './comments-get.js';

/** The raw answer (not decoded) to a GET with this `Accept-Encoding`. */
function raw(url: string, acceptEncoding: string | undefined): Promise<{ status: number; encoding: string | undefined; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The answer in one encoding, once the server has it (large answers are compressed off the request path). */
async function encoded(url: string, encoding: 'gzip' | 'br'): Promise<Buffer> {
  for (let i = 0; i < 200; i++) {
    const r = await raw(url, encoding);
    if (r.status !== 200) throw new Error(`GET ${url} answered ${r.status} ${r.body.toString().slice(0, 300)}`);
    if (r.encoding === encoding) return r.body;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`the server never answered in ${encoding}`);
}

/**
 * Waits (at most 60 s) until the server is idle: seeding leaves work behind (each new root
 * comment's notification job), which would otherwise be measured as the first phase's cost.
 */
async function settled(pid: number): Promise<boolean> {
  const deadline = Date.now() + 60_000;
  const first = processCpuSeconds(pid);
  if (first === undefined) return false;
  let before: number = first;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now: number = processCpuSeconds(pid) ?? before;
    if (now - before < 0.025) return true;
    before = now;
  }
  return false;
}

async function run(ctx: SuiteContext): Promise<void> {
  const server = await ctx.startServer();
  ctx.progress('seeding 500 comments');
  await seed(server);
  if (!(await settled(server.pid))) ctx.note('The server was still busy 60 s after seeding; the first phase may be slowed by it.');
  const path = `/comments/${server.tenant.tenantId}?urlId=${URL_ID}`;
  const url = `${server.url}${path}`;
  const first = await raw(url, undefined);
  const parsed = JSON.parse(first.body.toString()) as { comments?: unknown[] };
  if (first.status !== 200 || parsed.comments?.length !== 30) throw new Error(`GET ${path} answered ${first.status} ${first.body.toString().slice(0, 300)}`);
  const identity = (await raw(url, undefined)).body;
  const gzip = await encoded(url, 'gzip');
  const br = await encoded(url, 'br');

  const dir = ctx.tempDir('bench-bytes-');
  writeFileSync(join(dir, 'body'), identity);
  writeFileSync(join(dir, 'body.gz'), gzip);
  writeFileSync(join(dir, 'body.br'), br);
  ctx.progress('starting the bytes ceiling');
  const ceiling = await startComparisonProcess('bytes ceiling', 'bytes-server.js', [dir]);
  ctx.onCleanup(async () => {
    await ceiling.stop();
  });

  const ways = [
    { key: 'identity', label: 'identity', headers: {} as Record<string, string>, bytes: identity },
    { key: 'gzip', label: 'gzip', headers: { 'accept-encoding': 'gzip' }, bytes: gzip },
    { key: 'br', label: 'brotli', headers: { 'accept-encoding': 'gzip, deflate, br' }, bytes: br },
  ];
  for (const way of ways) {
    const cmp = await ctx.compare({
      label: `GET ${path} (${way.label}, ${(way.bytes.length / 1024).toFixed(1)} KB)`,
      subject: { url, headers: way.headers, serverPid: server.pid },
      baseline: { url: `${ceiling.url}${path}`, headers: way.headers },
      baselineLabel: `same bytes from bare uWebSockets.js (${way.label})`,
    });
    ctx.figure({ key: `${way.key}Ratio`, label: `${way.label}: throughput ÷ same-bytes ceiling`, value: cmp.ratio, unit: '×', digits: 3 });
    ctx.figure({ key: `${way.key}Rps`, label: `${way.label}: page views per second`, value: cmp.subject.rps, unit: 'req/s' });
    ctx.figure({ key: `${way.key}P99Ms`, label: `${way.label}: latency p99`, value: cmp.subject.latencyMs.p99, unit: 'ms' });
    ctx.figure({ key: `${way.key}Failed`, label: `${way.label}: failed requests`, value: cmp.subject.errors.total, unit: '' });
    ctx.figure({ key: `${way.key}Kb`, label: `${way.label}: body size`, value: way.bytes.length / 1024, unit: 'KB', digits: 1 });
  }
  // A signed-in reader (an anonymous session, carried by sessionId) with votes on the page.
  const firstIds = (JSON.parse(identity.toString()) as { comments: { _id: string }[] }).comments.slice(0, 5).map((c) => c._id);
  let sessionId: string | undefined;
  for (const id of firstIds) {
    const voted = await fetch(`${server.url}/comments/${server.tenant.tenantId}/${id}/vote?urlId=${URL_ID}${sessionId ? `&sessionId=${sessionId}` : ''}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ voteDir: 'up', url: null, commenterName: null, commenterEmail: null }),
    });
    const body = (await voted.json()) as { user?: { sessionId?: string } };
    if (voted.status !== 200) throw new Error(`voting answered ${voted.status} ${JSON.stringify(body)}`);
    sessionId = body.user?.sessionId ?? sessionId;
  }
  await settled(server.pid);
  const personalPath = `${path}&sessionId=${sessionId}`;
  const personal = await raw(`${server.url}${personalPath}`, undefined);
  if (personal.status !== 200 || !personal.body.includes('"isVotedUp":true')) throw new Error(`the signed-in read answered ${personal.status} ${personal.body.toString().slice(0, 200)}`);
  const signed = await ctx.compare({
    label: `GET ${path}&sessionId (signed-in reader with 5 votes, identity)`,
    subject: { url: `${server.url}${personalPath}`, serverPid: server.pid },
    baseline: { url: `${ceiling.url}${path}` },
    baselineLabel: 'same-size bytes from bare uWebSockets.js (identity)',
  });
  ctx.figure({ key: 'signedInRatio', label: 'signed-in reader: throughput ÷ same-bytes ceiling', value: signed.ratio, unit: '×', digits: 3 });
  ctx.figure({ key: 'signedInRps', label: 'signed-in reader: page views per second', value: signed.subject.rps, unit: 'req/s' });
  ctx.note('No identity, no API key: the anonymous reader of a public page. Page loads are counted in the tenant\'s daily usage in memory and sent in batches.');
}

/** See the module comment. */
export const publicCommentsGet: Suite = {
  name: 'public-comments-get',
  description: 'GET /comments/{tenantId} (widget API, anonymous, default page of a 500-comment page) versus bare uWebSockets.js answering the same bytes, identity, gzip and brotli.',
  targets: [
    { figure: 'identityRatio', op: '>=', value: 0.9, description: 'identity: share of the same-bytes ceiling' },
    { figure: 'gzipRatio', op: '>=', value: 0.9, description: 'gzip: share of the same-bytes ceiling' },
    { figure: 'brRatio', op: '>=', value: 0.9, description: 'brotli: share of the same-bytes ceiling' },
    { figure: 'signedInRatio', op: '>=', value: 0.5, description: 'signed-in reader: share of the same-bytes ceiling' },
    { figure: 'identityFailed', op: '<=', value: 0, description: 'failed requests under load' },
  ],
  run,
};
