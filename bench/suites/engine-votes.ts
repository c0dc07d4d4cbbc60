/**
 * Votes on one hot page through the real page actor, in process (no HTTP, no load generator):
 * the server's services started on LMDB, 100 comments, and a fixed number of votes in flight
 * through the page locator, as `POST /api/v1/votes` sends them. Each vote is durable, logged
 * and published before its reply, as over HTTP.
 *
 * With HTTP and wrk gone, the figures move far less between runs than `votes-post`'s, so this
 * is the suite to judge a change to the vote path by: CPU per vote on the JavaScript thread and
 * on every thread (the LMDB write workers and the garbage collector's helpers run beside it).
 * The baseline is the store alone committing vote documents of the same shape, one batch in
 * flight, so the ratio is how much of its own storage's rate the vote path keeps.
 */
import { randomBytes } from 'node:crypto';
import { pageLocator } from '../../actors/page/locator.js';
import { VOTES } from '../../actors/page/vote-doc.js';
import { createTenant } from '../../actors/tenant/provision.js';
import { ApiError } from '../../engine/errors.js';
import { loadConfig } from '../../engine/config.js';
import { newId } from '../../engine/ids.js';
import { startServer } from '../../http/server.js';
import { COLLECTIONS } from '../../storage/collections.js';
import { createStore } from '../../storage/create-store.js';
import type { Store, WriteOp } from '../../storage/store.js';
import { mainThreadCpuSeconds, processCpuSeconds } from '../lib/cpu.js';
import { type InFlightResult, keepInFlight, type MeasuredPhase, phaseRow } from '../lib/in-flight.js';
import { LatencyRecorder } from '../lib/latency.js';
import type { Suite, SuiteContext } from '../lib/suite.js';

const URL_ID = 'bench-votes';
const COMMENTS = 100;
const USERS = 2000;
const DEFAULT_IN_FLIGHT = 64;
/** Baseline batch size: about what the page actor commits per batch at 64 votes in flight. */
const BASELINE_BATCH = 32;

interface Phase extends MeasuredPhase {
  /** CPU seconds of this process over the window: the main thread, and all threads. */
  mainCpu: number;
  allCpu: number;
}

/** Runs `body` for the window and measures this process's CPU over it. */
async function measured<T extends Omit<Phase, 'mainCpu' | 'allCpu'>>(body: () => Promise<T>): Promise<T & Phase> {
  const main0 = mainThreadCpuSeconds(process.pid) ?? 0;
  const all0 = processCpuSeconds(process.pid) ?? 0;
  const phase = await body();
  return { ...phase, mainCpu: (mainThreadCpuSeconds(process.pid) ?? 0) - main0, allCpu: (processCpuSeconds(process.pid) ?? 0) - all0 };
}

/** Commits vote-shaped documents of another page, `BASELINE_BATCH` per commit, one in flight. */
function rawVoteCommits(store: Store, tenantId: string, seconds: number): Promise<Phase> {
  return measured(async () => {
    const latency = new LatencyRecorder();
    const start = performance.now();
    const deadline = start + seconds * 1000;
    let done = 0;
    while (performance.now() < deadline) {
      const ops: WriteOp[] = [];
      for (let i = 0; i < BASELINE_BATCH; i++) {
        const now = Date.now();
        const voter = `u:baseline-${done + i}`;
        ops.push({
          op: 'put',
          collection: VOTES,
          doc: { _id: newId(now), tenantId, urlId: 'bench-baseline', commentId: 'baseline', userId: voter, anonUserId: null, voterKey: voter, direction: 1, kind: 'authorized', createdAt: new Date(now).toISOString() },
        });
      }
      const t0 = process.hrtime.bigint();
      await store.commit(ops);
      latency.recordSince(t0);
      done += BASELINE_BATCH;
    }
    return { done, windowSeconds: (performance.now() - start) / 1000, latency, errors: new Map() };
  });
}

/** `keepInFlight` with this process's CPU over the window. */
function hotVotes(vote: (i: number) => Promise<unknown>, inFlight: number, seconds: number, first: number): Promise<InFlightResult & Phase> {
  return measured(() => keepInFlight(vote, inFlight, seconds, first));
}

async function run(ctx: SuiteContext): Promise<void> {
  const { durationSeconds, warmupSeconds } = ctx.options;
  const inFlight = ctx.options.connections ?? DEFAULT_IN_FLIGHT;
  const dataDir = ctx.tempDir('bench-engine-votes-');

  const setup = createStore({ dataDir }, COLLECTIONS);
  await setup.open();
  const tenant = await createTenant(setup, { name: 'Bench' });
  await setup.close();
  const config = { ...loadConfig({}, []), port: 0, host: '127.0.0.1', dataDir, mongodbUri: undefined, logLevel: 'warn' as const, demoTenant: false };
  const server = await startServer(config);
  ctx.onCleanup(() => server.stop());
  const { tenantId } = tenant;
  const headers = { 'x-api-key': tenant.apiKey, 'x-tenant-id': tenantId, 'content-type': 'application/json' };
  const base = `http://127.0.0.1:${server.port}`;

  ctx.progress(`seeding ${COMMENTS} comments`);
  const ids: string[] = [];
  for (let i = 0; i < COMMENTS; i++) {
    const res = await fetch(`${base}/api/v1/comments`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ commenterName: `Author ${i}`, comment: `Vote on comment ${i}`, url: 'https://example.com/votes', urlId: URL_ID, locale: 'en_us' }),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`seeding comment ${i}: ${res.status} ${text}`);
    ids.push((JSON.parse(text) as { comment: { _id: string } }).comment._id);
  }

  const locator = pageLocator(server.services.system);
  const tag = randomBytes(4).toString('hex');
  const missing = () => new ApiError('invalid-comment-id');
  // Request i votes as user (i ÷ 100) mod 2000 on comment i mod 100, like votes-post: up on
  // the first visit of a pair, then the other way each time, so no vote is a duplicate.
  const vote = (i: number) => {
    const commentId = ids[i % COMMENTS]!;
    const pair = Math.floor(i / COMMENTS);
    const userId = `u${tag}-${pair % USERS}`;
    const direction = Math.floor(pair / USERS) % 2 === 0 ? 1 : -1;
    return locator.ask('comment', tenantId, commentId, 'vote', { commentId, by: { userId, anonUserId: null }, direction }, missing);
  };
  const store = server.services.store;

  if (warmupSeconds > 0) {
    ctx.progress(`warm-up raw vote commits, then votes (${warmupSeconds} s each)`);
    await rawVoteCommits(store, tenantId, warmupSeconds);
  }
  ctx.progress(`measure raw vote commits (${durationSeconds} s)`);
  const before = await rawVoteCommits(store, tenantId, durationSeconds);
  const first = warmupSeconds > 0 ? (await hotVotes(vote, inFlight, warmupSeconds, 0)).issued : 0;
  ctx.progress(`measure votes (${durationSeconds} s, ${inFlight} in flight)`);
  const stats0 = { ...server.services.system.stats };
  const hot = await hotVotes(vote, inFlight, durationSeconds, first);
  const batches = server.services.system.stats.batches - stats0.batches;
  ctx.progress(`measure raw vote commits again (${durationSeconds} s)`);
  const after = await rawVoteCommits(store, tenantId, durationSeconds);

  const baselineRate = (before.done / before.windowSeconds + after.done / after.windowSeconds) / 2;
  const rate = hot.done / hot.windowSeconds;
  const baselineLabel = `store.commit of vote documents, ${BASELINE_BATCH} per batch, 1 in flight`;
  ctx.row(phaseRow(`${baselineLabel}, before`, 'baseline', 'puts/s', before));
  ctx.row(phaseRow(`votes through the page actor, ${inFlight} in flight`, 'subject', 'votes/s', hot, rate / baselineRate));
  ctx.row(phaseRow(`${baselineLabel}, after`, 'baseline', 'puts/s', after));

  const perVote = (seconds: number) => (hot.done === 0 ? 0 : (seconds * 1e6) / hot.done);
  const perPut = (seconds: number, phase: Phase) => (phase.done === 0 ? 0 : (seconds * 1e6) / phase.done);
  ctx.figure({ key: 'votesPerSecond', label: 'durable votes acknowledged per second', value: rate, unit: 'votes/s' });
  ctx.figure({ key: 'baselinePutsPerSecond', label: 'raw vote-document puts per second (mean of both runs)', value: baselineRate, unit: 'puts/s' });
  ctx.figure({ key: 'ratio', label: 'votes/s ÷ raw puts/s', value: rate / baselineRate, unit: '×', digits: 3 });
  ctx.figure({ key: 'mainCpuUs', label: 'main-thread CPU per vote', value: perVote(hot.mainCpu), unit: 'µs', digits: 1 });
  ctx.figure({ key: 'processCpuUs', label: 'CPU per vote, all threads', value: perVote(hot.allCpu), unit: 'µs', digits: 1 });
  ctx.figure({ key: 'baselineMainCpuUs', label: 'main-thread CPU per raw put (first run)', value: perPut(before.mainCpu, before), unit: 'µs', digits: 1 });
  ctx.figure({ key: 'baselineProcessCpuUs', label: 'CPU per raw put, all threads (first run)', value: perPut(before.allCpu, before), unit: 'µs', digits: 1 });
  ctx.figure({ key: 'batchesPerSecond', label: 'actor storage batches per second (the page and its event log)', value: batches / hot.windowSeconds, unit: 'batches/s' });
  ctx.figure({ key: 'p99Ms', label: 'vote latency p99', value: hot.latency.percentileMs(99), unit: 'ms' });
  const failed = [...hot.errors.values()].reduce((a, b) => a + b, 0);
  ctx.figure({ key: 'failedVotes', label: 'failed votes', value: failed, unit: '' });
  for (const [code, n] of hot.errors) ctx.note(`${n} votes failed with ${code}.`);
  ctx.note('Runs in the benchmark process itself: its CPU figures are the server\'s, with nothing else in that process under load.');
}

/** See the module comment. */
export const engineVotes: Suite = {
  name: 'engine-votes',
  description:
    'Durable votes on one hot page through the real page actor (server services on LMDB, no HTTP), a fixed number in flight, ' +
    'versus raw store.commit of vote documents in the same run; CPU per vote on the main thread and all threads.',
  targets: [{ figure: 'failedVotes', op: '<=', value: 0, description: 'failed votes' }],
  run,
};
