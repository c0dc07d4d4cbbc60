/**
 * The question-result aggregate over 1,000,000 results (`QUESTION_BENCH_RESULTS` changes the
 * number) on LMDB: one NPS question, results spread over 1,000 pages and a year of days.
 * Measured: a cache miss answered from the question's tallies (the first call, and
 * `forceRecalculate` calls), a miss that reads every result (a `startDate` makes it), answers
 * from the cache, and, as the baseline of the same run, the generic `POST /api/v1/aggregate`
 * counting the same results by value (the same documents read by the same worker pool). The
 * seed says a miss takes about five seconds per million results: the target is to beat that.
 *
 * Results, and the tallies the questions actor keeps with them, are written straight to the
 * server's storage from this process in batches of 10,000 (LMDB is shared between processes).
 */
import { performance } from 'node:perf_hooks';
import { QUESTION_COLLECTIONS, type QuestionResultDoc } from '../../actors/question/question-model.js';
import { counted, emptyTally, QUESTION_TALLIES, tallyKeys, type TallyDoc } from '../../actors/question/tally.js';
import { COLLECTIONS } from '../../storage/collections.js';
import { createStore } from '../../storage/create-store.js';
import type { WriteOp } from '../../storage/store.js';
import { callApi } from '../lib/api.js';
import { mainThreadCpuSeconds } from '../lib/cpu.js';
import type { ServerProcess } from '../lib/processes.js';
import type { Suite, SuiteContext } from '../lib/suite.js';

const RESULTS = Number(process.env['QUESTION_BENCH_RESULTS'] ?? 1_000_000);
const BATCH = 10_000;
/** Answers from the cache timed one after another. */
const CACHED_CALLS = 200;
/** forceRecalculate calls, each followed by a baseline run. */
const FORCED_RUNS = 3;
const DAY = 86_400_000;

function result(tenantId: string, questionId: string, i: number, start: number): QuestionResultDoc {
  return {
    _id: `qr${String(i).padStart(8, '0')}`,
    tenantId,
    urlId: `page-${i % 1000}`,
    questionId,
    value: (i * 7) % 11,
    userId: i % 3 === 0 ? `user-${i % 10_000}` : null,
    anonUserId: i % 3 === 0 ? null : `anon-${i % 50_000}`,
    commentId: null,
    meta: null,
    createdAt: new Date(start + Math.floor((i / RESULTS) * 365) * DAY + (i % 86_400) * 1000).toISOString(),
  };
}

/** Writes the results, and the tallies the questions actor would have kept with them. */
async function seed(server: ServerProcess, questionId: string, progress: (m: string) => void): Promise<number> {
  const store = createStore({ dataDir: server.dataDir }, COLLECTIONS);
  await store.open();
  const start = Date.UTC(2024, 0, 1);
  const tenantId = server.tenant.tenantId;
  const tallies = new Map<string, TallyDoc>();
  try {
    for (let from = 0; from < RESULTS; from += BATCH) {
      const ops: WriteOp[] = [];
      for (let i = from; i < Math.min(RESULTS, from + BATCH); i++) {
        const doc = result(tenantId, questionId, i, start);
        ops.push({ op: 'put', collection: QUESTION_COLLECTIONS.results, doc });
        for (const slot of tallyKeys(doc)) tallies.set(slot.id, counted(tallies.get(slot.id) ?? emptyTally(tenantId, questionId, slot), doc.value, 1));
      }
      await store.commit(ops);
      if ((from / BATCH) % 20 === 0) progress(`seeded ${from.toLocaleString('en-US')} results`);
    }
    const docs = [...tallies.values()];
    for (let i = 0; i < docs.length; i += BATCH) await store.commit(docs.slice(i, i + BATCH).map((doc): WriteOp => ({ op: 'put', collection: QUESTION_TALLIES, doc })));
    return docs.length;
  } finally {
    await store.close();
  }
}

/** One GET, timed on the client: the answer and whether it came from the cache. */
async function timedGet(server: ServerProcess, path: string): Promise<{ ms: number; bytes: number; cache: string | null; body: { data: { total: number; createdAt: string } } }> {
  const t0 = performance.now();
  const res = await fetch(`${server.url}${path}`, { headers: server.authHeaders });
  const text = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 300)}`);
  return { ms, bytes: Buffer.byteLength(text), cache: res.headers.get('x-cache'), body: JSON.parse(text) };
}

/** The median of some timings. */
function middle(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function run(ctx: SuiteContext): Promise<void> {
  const hour = String(60 * 60_000);
  const server = await ctx.startServer({ env: { AGGREGATION_RUN_TIMEOUT_MS: hour, AGGREGATION_QUEUE_TIMEOUT_MS: hour } });
  const config = await callApi<{ questionConfig: { _id: string } }>(server, 'POST', '/api/v1/question-configs', { name: 'NPS', question: 'Recommend us?', type: 'nps', reportingOrder: 0 });
  const questionId = config.questionConfig._id;
  ctx.progress(`seeding ${RESULTS.toLocaleString('en-US')} results into LMDB`);
  const seedStart = performance.now();
  const tallyCount = await seed(server, questionId, ctx.progress);
  ctx.note(`Seeding ${RESULTS.toLocaleString('en-US')} results straight into LMDB took ${((performance.now() - seedStart) / 1000).toFixed(1)} s.`);

  const path = `/api/v1/question-results-aggregation?questionId=${questionId}&timeBucket=day`;
  const generic = { resourceName: 'QuestionResult', groupBy: ['value'], query: [{ key: 'questionId', value: questionId, operator: 'eq' }], operations: [{ field: 'id', op: 'count', alias: 'n' }] };
  const genericOnce = async () => {
    const t0 = performance.now();
    await callApi(server, 'POST', '/api/v1/aggregate', generic);
    return performance.now() - t0;
  };
  ctx.progress('warm-up: one generic aggregation (storage pages and the worker)');
  await genericOnce();
  // Baseline, subject, baseline, interleaved: the machine's load moves during the run.
  const genericRuns: number[] = [];
  ctx.progress('baseline: POST /api/v1/aggregate, count of QuestionResult by value');
  genericRuns.push(await genericOnce());

  ctx.progress('cold: the first question aggregate (a cache miss)');
  const main0 = mainThreadCpuSeconds(server.pid);
  const cold = await timedGet(server, path);
  const mainMs = ((mainThreadCpuSeconds(server.pid) ?? NaN) - (main0 ?? NaN)) * 1000;
  if (cold.cache !== 'miss' || cold.body.data.total !== RESULTS) throw new Error(`unexpected cold answer: ${cold.cache} ${cold.body.data.total}`);
  genericRuns.push(await genericOnce());
  const forcedRuns: number[] = [];
  let forced = cold;
  for (let i = 0; i < FORCED_RUNS; i++) {
    ctx.progress(`forced ${i + 1}/${FORCED_RUNS}: forceRecalculate (a miss every time)`);
    forced = await timedGet(server, `${path}&forceRecalculate=true`);
    if (forced.cache !== 'miss') throw new Error('forceRecalculate was answered from the cache');
    forcedRuns.push(forced.ms);
    genericRuns.push(await genericOnce());
  }
  // A start date (inclusive, before every result) makes the aggregate read every result instead of the tallies.
  const scanRuns: number[] = [];
  for (let i = 0; i < FORCED_RUNS; i++) {
    ctx.progress(`reading every result ${i + 1}/${FORCED_RUNS}: startDate=0, forceRecalculate`);
    const read = await timedGet(server, `${path}&startDate=0&forceRecalculate=true`);
    if (read.cache !== 'miss' || read.body.data.total !== RESULTS) throw new Error(`unexpected answer reading every result: ${read.body.data.total}`);
    scanRuns.push(read.ms);
    genericRuns.push(await genericOnce());
  }
  const genericMs = middle(genericRuns);
  const forcedMs = middle(forcedRuns);
  const scanMs = middle(scanRuns);

  ctx.progress(`cached: ${CACHED_CALLS} answers from the cache`);
  const cachedMs: number[] = [];
  for (let i = 0; i < CACHED_CALLS; i++) {
    const hit = await timedGet(server, path);
    if (hit.cache !== 'hit' || hit.body.data.createdAt !== forced.body.data.createdAt) throw new Error('expected an answer from the cache');
    cachedMs.push(hit.ms);
  }
  cachedMs.sort((a, b) => a - b);
  const median = middle(cachedMs);
  const p99 = cachedMs[Math.floor(cachedMs.length * 0.99)]!;
  ctx.note(`Generic aggregation runs (ms): ${genericRuns.map((ms) => ms.toFixed(0)).join(', ')}; forced misses from tallies (ms): ${forcedRuns.map((ms) => ms.toFixed(0)).join(', ')}; misses reading every result (ms): ${scanRuns.map((ms) => ms.toFixed(0)).join(', ')}; cold miss ${cold.ms.toFixed(0)} ms.`);
  ctx.note(`The question has ${tallyCount.toLocaleString('en-US')} tallies (one per day and one per page with results).`);
  const perMillion = (ms: number) => (ms / RESULTS) * 1_000_000 / 1000;

  ctx.row({ label: 'POST /api/v1/aggregate, count by value (same results)', role: 'baseline', throughput: RESULTS / (genericMs / 1000), unit: 'results/s' });
  ctx.row({ label: 'question aggregate, cold (cache miss, from tallies)', role: 'subject', throughput: RESULTS / (cold.ms / 1000), unit: 'results/s', ratio: genericMs / cold.ms });
  ctx.row({ label: `question aggregate, forceRecalculate from tallies (median of ${FORCED_RUNS})`, role: 'subject', throughput: RESULTS / (forcedMs / 1000), unit: 'results/s', ratio: genericMs / forcedMs });
  ctx.row({ label: `question aggregate reading every result (startDate, forced; median of ${FORCED_RUNS})`, role: 'subject', throughput: RESULTS / (scanMs / 1000), unit: 'results/s', ratio: genericMs / scanMs });
  ctx.figure({ key: 'coldSecondsPerMillion', label: 'cache miss from tallies: seconds per million results (client-timed, first call)', value: perMillion(cold.ms), unit: 's', digits: 2 });
  ctx.figure({ key: 'forcedSecondsPerMillion', label: `forceRecalculate from tallies: seconds per million results (client-timed, median of ${FORCED_RUNS})`, value: perMillion(forcedMs), unit: 's', digits: 2 });
  ctx.figure({ key: 'scanSecondsPerMillion', label: `miss reading every result (startDate given): seconds per million results (median of ${FORCED_RUNS})`, value: perMillion(scanMs), unit: 's', digits: 2 });
  ctx.figure({ key: 'scanToGeneric', label: 'miss reading every result ÷ generic aggregation time (medians, same run)', value: scanMs / genericMs, unit: '×', digits: 2 });
  ctx.figure({ key: 'genericSecondsPerMillion', label: `baseline, generic aggregation of the same results: seconds per million (median of ${2 * FORCED_RUNS + 2}, interleaved)`, value: perMillion(genericMs), unit: 's', digits: 2 });
  ctx.figure({ key: 'missToGeneric', label: 'forced miss from tallies ÷ generic aggregation time (medians, same run)', value: forcedMs / genericMs, unit: '×', digits: 3 });
  ctx.figure({ key: 'cachedMedianMs', label: `answer from the cache, median of ${CACHED_CALLS} (client-timed)`, value: median, unit: 'ms', digits: 2 });
  ctx.figure({ key: 'cachedP99Ms', label: `answer from the cache, p99 of ${CACHED_CALLS}`, value: p99, unit: 'ms', digits: 2 });
  ctx.figure({ key: 'scanToCached', label: 'miss reading every result ÷ median cached answer time', value: scanMs / median, unit: '×', digits: 0 });
  ctx.figure({ key: 'answerKb', label: 'size of the answer (1,000 pages, 365 days)', value: cold.bytes / 1024, unit: 'KB', digits: 0 });
  ctx.figure({ key: 'coldMainCpuMs', label: 'server main-thread CPU during the cache miss (the scan runs in a worker thread)', value: mainMs, unit: 'ms', digits: 1 });
}

/** See the module comment. */
export const questionAggregate: Suite = {
  name: 'question-aggregate',
  description: 'GET /api/v1/question-results-aggregation over 1,000,000 results on LMDB: misses from tallies and reading every result, and answers from the cache, against the generic aggregation of the same results.',
  targets: [
    { figure: 'coldSecondsPerMillion', op: '<=', value: 5, description: 'the first miss beats the seed’s five seconds per million results' },
    { figure: 'forcedSecondsPerMillion', op: '<=', value: 5, description: 'forced misses beat it too (median)' },
    { figure: 'scanSecondsPerMillion', op: '<=', value: 5, description: 'reading every result (a start date) beats it as well' },
    { figure: 'scanToCached', op: '>=', value: 100, description: 'a cached answer is at least 100× faster than a miss reading every result' },
  ],
  run,
};
