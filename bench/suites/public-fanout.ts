/**
 * Live fan-out of the widget API's comments (`POST /comments/{tenantId}`, anonymous readers):
 *
 * 1. One page with many websocket subscribers (10,000 by default, `--connections N`): new
 *    comments are posted one at a time; each must reach every subscriber. Reported: the time
 *    from the post's acknowledgement (its HTTP answer received here) to each subscriber's
 *    receipt, p50/p99/max over every (subscriber, comment) pair, and the time until the last
 *    subscriber had it.
 * 2. 2,000 pages with 5 subscribers each while comments arrive at a steady rate, round-robin
 *    over the pages: every subscriber of a page receives that page's comments, none other.
 *
 * Subscribers are the raw sockets of the `fanout` suite (this process; frames are split, timed
 * and, for one in a hundred, parsed). The posts come from this process too, so acknowledgement
 * and receipt share one clock.
 */
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import { LiveIds } from '../../actors/live/live-ids.js';
import { liveSecret } from '../../actors/live/live-secret.js';
import { COLLECTIONS } from '../../storage/collections.js';
import { createStore } from '../../storage/create-store.js';
import { processCpuSeconds } from '../lib/cpu.js';
import type { ServerProcess } from '../lib/processes.js';
import type { Suite, SuiteContext } from '../lib/suite.js';
import { Subscriber } from './fanout.js';

const DEFAULT_SUBSCRIBERS = 10_000;
const HOT_PAGE = '/bench/public-fanout';
const HOT_COMMENTS = 5;
const PAGES = 2000;
const PER_PAGE = 5;
const COMMENTS_PER_SECOND = 40;
const CONNECT_BATCH = 100;
const REFERENCE_EVERY = 100;
const DRAIN_TIMEOUT_MS = 30_000;

/** Posts one comment on `urlId` as a new anonymous reader; answers when its acknowledgement arrived, or throws. */
async function post(server: ServerProcess, urlId: string, text: string): Promise<number> {
  const res = await fetch(`${server.url}/comments/${server.tenant.tenantId}?urlId=${encodeURIComponent(urlId)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: 'http://localhost:3000' },
    body: JSON.stringify({ commenterName: 'Bench reader', commenterEmail: null, comment: text, url: `https://bench.example${urlId}`, urlId, pageTitle: 'Bench', parentId: null }),
  });
  const at = performance.now();
  const body = await res.text();
  if (res.status !== 200) throw new Error(`POST /comments answered ${res.status} ${body.slice(0, 200)}`);
  return at;
}

/** Connects `subscribers` (batches of 100) to the paths given; answers how many connected and the seconds it took. */
async function connectAll(server: ServerProcess, subscribers: readonly Subscriber[], pathOf: (i: number) => string): Promise<{ connected: number; seconds: number; error: string | undefined }> {
  const start = performance.now();
  let connected = 0;
  for (let i = 0; i < subscribers.length; i += CONNECT_BATCH) {
    const batch = subscribers.slice(i, i + CONNECT_BATCH);
    const results = await Promise.allSettled(batch.map((s, k) => s.open(server.port, pathOf(i + k))));
    const failed = results.find((r) => r.status === 'rejected');
    connected += results.filter((r) => r.status === 'fulfilled').length;
    if (failed !== undefined) return { connected, seconds: (performance.now() - start) / 1000, error: String((failed as PromiseRejectedResult).reason) };
  }
  return { connected, seconds: (performance.now() - start) / 1000, error: undefined };
}

/** Waits until every open subscriber of `group` has `expected` frames (at most 30 s). */
async function reached(group: readonly Subscriber[], expected: (s: Subscriber, i: number) => number): Promise<boolean> {
  const deadline = performance.now() + DRAIN_TIMEOUT_MS;
  while (performance.now() < deadline) {
    if (group.every((s, i) => s.closed || s.frames >= expected(s, i))) return true;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return false;
}

/** Waits (at most 30 s) until the server is idle: connecting readers leaves presence frames to send, which are work. */
async function quiet(pid: number): Promise<void> {
  let before = processCpuSeconds(pid) ?? 0;
  for (let i = 0; i < 60; i++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = processCpuSeconds(pid) ?? before;
    if (now - before < 0.05) return;
    before = now;
  }
}

const ms = (h: RecordableHistogram, p: number) => (h.count === 0 ? 0 : h.percentile(p) / 1000);
const record = (h: RecordableHistogram, deltaMs: number) => h.record(Math.max(1, Math.round(deltaMs * 1000)));

async function run(ctx: SuiteContext): Promise<void> {
  const { durationSeconds } = ctx.options;
  const wanted = ctx.options.connections ?? DEFAULT_SUBSCRIBERS;
  const dataDir = ctx.tempDir('bench-public-fanout-');
  const setup = createStore({ dataDir }, COLLECTIONS);
  await setup.open();
  const liveIds = new LiveIds(await liveSecret(setup));
  await setup.close();
  const server = await ctx.startServer({ env: { DATA_DIR: dataDir, PUBLIC_COMMENTS_PER_MINUTE: '1000000000', PUBLIC_COMMENT_BURST: '1000000000' } });
  const tenantId = server.tenant.tenantId;
  const pathOf = (urlId: string) => `/sub?${new URLSearchParams({ urlId: liveIds.urlIdWS(tenantId, urlId), tenantIdWS: liveIds.tenantIdWS(tenantId) })}`;
  await post(server, HOT_PAGE, 'the page exists');

  // 1. One hot page.
  ctx.progress(`connect ${wanted} subscribers to one page`);
  const hot = Array.from({ length: wanted }, (_, i) => new Subscriber(i % REFERENCE_EVERY === 0));
  ctx.onCleanup(() => hot.forEach((s) => s.close()));
  const hotPath = pathOf(HOT_PAGE);
  const joined = await connectAll(server, hot, () => hotPath);
  const live = hot.slice(0, joined.connected);
  if (joined.error !== undefined) ctx.note(`Connecting stopped at ${joined.connected} of ${wanted} subscribers: ${joined.error}.`);
  await quiet(server.pid);
  ctx.progress(`post ${HOT_COMMENTS} comments, one at a time, each awaited at every subscriber`);
  const hotLatency = createHistogram();
  const toAll = createHistogram();
  let hotComplete = true;
  const base = live.map((s) => s.frames);
  const cpu0 = processCpuSeconds(server.pid) ?? 0;
  const wall0 = performance.now();
  for (let k = 0; k < HOT_COMMENTS; k++) {
    const ackedAt = await post(server, HOT_PAGE, `hot comment ${k}`);
    const complete = await reached(live, (_, i) => base[i]! + k + 1);
    hotComplete &&= complete;
    let last = 0;
    for (let i = 0; i < live.length; i++) {
      const s = live[i]!;
      if (s.frames <= base[i]! + k) continue;
      const at = s.arrivals[base[i]! + k]!;
      record(hotLatency, at - ackedAt);
      last = Math.max(last, at);
    }
    record(toAll, last - ackedAt);
  }
  const hotServerCores = ((processCpuSeconds(server.pid) ?? 0) - cpu0) / ((performance.now() - wall0) / 1000);
  const hotReached = live.filter((s, i) => s.frames >= base[i]! + HOT_COMMENTS).length;
  ctx.figure({ key: 'hotSubscribers', label: 'subscribers on the hot page', value: live.length, unit: '' });
  ctx.figure({ key: 'hotConnectSeconds', label: 'time to connect them', value: joined.seconds, unit: 's', digits: 1 });
  ctx.figure({ key: 'hotReachedAll', label: `subscribers that received all ${HOT_COMMENTS} comments`, value: hotReached, unit: '' });
  ctx.figure({ key: 'hotP50Ms', label: 'post acknowledged → received, p50 (every subscriber, every comment)', value: ms(hotLatency, 50), unit: 'ms' });
  ctx.figure({ key: 'hotP99Ms', label: 'post acknowledged → received, p99', value: ms(hotLatency, 99), unit: 'ms' });
  ctx.figure({ key: 'hotMaxMs', label: 'post acknowledged → received, max', value: hotLatency.count === 0 ? 0 : hotLatency.max / 1000, unit: 'ms' });
  ctx.figure({ key: 'hotToAllMs', label: 'post acknowledged → the last subscriber has it (worst comment)', value: toAll.count === 0 ? 0 : toAll.max / 1000, unit: 'ms' });
  ctx.figure({ key: 'hotServerCores', label: 'server CPU while fanning out', value: hotServerCores, unit: 'cores', digits: 2 });
  if (!hotComplete) ctx.note(`Not every hot-page subscriber had every comment ${DRAIN_TIMEOUT_MS / 1000} s after it was posted.`);
  hot.forEach((s) => s.close());
  await quiet(server.pid);

  // 2. Many pages, a few readers each, a steady comment rate.
  const count = PAGES * PER_PAGE;
  ctx.progress(`connect ${PAGES} pages × ${PER_PAGE} subscribers`);
  const many = Array.from({ length: count }, (_, i) => new Subscriber(i % REFERENCE_EVERY === 0));
  ctx.onCleanup(() => many.forEach((s) => s.close()));
  const pagePaths = Array.from({ length: PAGES }, (_, p) => pathOf(`/bench/pages/${p}`));
  // Subscriber i watches page i mod PAGES.
  const spread = await connectAll(server, many, (i) => pagePaths[i % PAGES]!);
  const connected = many.slice(0, spread.connected);
  if (spread.error !== undefined) ctx.note(`Connecting the pages stopped at ${spread.connected} of ${count} subscribers: ${spread.error}.`);
  await quiet(server.pid);
  const before = connected.map((s) => s.frames);
  ctx.progress(`comments at ${COMMENTS_PER_SECOND}/s round-robin over ${PAGES} pages (${durationSeconds} s)`);
  const acks: number[] = [];
  const failures = new Map<string, number>();
  const pending: Promise<void>[] = [];
  const start = performance.now();
  const total = Math.round(durationSeconds * COMMENTS_PER_SECOND);
  const cpu1 = processCpuSeconds(server.pid) ?? 0;
  for (let n = 0; n < total; n++) {
    const due = start + (n * 1000) / COMMENTS_PER_SECOND;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const index = n;
    pending.push(
      post(server, `/bench/pages/${index % PAGES}`, `steady comment ${index}`).then(
        (at) => void (acks[index] = at),
        (err: unknown) => void failures.set(String(err).slice(0, 120), (failures.get(String(err).slice(0, 120)) ?? 0) + 1),
      ),
    );
  }
  await Promise.all(pending);
  const steadySeconds = (performance.now() - start) / 1000;
  const steadyCores = ((processCpuSeconds(server.pid) ?? 0) - cpu1) / steadySeconds;
  // A page's j-th comment is comment p + j × PAGES: what each of its subscribers must have.
  const owed = (p: number) => acks.filter((at, n) => at !== undefined && n % PAGES === p).length;
  const owedOf = Array.from({ length: PAGES }, (_, p) => owed(p));
  const steadyComplete = await reached(connected, (_, i) => before[i]! + owedOf[i % PAGES]!);
  const steadyLatency = createHistogram();
  let missing = 0;
  let extra = 0;
  for (let i = 0; i < connected.length; i++) {
    const s = connected[i]!;
    const p = i % PAGES;
    const got = s.frames - before[i]!;
    if (got < owedOf[p]!) missing += owedOf[p]! - got;
    if (got > owedOf[p]!) extra += got - owedOf[p]!;
    for (let j = 0; j < Math.min(got, owedOf[p]!); j++) {
      const ackedAt = acks[p + j * PAGES];
      if (ackedAt !== undefined) record(steadyLatency, s.arrivals[before[i]! + j]! - ackedAt);
    }
  }
  const acked = acks.filter((a) => a !== undefined).length;
  ctx.figure({ key: 'pagesSubscribers', label: `subscribers over ${PAGES} pages`, value: connected.length, unit: '' });
  ctx.figure({ key: 'steadyPerSecond', label: 'comments acknowledged per second', value: acked / steadySeconds, unit: '/s' });
  ctx.figure({ key: 'steadyMissing', label: "deliveries missing (a subscriber without one of its page's comments)", value: missing, unit: '' });
  ctx.figure({ key: 'steadyExtra', label: "frames a subscriber got beyond its page's comments", value: extra, unit: '' });
  ctx.figure({ key: 'steadyP50Ms', label: 'post acknowledged → received, p50', value: ms(steadyLatency, 50), unit: 'ms' });
  ctx.figure({ key: 'steadyP99Ms', label: 'post acknowledged → received, p99', value: ms(steadyLatency, 99), unit: 'ms' });
  ctx.figure({ key: 'steadyServerCores', label: 'server CPU at the steady rate', value: steadyCores, unit: 'cores', digits: 2 });
  if (!steadyComplete) ctx.note(`Not every page subscriber had its page's comments ${DRAIN_TIMEOUT_MS / 1000} s after the last post.`);
  for (const [reason, n] of failures) ctx.note(`${n} posts failed: ${reason}`);
  const rss = server.rssBytes();
  if (rss !== undefined) ctx.figure({ key: 'serverRssMb', label: 'server resident memory at the end', value: rss / 1024 / 1024, unit: 'MB', digits: 0 });
  ctx.note(
    `Posts are real widget-API calls (POST /comments/{tenantId}, a new anonymous reader each, durable before the answer). ` +
      `Latency is from the answer's arrival here to the frame's first bytes at each subscriber; a frame can arrive before the answer (the event is published when the write is durable, as the answer is sent), and counts as 1 µs then.`,
  );
}

/** See the module comment. */
export const publicFanout: Suite = {
  name: 'public-fanout',
  description: `New widget-API comments fanned out live: one page with ${DEFAULT_SUBSCRIBERS.toLocaleString('en-US')} subscribers; then ${PAGES} pages × ${PER_PAGE} subscribers under a steady comment rate.`,
  targets: [
    { figure: 'steadyMissing', op: '<=', value: 0, description: "every page subscriber receives its page's comments" },
    { figure: 'steadyExtra', op: '<=', value: 0, description: 'no subscriber receives another page\'s comments' },
  ],
  run,
};
