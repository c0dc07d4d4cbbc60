/**
 * Aggregation over 1,000,000 comments (`count` grouped by `urlId`), on LMDB and, when a MongoDB
 * is at hand (MONGODB_URI, else FerretDB from `.tools/bin`), on MongoDB: documents scanned per
 * second, and the server's main-thread CPU while a scan runs (it should stay near zero: the scan
 * runs in a worker thread). Then `GET /api/v1/comments` latency with no aggregation running and
 * with aggregations running back to back, to show the scan does not stall the thread that
 * serves pages (target: p99 within twice its idle value).
 *
 * Comments are written straight to storage from this process (LMDB is shared between
 * processes; MongoDB takes bulk inserts); `AGGREGATE_BENCH_DOCS` changes their number.
 */
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { MongoClient } from 'mongodb';
import { COLLECTIONS } from '../../storage/collections.js';
import { createStore } from '../../storage/create-store.js';
import type { Doc, WriteOp } from '../../storage/store.js';
import { ferretdbBinary, startFerretDb } from '../../test/fixtures/ferretdb.js';
import { mainThreadCpuSeconds, processCpuSeconds } from '../lib/cpu.js';
import type { ServerProcess } from '../lib/processes.js';
import type { Suite, SuiteContext } from '../lib/suite.js';

const DOCS = Number(process.env['AGGREGATE_BENCH_DOCS'] ?? 1_000_000);
const PAGE = 'bench-page';
const READ_PATH = `/api/v1/comments?urlId=${PAGE}`;
const BODY = JSON.stringify({ resourceName: 'Comment', groupBy: ['urlId'], operations: [{ field: 'id', op: 'count', alias: 'n' }] });
/** Readers keep this many requests in flight: a busy site, short of saturating the server. */
const READ_CONNECTIONS = 16;

function comment(tenantId: string, i: number): Doc {
  return {
    _id: `b${String(i).padStart(7, '0')}`,
    tenantId,
    urlId: `page-${i % 1000}`,
    url: `https://example.com/page-${i % 1000}`,
    commenterName: `Reader ${i % 5000}`,
    comment: `Comment number ${i}, of an everyday length: a sentence or two about the page it is on.`,
    date: new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString(),
    votes: i % 7,
    approved: i % 10 !== 0,
    hashTags: [],
  };
}

/** Writes the comments straight to the server's storage. */
async function seed(server: ServerProcess, mongo: { uri: string; db: string } | undefined, progress: (m: string) => void): Promise<void> {
  const tenantId = server.tenant.tenantId;
  const client = mongo ? await new MongoClient(mongo.uri).connect() : undefined;
  const store = mongo ? undefined : createStore({ dataDir: server.dataDir }, COLLECTIONS);
  await store?.open();
  try {
    for (let start = 0; start < DOCS; start += 10_000) {
      const docs: Doc[] = [];
      for (let i = start; i < Math.min(DOCS, start + 10_000); i++) docs.push(comment(tenantId, i));
      if (client) await client.db(mongo!.db).collection<Doc>('comments').insertMany(docs, { ordered: false });
      else await store!.commit(docs.map((doc): WriteOp => ({ op: 'put', collection: 'comments', doc })));
      if ((start / 10_000) % 20 === 0) progress(`seeded ${start.toLocaleString('en-US')} comments`);
    }
  } finally {
    await store?.close();
    await client?.close();
  }
}

/** A page of 30 comments to read, made through the API like a widget's. */
async function seedReadPage(server: ServerProcess): Promise<void> {
  for (let n = 0; n < 30; n++) {
    const res = await fetch(`${server.url}/api/v1/comments`, {
      method: 'POST',
      headers: { ...server.authHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({ commenterName: `Reader ${n}`, comment: `Comment ${n} on the page being read.`, url: 'https://example.com/read', urlId: PAGE, locale: 'en_us', parentId: null }),
    });
    if (res.status !== 200) throw new Error(`seeding comment ${n}: ${res.status} ${await res.text()}`);
  }
}

/** One aggregation call (no client-side time limit: a scan on FerretDB takes minutes). */
function aggregateOnce(server: ServerProcess): Promise<{ timeMS: number; scanned: number; groups: number }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}/api/v1/aggregate?includeStats=true`, { method: 'POST', headers: { ...server.authHeaders, 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        if (res.statusCode !== 200) return reject(new Error(`aggregate answered ${res.statusCode}: ${text.slice(0, 300)}`));
        const body = JSON.parse(text) as { data: unknown[]; stats: { timeMS: number; scanned: number } };
        resolve({ ...body.stats, groups: body.data.length });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(BODY);
  });
}

async function measure(ctx: SuiteContext, server: ServerProcess, storage: string): Promise<void> {
  const key = (name: string) => `${storage}${name}`;
  ctx.progress(`${storage}: first aggregation (warms storage and the worker)`);
  const warm = await aggregateOnce(server);
  if (warm.scanned !== DOCS + 30 || warm.groups !== 1001) throw new Error(`unexpected answer: ${JSON.stringify(warm)}`);

  ctx.progress(`${storage}: measured aggregation, no other load`);
  const main0 = mainThreadCpuSeconds(server.pid);
  const all0 = processCpuSeconds(server.pid);
  const t0 = performance.now();
  const run = await aggregateOnce(server);
  const wallS = (performance.now() - t0) / 1000;
  const mainS = (mainThreadCpuSeconds(server.pid) ?? NaN) - (main0 ?? NaN);
  const allS = (processCpuSeconds(server.pid) ?? NaN) - (all0 ?? NaN);
  ctx.figure({ key: key('ScannedPerSec'), label: `${storage}: documents scanned per second (count by urlId)`, value: run.scanned / (run.timeMS / 1000), unit: 'docs/s' });
  ctx.figure({ key: key('ScanSeconds'), label: `${storage}: one scan of ${run.scanned.toLocaleString('en-US')} documents, as timed by the worker`, value: run.timeMS / 1000, unit: 's', digits: 2 });
  ctx.figure({ key: key('MainCpuPct'), label: `${storage}: server main-thread CPU during the scan, share of one core`, value: (mainS / wallS) * 100, unit: '%', digits: 2 });
  ctx.figure({ key: key('MainCpuMs'), label: `${storage}: server main-thread CPU for the whole call`, value: mainS * 1000, unit: 'ms', digits: 1 });
  ctx.figure({ key: key('ProcessCpuPct'), label: `${storage}: server CPU during the scan, all threads, share of one core`, value: (allS / wallS) * 100, unit: '%', digits: 0 });

  const read = { url: `${server.url}${READ_PATH}`, headers: server.authHeaders, serverPid: server.pid, connections: READ_CONNECTIONS };
  ctx.progress(`${storage}: GET comments, idle`);
  const idle = await ctx.load(read);
  let running = true;
  let scans = 0;
  let failure: unknown;
  const background = (async () => {
    while (running) {
      await aggregateOnce(server);
      scans++;
    }
  })().catch((error: unknown) => void (failure = error));
  ctx.progress(`${storage}: GET comments while aggregations run back to back`);
  const busy = await ctx.load(read);
  running = false;
  await background;
  if (failure) throw failure;
  const row = (label: string, r: typeof idle) => ({ label: `${storage}: GET comments ${label} (c=${r.connections})`, role: 'subject' as const, throughput: r.rps, unit: 'req/s', p50Ms: r.latencyMs.p50, p99Ms: r.latencyMs.p99, errors: r.errors.total });
  ctx.row(row('idle', idle));
  ctx.row(row('during aggregations', busy));
  ctx.figure({ key: key('P99Ratio'), label: `${storage}: GET comments p99 during aggregations ÷ idle`, value: busy.latencyMs.p99 / idle.latencyMs.p99, unit: '×', digits: 2 });
  ctx.figure({ key: key('RpsRatio'), label: `${storage}: GET comments throughput during aggregations ÷ idle`, value: busy.rps / idle.rps, unit: '×', digits: 2 });
  ctx.note(`${storage}: ${scans} aggregation(s) completed during the loaded phase; the one under way when it ended was let finish.`);
}

async function run(ctx: SuiteContext): Promise<void> {
  // Scans on FerretDB take minutes; the page being read stays in memory throughout.
  const hour = String(60 * 60_000);
  const slow = { AGGREGATION_RUN_TIMEOUT_MS: hour, AGGREGATION_QUEUE_TIMEOUT_MS: hour, ACTOR_IDLE_MS: hour };
  const lmdb = await ctx.startServer({ env: slow });
  await seedReadPage(lmdb);
  ctx.progress(`seeding ${DOCS.toLocaleString('en-US')} comments into LMDB`);
  await seed(lmdb, undefined, ctx.progress);
  await measure(ctx, lmdb, 'lmdb');
  await lmdb.stop();

  let uri = process.env['MONGODB_URI'];
  if (!uri && ferretdbBinary()) {
    const ferret = await startFerretDb();
    ctx.onCleanup(() => ferret.destroy());
    uri = ferret.uri;
    ctx.note('MongoDB half on FerretDB (SQLite backend), which reads far slower than MongoDB itself.');
  }
  if (!uri) {
    ctx.note('MongoDB half not run: no MONGODB_URI and no FerretDB in .tools/bin.');
    return;
  }
  const db = `bench_aggregate_${Date.now()}`;
  const mongo = await ctx.startServer({ env: { ...slow, MONGODB_URI: uri, MONGODB_DB: db } });
  // Before the bulk: FerretDB reads a whole collection to find a page's comments.
  await seedReadPage(mongo);
  ctx.onCleanup(async () => {
    const client = await new MongoClient(uri).connect();
    await client.db(db).dropDatabase().finally(() => client.close());
  });
  ctx.progress(`seeding ${DOCS.toLocaleString('en-US')} comments into MongoDB`);
  await seed(mongo, { uri, db }, ctx.progress);
  await measure(ctx, mongo, 'mongodb');
}

/** See the module comment. */
export const aggregateScan: Suite = {
  name: 'aggregate-scan',
  description: 'POST /api/v1/aggregate, count by urlId over 1,000,000 comments on LMDB and MongoDB: documents scanned per second, main-thread CPU during the scan, and GET /api/v1/comments latency idle and during scans.',
  targets: [
    { figure: 'lmdbP99Ratio', op: '<=', value: 2, description: 'GET comments p99 during scans, LMDB' },
    { figure: 'mongodbP99Ratio', op: '<=', value: 2, description: 'GET comments p99 during scans, MongoDB' },
    { figure: 'lmdbMainCpuPct', op: '<=', value: 5, description: 'main thread stays free during a scan, LMDB' },
  ],
  run,
};
