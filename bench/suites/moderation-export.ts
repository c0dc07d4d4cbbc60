/**
 * The moderation export of a large tenant on LMDB (docs/moderation.md, "Export"):
 * `MODERATION_EXPORT_COMMENTS` comments (default 100,000) are imported into one tenant with the
 * command line (a generated Disqus export, the fastest seeding path that writes comments as the
 * server does), then a moderator runs `api/export` to completion and downloads it as CSV and as
 * JSON. Reported: the export's durations, the sizes of the downloads, and the server's memory
 * while it works (JavaScript heap in use from its metrics port, resident anonymous memory from
 * `/proc`), against the same server idle just before, in the same run.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { generateDisqus } from '../../test/integration/import-fixtures.js';
import type { DemoTenant } from '../lib/processes.js';
import type { Suite, SuiteContext } from '../lib/suite.js';

const COMMENTS = Number(process.env['MODERATION_EXPORT_COMMENTS'] ?? 100_000);
const MB = 1024 * 1024;
const CLI = fileURLToPath(new URL('../../cli.js', import.meta.url));
const BASE = '/auth/my-account/moderate-comments';
const SAMPLE_MS = 50;
/** A download that has not ended by then has stalled (a whole download takes seconds here): the suite fails instead of waiting. */
const DOWNLOAD_LIMIT_MS = 120_000;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** The server's JavaScript heap in use, from its metrics port (undefined if no answer within a second). */
async function heapOf(metricsPort: number): Promise<number | undefined> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { signal: AbortSignal.timeout(1000) })).text();
    const value = Number(/^nodejs_heap_size_used_bytes (\d+(?:\.\d+)?(?:e\+\d+)?)/m.exec(text)?.[1] ?? NaN);
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The server's resident anonymous memory (`/proc`: RSS without LMDB's mapped file pages). */
function anonOf(pid: number): number {
  return Number(/^RssAnon:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024;
}

interface Peak {
  heap: number;
  anon: number;
  heapSamples: number;
  anonSamples: number;
  heapMissed: number;
}

/**
 * Samples memory until stopped; answers the highest figures seen. Resident memory is read from
 * `/proc` every SAMPLE_MS whatever the server does; the heap needs the server to answer a scrape,
 * which it does between batches, so a busy server gives fewer heap samples (counted).
 */
function sampler(pid: number, metricsPort: number): { stop(): Promise<Peak> } {
  let running = true;
  const peak: Peak = { heap: 0, anon: 0, heapSamples: 0, anonSamples: 0, heapMissed: 0 };
  const anonTimer = setInterval(() => {
    peak.anon = Math.max(peak.anon, anonOf(pid));
    peak.anonSamples++;
  }, SAMPLE_MS);
  const heapLoop = (async () => {
    while (running) {
      const heap = await heapOf(metricsPort);
      if (heap === undefined) peak.heapMissed++;
      else {
        peak.heap = Math.max(peak.heap, heap);
        peak.heapSamples++;
      }
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
    }
  })();
  return {
    async stop() {
      running = false;
      clearInterval(anonTimer);
      await heapLoop;
      return peak;
    },
  };
}

function secureSso(secret: string, user: Record<string, unknown>): string {
  const data = Buffer.from(JSON.stringify(user)).toString('base64');
  const timestamp = Date.now();
  return JSON.stringify({ userDataJSONBase64: data, verificationHash: createHmac('sha256', secret).update(`${timestamp}${data}`).digest('hex'), timestamp });
}

function runCli(args: string[], env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    child.once('exit', (code) => (code === 0 ? resolve((performance.now() - started) / 1000) : reject(new Error(`cli ${args[0]} exited ${code}: ${stderr}`))));
  });
}

/** Reads a download to its end without keeping it: bytes and line breaks. */
async function drain(res: Response): Promise<{ bytes: number; lines: number }> {
  if (res.status !== 200) throw new Error(`download: ${res.status} ${await res.text()}`);
  let bytes = 0;
  let lines = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (const b of chunk) if (b === 10) lines++;
  }
  return { bytes, lines };
}

async function run(ctx: SuiteContext): Promise<void> {
  const dir = ctx.tempDir('moderation-export-');
  const dataDir = join(dir, 'data');
  const file = join(dir, 'export.xml');
  ctx.progress(`generating ${COMMENTS.toLocaleString('en-US')} comments`);
  await generateDisqus(file, Math.max(1, Math.round(COMMENTS / 100)), COMMENTS);
  const env = { DATA_DIR: dataDir, MONGODB_URI: '', LOG_LEVEL: 'error' };
  const tenant = JSON.parse(execFileSync(process.execPath, [CLI, 'tenant', 'create', '--name', 'Exported'], { env: { ...process.env, ...env }, encoding: 'utf8' })) as DemoTenant;
  ctx.progress('importing (seeding)');
  const importSeconds = await runCli(['import', '--tenant', tenant.tenantId, '--format', 'disqus', file], env);
  ctx.figure({ key: 'seedSeconds', label: `seeding: import of ${COMMENTS.toLocaleString('en-US')} comments (command line)`, value: importSeconds, unit: 's', digits: 1 });

  const metricsPort = await freePort();
  const server = await ctx.startServer({ dataDir, tenant, env: { METRICS_PORT: String(metricsPort) } });
  const sso = secureSso(tenant.apiSecret, { id: 'bench-moderator', email: 'moderator@bench.example', username: 'benchmoderator', isAdmin: true });
  const url = (path: string, query: Record<string, string> = {}) => `${server.url}${BASE}${path}?${new URLSearchParams({ tenantId: tenant.tenantId, sso, ...query })}`;
  const json = async (res: Response): Promise<Record<string, any>> => {
    const body = (await res.json()) as Record<string, any>;
    if (res.status !== 200) throw new Error(`${res.url}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };

  // Idle: the moderation routes, actors and SSO user warmed by one call, then sampled alone.
  const counted = await json(await fetch(url('/count')));
  if (counted['count'] !== COMMENTS) throw new Error(`the tenant has ${counted['count']} comments, not ${COMMENTS}`);
  const idleSampler = sampler(server.pid, metricsPort);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const idle = await idleSampler.stop();

  const busy = sampler(server.pid, metricsPort);
  ctx.progress('export job');
  const started = performance.now();
  const { batchJobId } = await json(await fetch(url('/api/export'), { method: 'POST' }));
  let status: Record<string, any>;
  do {
    await new Promise((resolve) => setTimeout(resolve, 100));
    status = await json(await fetch(url('/api/export/status', { batchJobId })));
  } while (status['jobStatus'] === 'pending');
  const jobSeconds = (performance.now() - started) / 1000;
  if (status['jobStatus'] !== 'done' || status['recordCount'] !== COMMENTS) throw new Error(`export job: ${JSON.stringify(status)}`);
  ctx.progress('CSV download');
  const csvStart = performance.now();
  const csv = await drain(await fetch(url('/api/export/download', { batchJobId, format: 'csv' }), { signal: AbortSignal.timeout(DOWNLOAD_LIMIT_MS) }));
  const csvSeconds = (performance.now() - csvStart) / 1000;
  ctx.progress('JSON download');
  const jsonStart = performance.now();
  const whole = await drain(await fetch(url('/api/export/download', { batchJobId, format: 'json' }), { signal: AbortSignal.timeout(DOWNLOAD_LIMIT_MS) }));
  const jsonSeconds = (performance.now() - jsonStart) / 1000;
  const peak = await busy.stop();
  // Comment texts hold no line breaks here: one line per comment and the header.
  if (csv.lines !== COMMENTS + 1) throw new Error(`CSV has ${csv.lines} lines for ${COMMENTS} comments`);

  const heapGrowth = (peak.heap - idle.heap) / MB;
  ctx.row({ label: `export job (count) of ${COMMENTS.toLocaleString('en-US')} comments`, role: 'subject', throughput: COMMENTS / jobSeconds, unit: 'comments/s' });
  ctx.row({ label: 'CSV download', role: 'subject', throughput: COMMENTS / csvSeconds, unit: 'comments/s' });
  ctx.row({ label: 'JSON download', role: 'subject', throughput: COMMENTS / jsonSeconds, unit: 'comments/s' });
  ctx.figure({ key: 'jobSeconds', label: 'export job, from api/export to done', value: jobSeconds, unit: 's', digits: 1 });
  ctx.figure({ key: 'csvSeconds', label: 'CSV download', value: csvSeconds, unit: 's', digits: 1 });
  ctx.figure({ key: 'jsonSeconds', label: 'JSON download', value: jsonSeconds, unit: 's', digits: 1 });
  ctx.figure({ key: 'csvMb', label: 'CSV size', value: csv.bytes / MB, unit: 'MB', digits: 1 });
  ctx.figure({ key: 'jsonMb', label: 'JSON size', value: whole.bytes / MB, unit: 'MB', digits: 1 });
  ctx.figure({ key: 'idleHeapMb', label: 'server heap in use, idle (highest sample)', value: idle.heap / MB, unit: 'MB', digits: 1 });
  ctx.figure({ key: 'peakHeapMb', label: 'server heap in use, during the export (highest sample)', value: peak.heap / MB, unit: 'MB', digits: 1 });
  ctx.figure({ key: 'heapGrowthMb', label: 'heap growth over idle', value: heapGrowth, unit: 'MB', digits: 1 });
  ctx.figure({ key: 'heapGrowthShareOfJson', label: 'heap growth / JSON size', value: heapGrowth / (whole.bytes / MB), unit: '×', digits: 3 });
  ctx.figure({ key: 'idleAnonMb', label: 'server resident anonymous memory, idle', value: idle.anon / MB, unit: 'MB', digits: 1 });
  ctx.figure({ key: 'peakAnonMb', label: 'server resident anonymous memory, during the export', value: peak.anon / MB, unit: 'MB', digits: 1 });
  ctx.figure({ key: 'anonGrowthMb', label: 'resident anonymous memory growth over idle', value: (peak.anon - idle.anon) / MB, unit: 'MB', digits: 1 });
  ctx.note(`Memory sampled every ${SAMPLE_MS} ms: resident anonymous memory from /proc (RSS without LMDB's mapped file pages; ${idle.anonSamples} idle samples over 2 s, ${peak.anonSamples} during the export); heap in use from the server's metrics port (prom-client's nodejs_heap_size_used_bytes, garbage not yet collected included; ${idle.heapSamples} idle samples, ${peak.heapSamples} during the export, ${peak.heapMissed} scrapes unanswered within a second while the server worked).`);
  ctx.note('Storage is read 500 comments at a time, each batch starting where the last ended; downloads are sent in parts as the client takes them. The client here reads at full speed on loopback.');
}

export const moderationExport: Suite = {
  name: 'moderation-export',
  description: `The moderation export of ${COMMENTS.toLocaleString('en-US')} comments of one tenant on LMDB (job, CSV and JSON downloads): durations, and the server's heap and resident memory growth over its idle figures in the same run.`,
  targets: [
    { figure: 'heapGrowthMb', op: '<=', value: 64, description: 'memory bounded by a batch, not by the export' },
    { figure: 'heapGrowthShareOfJson', op: '<=', value: 0.5, description: 'well under the export\'s size' },
  ],
  run,
};
