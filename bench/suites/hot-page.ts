/**
 * One hot page grown to a large size (`HOT_PAGE_COMMENTS`, default 100,000) in blocks (to 1,000, to 10,000, then tenths):
 * 48 writers post comments (`POST /api/v1/comments`, durable on LMDB) while one reader views the
 * page anonymously (`GET /comments/{tenantId}`, the widget's default order, rebuilt after every
 * change) and one voter votes on random comments. Per block: comments per second, server CPU per
 * comment (from /proc), p99 of the concurrent view and vote, and the server's event-loop delay
 * (prom-client's `monitorEventLoopDelay` figures on the metrics port, reset at every scrape).
 *
 * At 1,000, 10,000 and the final size the server is restarted on the same data and the first
 * page view timed (cold activation: the page's head answers it while the rest loads), and, while it is down, the page's comments and votes are
 * loaded here into the actor's own state classes to measure heap per resident comment (after
 * a forced collection, beyond the bytes of the comment texts).
 */
import { createServer } from 'node:net';
import { createHistogram } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { CommentDoc } from '../../actors/page/comment-doc.js';
import { changedComment } from '../../actors/page/comment-doc.js';
import { PageState } from '../../actors/page/page-state.js';
import { type PublicListQuery, publicListJson } from '../../actors/page/public-listing.js';
import { publicSource } from '../../actors/page/public-source.js';
import type { VoteDoc } from '../../actors/page/vote-doc.js';
import { COLLECTIONS } from '../../storage/collections.js';
import { createStore } from '../../storage/create-store.js';
import { processCpuSeconds } from '../lib/cpu.js';
import type { ServerProcess } from '../lib/processes.js';
import type { Suite, SuiteContext } from '../lib/suite.js';
import { resolvePublicQuery } from '../../http/public/read-query.js';

const URL_ID = 'bench-hot-page';
const WRITERS = 48;
const BLOCKS = 10;
/** Sizes at which the page is also measured cold and in memory (below the final size). */
const SNAPSHOTS = [1000, 10_000];

/** Block ends: the snapshot sizes, then tenths of the final size. */
function blockEnds(total: number): number[] {
  const ends = new Set<number>();
  for (const size of SNAPSHOTS) if (size < total) ends.add(size);
  for (let b = 1; b <= BLOCKS; b++) ends.add(Math.ceil((total * b) / BLOCKS));
  return [...ends].sort((a, b) => a - b);
}

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

/** Page actor messages timed so far, and those over 5 ms (one message in eight is timed; awaits included). */
async function pageHandlers(metricsPort: number): Promise<{ count: number; over5ms: number }> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const count = Number(/^comments_actor_handler_duration_seconds_count\{kind="page"\} (\d+)/m.exec(text)?.[1] ?? 0);
  const upTo5 = Number(/^comments_actor_handler_duration_seconds_bucket\{(?:le="0.005",kind="page"|kind="page",le="0.005")\} (\d+)/m.exec(text)?.[1] ?? 0);
  return { count, over5ms: count - upTo5 };
}

/** prom-client's event-loop figures (seconds → ms); reading them resets the server's histogram. */
async function loopDelay(metricsPort: number): Promise<{ p99: number; max: number }> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name} ([0-9.e+-]+)`, 'm').exec(text)?.[1] ?? NaN) * 1000;
  return { p99: value('nodejs_eventloop_lag_p99_seconds'), max: value('nodejs_eventloop_lag_max_seconds') };
}

const gc: () => void = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

/** Heap of the page's comments and votes held in the actor's state, per comment, beyond their texts. */
async function heapPerComment(dataDir: string, tenantId: string): Promise<{ bytes: number; comments: number; loadMs: number; ops: OpCosts }> {
  const store = createStore({ dataDir }, COLLECTIONS);
  await store.open();
  try {
    gc();
    const before = process.memoryUsage().heapUsed;
    const started = performance.now();
    const page = { tenantId, urlId: URL_ID };
    // As the page actor loads: in batches, each comment held in its compact form.
    const state = new PageState(tenantId, URL_ID, () => {});
    let text = 0;
    for await (const batch of store.scan<CommentDoc>('comments', page, { batchSize: 500 })) {
      for (const doc of batch) text += doc.comment.length + doc.commentHTML.length;
      state.holdAll(batch);
    }
    for await (const batch of store.scan<VoteDoc>('votes', page, { batchSize: 500 })) for (const vote of batch) state.votes.add(vote);
    state.source().sorted('MR').slice(0, 30);
    const loadMs = performance.now() - started;
    gc();
    const after = process.memoryUsage().heapUsed;
    const count = state.comments.size;
    const bytes = (after - before - text) / Math.max(1, count);
    const comments = [...state.comments.values()];
    return { bytes, comments: count, loadMs, ops: opCosts(state, comments) };
  } finally {
    await store.close();
  }
}

/** Mean and worst time of single operations on the page's state, µs (this process, no storage). */
interface OpCosts {
  insert: { mean: number; max: number };
  vote: { mean: number; max: number };
  view: { mean: number; max: number };
  remove: { mean: number; max: number };
}

const VIEW: PublicListQuery = resolvePublicQuery({ urlId: '', direction: 'MR', limit: 30 }, {});

function timed(n: number, op: (i: number) => void): { mean: number; max: number } {
  let max = 0;
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    op(i);
    max = Math.max(max, performance.now() - s);
  }
  return { mean: ((performance.now() - started) / n) * 1000, max: max * 1000 };
}

/** What the page actor does per message, on the state alone: insert, vote (then view), view after a change, delete. */
function opCosts(state: PageState, comments: readonly CommentDoc[]): OpCosts {
  const n = 200;
  const template = comments[0]!;
  const insert = timed(n, (i) => {
    const doc = { ...template, _id: `bench-new-${i}`, date: new Date(Date.now() + i).toISOString(), votes: 0 };
    state.comments.set(doc._id, doc);
    state.restructure();
  });
  const vote = timed(n, (i) => {
    const doc = comments[(i * 7919) % comments.length]!;
    const current = state.comments.get(doc._id)!;
    state.comments.set(doc._id, changedComment(current, { votes: current.votes + 1, votesUp: current.votesUp + 1 }));
    state.touch(doc._id);
  });
  const view = timed(n, (i) => {
    const doc = comments[(i * 104_729) % comments.length]!;
    const current = state.comments.get(doc._id)!;
    state.comments.set(doc._id, changedComment(current, { votes: current.votes + 1 }));
    state.touch(doc._id);
    publicListJson(publicSource(state), VIEW, null, '');
  });
  const remove = timed(n, (i) => {
    state.comments.delete(`bench-new-${i}`);
    state.restructure();
  });
  return { insert, vote, view, remove };
}

async function postComment(server: ServerProcess, i: number): Promise<string> {
  const res = await fetch(`${server.url}/api/v1/comments`, {
    method: 'POST',
    headers: { ...server.authHeaders, 'content-type': 'application/json' },
    body: JSON.stringify({ commenterName: `Writer ${i % 500}`, comment: `Comment number ${i} on the hot page, with a few words.`, url: 'https://example.com/hot', urlId: URL_ID, locale: 'en_us' }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST /api/v1/comments: ${res.status} ${text}`);
  return (JSON.parse(text) as { comment: { _id: string } }).comment._id;
}

function p99(h: ReturnType<typeof createHistogram>): number {
  return h.count === 0 ? NaN : h.percentile(99) / 1e6;
}

async function run(ctx: SuiteContext): Promise<void> {
  const total = Number(process.env['HOT_PAGE_COMMENTS'] ?? 100_000);
  const dataDir = ctx.tempDir('bench-hot-page-');
  const metricsPort = await freePort();
  const env = { DATA_DIR: dataDir, METRICS_PORT: String(metricsPort) };
  let server = await ctx.startServer({ env });
  const tenant = server.tenant;
  const ids: string[] = [];
  let posted = 0;

  const coldAt = async (size: number) => {
    await server.stop();
    const heap = await heapPerComment(dataDir, tenant.tenantId);
    ctx.figure({ key: `heapPerComment${size}`, label: `heap per resident comment beyond its text, ${heap.comments} comments`, value: heap.bytes, unit: 'B', digits: 0 });
    for (const [name, cost] of Object.entries(heap.ops)) {
      ctx.figure({ key: `op_${name}_${size}`, label: `${size} comments: one ${name} on the page state (mean; worst of 200 ${cost.max.toFixed(0)} µs)`, value: cost.mean, unit: 'µs', digits: 1 });
    }
    ctx.figure({ key: `stateLoadMs${size}`, label: `load and index ${heap.comments} comments into a page state (this process)`, value: heap.loadMs, unit: 'ms', digits: 0 });
    server = await ctx.startServer({ env, tenant });
    const started = performance.now();
    const res = await fetch(`${server.url}/comments/${tenant.tenantId}?urlId=${URL_ID}`);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`first view after restart: ${res.status}`);
    ctx.figure({ key: `coldViewMs${size}`, label: `first page view after a restart, ${size} comments`, value: performance.now() - started, unit: 'ms', digits: 0 });
  };

  const ends = blockEnds(total);
  for (let b = 0; b < ends.length; b++) {
    const end = ends[b]!;
    const from = posted;
    ctx.progress(`block ${b + 1}: comments ${from}–${end}`);
    const views = createHistogram();
    const votes = createHistogram();
    let writing = true;
    await loopDelay(metricsPort);
    const handlers0 = await pageHandlers(metricsPort);
    const cpu0 = processCpuSeconds(server.pid) ?? 0;
    const t0 = performance.now();
    let next = from;
    const writer = async () => {
      for (let i = next++; i < end; i = next++) ids.push(await postComment(server, i));
    };
    const viewer = async () => {
      while (writing) {
        const s = process.hrtime.bigint();
        const res = await fetch(`${server.url}/comments/${tenant.tenantId}?urlId=${URL_ID}`);
        await res.arrayBuffer();
        views.record(Number(process.hrtime.bigint() - s));
      }
    };
    let voteN = 0;
    const voter = async () => {
      while (writing) {
        if (ids.length === 0) {
          await new Promise((r) => setTimeout(r, 5));
          continue;
        }
        const id = ids[Math.floor(Math.random() * ids.length)]!;
        const s = process.hrtime.bigint();
        const res = await fetch(`${server.url}/api/v1/votes?commentId=${id}&direction=up&userId=hot-${b}-${voteN++}`, { method: 'POST', headers: server.authHeaders });
        await res.arrayBuffer();
        votes.record(Number(process.hrtime.bigint() - s));
      }
    };
    const readers = [viewer(), voter()];
    await Promise.all(Array.from({ length: WRITERS }, writer));
    writing = false;
    await Promise.all(readers);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = (processCpuSeconds(server.pid) ?? 0) - cpu0;
    const loop = await loopDelay(metricsPort);
    const handlers1 = await pageHandlers(metricsPort);
    const timedMessages = handlers1.count - handlers0.count;
    posted = end;
    const n = end - from;
    ctx.row({ label: `comments ${from}–${end}`, role: 'subject', throughput: n / seconds, unit: 'comments/s' });
    ctx.figure({ key: `cpuUs_${b}`, label: `block ${from}–${end}: server CPU per comment (all threads; includes the concurrent views and votes)`, value: (cpu / n) * 1e6, unit: 'µs', digits: 0 });
    ctx.figure({ key: `viewP99_${b}`, label: `block ${from}–${end}: concurrent page view p99 (${views.count} views)`, value: p99(views), unit: 'ms', digits: 1 });
    ctx.figure({ key: `voteP99_${b}`, label: `block ${from}–${end}: concurrent vote p99 (${votes.count} votes)`, value: p99(votes), unit: 'ms', digits: 1 });
    ctx.figure({ key: `loopP99_${b}`, label: `block ${from}–${end}: event-loop delay p99 / max ${loop.max.toFixed(1)} ms`, value: loop.p99, unit: 'ms', digits: 1 });
    ctx.figure({ key: `slowMessages_${b}`, label: `block ${from}–${end}: page actor messages over 5 ms wall time (of ${timedMessages} timed)`, value: handlers1.over5ms - handlers0.over5ms, unit: '' });
    if (b === 0) ctx.figure({ key: 'cpuUsFirst', label: 'server CPU per comment, first block', value: (cpu / n) * 1e6, unit: 'µs', digits: 0 });
    ctx.figure({ key: 'loopP99Last', label: 'event-loop delay p99, last block', value: loop.p99, unit: 'ms', digits: 1 });
    ctx.figure({ key: 'cpuUsLast', label: 'server CPU per comment, last block', value: (cpu / n) * 1e6, unit: 'µs', digits: 0 });
    if (SNAPSHOTS.includes(end) && end < total) await coldAt(end);
  }
  await coldAt(total);
  ctx.note(`${WRITERS} writers, one sequential page viewer (anonymous, default order) and one sequential voter, all in this process on the same machine as the server; the server's event-loop delay has prom-client's 10 ms resolution.`);
}

/** See the module comment. */
export const hotPage: Suite = {
  name: 'hot-page',
  description: 'One page grown to HOT_PAGE_COMMENTS (default 100,000) comments in blocks, with a concurrent page view and vote: cost per comment as the page grows.',
  targets: [{ figure: 'loopP99Last', op: '<=', value: 50, description: 'event-loop delay p99 in the last block (ms)' }],
  run,
};
