/**
 * Live fan-out: 2,000 websocket subscribers on one page while real votes (`POST /api/v1/votes`)
 * arrive at 200 per second. Measures whether every subscriber receives every vote event (zero
 * lost, same order everywhere) and the time from a vote's acknowledgement (its HTTP response
 * received here) to the event's receipt at each subscriber.
 *
 * The subscribers live in a child process of their own (fanout-clients.ts, over ws-subscriber.ts):
 * raw TCP sockets that speak just enough of RFC 6455 to upgrade and split frames, so that many
 * frames a second cost little CPU. Every subscriber records when each frame arrived; one in a
 * hundred also parses its frames, which identifies the k-th frame (the same event at every
 * subscriber, since every one must receive the same stream) and checks that order. The vote
 * driver runs in this process; acknowledgement and receipt times are absolute, so the two
 * processes' clocks agree. Both processes' CPU and the subscribers' event-loop utilisation are
 * reported: on a small machine 10,000 subscribers can saturate their own process, and their
 * receipt times then include their own queueing. At the end every reference subscriber's summed
 * vote changes per comment are checked against the stored counts.
 *
 * The baseline is the same vote load with no subscriber: what fan-out costs the write path.
 *
 * With enough subscribers the page is hot (`LIVE_VOTE_COALESCE`, on by default) and votes arrive
 * folded into `cvc` frames: then the stream must add up to every acknowledged vote, and the j-th
 * vote acknowledged counts as delivered by the first frame that brings the stream's sum past j.
 * `LIVE_VOTE_COALESCE=0 npm run bench -- fanout` measures one frame per vote per subscriber.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import { LiveIds } from '../../actors/live/live-ids.js';
import { liveSecret } from '../../actors/live/live-secret.js';
import { COLLECTIONS } from '../../storage/collections.js';
import { createStore } from '../../storage/create-store.js';
import { machineBusySeconds, processCpuSeconds } from '../lib/cpu.js';
import type { ServerProcess } from '../lib/processes.js';
import type { ClientsReply, ClientsRequest } from './fanout-clients.js';
import type { Suite, SuiteContext } from '../lib/suite.js';

export { Subscriber } from './ws-subscriber.js';

const DEFAULT_SUBSCRIBERS = 2000;
const VOTES_PER_SECOND = 200;
const COMMENTS = 50;
const PAGE = '/bench/fanout';
/** Every this many subscribers, one parses its frames. */
const REFERENCE_EVERY = 100;
const CONNECT_BATCH = 100;
const DRAIN_TIMEOUT_MS = 15_000;

interface VotePhase {
  sent: number;
  acked: number;
  failed: Map<string, number>;
  /** voteId → when its acknowledgement arrived (ms since the epoch, `performance.timeOrigin + performance.now()`). */
  ackedAt: Map<string, number>;
  latency: RecordableHistogram;
  seconds: number;
}

/** Sends votes at `rate` per second for `seconds`, each by a new anonymous voter, round-robin over the comments. */
async function driveVotes(server: ServerProcess, commentIds: readonly string[], rate: number, seconds: number, label: string): Promise<VotePhase> {
  const phase: VotePhase = { sent: 0, acked: 0, failed: new Map(), ackedAt: new Map(), latency: createHistogram(), seconds };
  const pending = new Set<Promise<void>>();
  const start = performance.now();
  const end = start + seconds * 1000;
  const vote = (i: number): Promise<void> => {
    const query = new URLSearchParams({ commentId: commentIds[i % commentIds.length]!, direction: 'up', anonUserId: `${label}-${i}` });
    const sentAt = performance.now();
    return fetch(`${server.url}/api/v1/votes?${query}`, { method: 'POST', headers: server.authHeaders })
      .then(async (res) => {
        const now = performance.now();
        const ackedAt = performance.timeOrigin + now;
        const body = (await res.json()) as { voteId?: string; code?: string };
        if (res.status !== 200 || body.voteId === undefined) throw new Error(body.code ?? `HTTP ${res.status}`);
        phase.acked++;
        phase.ackedAt.set(body.voteId, ackedAt);
        phase.latency.record(Math.max(1, Math.round((now - sentAt) * 1000)));
      })
      .catch((err: unknown) => {
        const key = err instanceof Error ? err.message : String(err);
        phase.failed.set(key, (phase.failed.get(key) ?? 0) + 1);
      });
  };
  while (performance.now() < end) {
    const due = Math.min(Math.floor(((performance.now() - start) / 1000) * rate), Math.round(seconds * rate));
    while (phase.sent < due) {
      const p = vote(phase.sent++);
      pending.add(p);
      void p.then(() => pending.delete(p));
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(pending);
  return phase;
}

function ms(histogram: RecordableHistogram, p: number): number {
  return histogram.count === 0 ? 0 : histogram.percentile(p) / 1000;
}

async function seedComments(server: ServerProcess): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < COMMENTS; i++) {
    const res = await fetch(`${server.url}/api/v1/comments`, {
      method: 'POST',
      headers: { ...server.authHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({ commenterName: `Reader ${i}`, comment: `Comment ${i}`, url: `https://bench.example${PAGE}`, urlId: PAGE, locale: 'en_us' }),
    });
    const body = (await res.json()) as { comment?: { _id?: string }; code?: string };
    if (res.status !== 200 || !body.comment?._id) throw new Error(`cannot create a comment to vote on: ${res.status} ${body.code ?? ''}`);
    ids.push(body.comment._id);
  }
  return ids;
}

/** The subscribers' process (fanout-clients.ts), asked one thing at a time. */
class Clients {
  readonly #child: ChildProcess;
  #waiting: ((reply: ClientsReply) => void) | undefined;

  constructor() {
    this.#child = fork(fileURLToPath(new URL('./fanout-clients.js', import.meta.url)), [], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.#child.on('message', (reply: ClientsReply) => {
      const waiting = this.#waiting;
      this.#waiting = undefined;
      waiting?.(reply);
    });
  }

  get pid(): number {
    return this.#child.pid!;
  }

  ask<T extends ClientsReply['type']>(request: ClientsRequest, answer: T): Promise<Extract<ClientsReply, { type: T }>> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the subscribers' process exited (${code})`));
      this.#child.once('exit', onExit);
      this.#waiting = (reply) => {
        this.#child.off('exit', onExit);
        if (reply.type === answer) resolve(reply as Extract<ClientsReply, { type: T }>);
        else reject(new Error(`expected ${answer}, got ${reply.type}`));
      };
      this.#child.send(request);
    });
  }

  /** Tells the process to measure from now, without an answer. */
  tell(request: ClientsRequest): void {
    this.#child.send(request);
  }

  kill(): void {
    if (this.#child.exitCode === null) this.#child.kill();
  }
}

/** Waits until every open subscriber has as many frames as the first reference, and that one has `expected`. */
async function drained(clients: Clients, expected: number): Promise<boolean> {
  const deadline = performance.now() + DRAIN_TIMEOUT_MS;
  while (performance.now() < deadline) {
    const status = await clients.ask({ type: 'status' }, 'status');
    // One frame per vote, or fewer frames adding up to every vote (cvc frames of a hot page).
    const arrived = status.referenceFrames >= expected || status.referenceVotes >= expected;
    if (arrived && status.minFrames >= status.referenceFrames) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

/** Net stored votes per comment of the page (the admin API). */
async function storedVotes(server: ServerProcess): Promise<Map<string, number>> {
  const res = await fetch(`${server.url}/api/v1/comments?${new URLSearchParams({ urlId: PAGE, limit: String(COMMENTS * 2) })}`, { headers: server.authHeaders });
  const body = (await res.json()) as { comments?: { _id: string; votes?: number }[] };
  return new Map((body.comments ?? []).map((c) => [c._id, c.votes ?? 0]));
}

async function run(ctx: SuiteContext): Promise<void> {
  const { durationSeconds, warmupSeconds } = ctx.options;
  const count = ctx.options.connections ?? DEFAULT_SUBSCRIBERS;

  // The live ids are MACs under a secret the server keeps in storage: create it first, so that
  // this process can mint the ids a widget would be handed.
  const dataDir = ctx.tempDir('bench-fanout-');
  const setup = createStore({ dataDir }, COLLECTIONS);
  await setup.open();
  const liveIds = new LiveIds(await liveSecret(setup));
  await setup.close();
  const server = await ctx.startServer({ env: { DATA_DIR: dataDir } });
  const tenantId = server.tenant.tenantId;
  const path = `/sub?${new URLSearchParams({ urlId: liveIds.urlIdWS(tenantId, PAGE), tenantIdWS: liveIds.tenantIdWS(tenantId) })}`;

  ctx.progress(`seed ${COMMENTS} comments`);
  const commentIds = await seedComments(server);

  ctx.progress(`baseline: votes at ${VOTES_PER_SECOND}/s, no subscribers (${durationSeconds} s)`);
  const aloneCpu0 = processCpuSeconds(server.pid) ?? 0;
  const aloneWall0 = performance.now();
  const alone = await driveVotes(server, commentIds, VOTES_PER_SECOND, durationSeconds, 'alone');
  const aloneServerCores = ((processCpuSeconds(server.pid) ?? 0) - aloneCpu0) / ((performance.now() - aloneWall0) / 1000);

  ctx.progress(`connect ${count} subscribers (in a process of their own)`);
  const clients = new Clients();
  ctx.onCleanup(() => clients.kill());
  const opened = await clients.ask({ type: 'open', port: server.port, path, count, referenceEvery: REFERENCE_EVERY, batch: CONNECT_BATCH }, 'opened');
  if (opened.error !== undefined) throw new Error(`subscribers could not connect: ${opened.error}`);
  const connectSeconds = opened.seconds;
  // Every vote before this is acknowledged and durable: what subscribers see from here on must add up to the change from these.
  const votesBefore = await storedVotes(server);

  let warm: VotePhase | undefined;
  if (warmupSeconds > 0) {
    ctx.progress(`warm-up: votes at ${VOTES_PER_SECOND}/s with ${count} subscribers (${warmupSeconds} s)`);
    warm = await driveVotes(server, commentIds, VOTES_PER_SECOND, warmupSeconds, 'warm');
  }
  ctx.progress(`measure: votes at ${VOTES_PER_SECOND}/s with ${count} subscribers (${durationSeconds} s)`);
  const serverCpu0 = processCpuSeconds(server.pid) ?? 0;
  const subscriberCpu0 = processCpuSeconds(clients.pid) ?? 0;
  const machine0 = machineBusySeconds();
  const driverCpu0 = process.cpuUsage();
  clients.tell({ type: 'measure-start' });
  const wall0 = performance.now();
  const live = await driveVotes(server, commentIds, VOTES_PER_SECOND, durationSeconds, 'live');
  const wallSeconds = (performance.now() - wall0) / 1000;
  const serverCores = ((processCpuSeconds(server.pid) ?? 0) - serverCpu0) / wallSeconds;
  const subscriberCores = ((processCpuSeconds(clients.pid) ?? 0) - subscriberCpu0) / wallSeconds;
  const driverCpu = process.cpuUsage(driverCpu0);
  const driverCores = (driverCpu.user + driverCpu.system) / 1e6 / wallSeconds;
  const machineCores = (machineBusySeconds() - machine0) / wallSeconds;
  const otherCores = Math.max(0, machineCores - serverCores - subscriberCores - driverCores);
  const { eventLoopUtilization: subscriberLoop } = await clients.ask({ type: 'measure-end' }, 'measured');

  const expectedEvents = (warm?.acked ?? 0) + live.acked;
  const complete = await drained(clients, expectedEvents);
  const votesAfter = await storedVotes(server);
  const { subscribers } = await clients.ask({ type: 'collect' }, 'collected');

  // The reference subscribers say what each frame index carries, and must all agree.
  const references = subscribers.filter((s) => s.reference);
  const truth = references[0]!.parsed;
  let disagreeing = 0;
  for (const ref of references) {
    const same = ref.parsed.length === truth.length && ref.parsed.every((f, k) => f.type === truth[k]!.type && f.voteId === truth[k]!.voteId);
    if (!same) disagreeing++;
  }
  const voteEvents = truth.filter((f) => f.type === 'new-vote' && f.voteId !== undefined);
  const ackedIds = new Set([...(warm?.ackedAt.keys() ?? []), ...live.ackedAt.keys()]);
  // A hot page's votes arrive folded into cvc frames (LIVE_VOTE_COALESCE): then the stream must add up to every vote.
  const coalesced = truth.some((f) => f.type === 'cvc');
  const streamVotes = truth.reduce((a, f) => a + f.votes, 0);
  const voteIdsInStream = new Set(voteEvents.map((f) => f.voteId));
  const missingFromStream = coalesced ? Math.abs(ackedIds.size - streamVotes) : [...ackedIds].filter((id) => !voteIdsInStream.has(id)).length;
  // Folded votes: the j-th vote acknowledged is taken as delivered by the first frame that brings the stream's sum past j.
  const ackOrder = [...(warm?.ackedAt.entries() ?? []), ...live.ackedAt.entries()].sort((a, b) => a[1] - b[1]);
  const totalBytes = references[0]!.payloadBytes;

  let lost = 0;
  let closed = 0;
  let byteMismatch = 0;
  const latency = createHistogram();
  for (const sub of subscribers) {
    if (sub.closed) closed++;
    lost += Math.max(0, truth.length - sub.frames);
    if (sub.frames === truth.length && sub.payloadBytes !== totalBytes) byteMismatch++;
    const frames = Math.min(sub.frames, truth.length);
    if (coalesced) {
      let sum = 0;
      let j = 0;
      for (let k = 0; k < frames; k++) {
        sum += truth[k]!.votes;
        for (; j < sum && j < ackOrder.length; j++) {
          const [voteId, ackedAt] = ackOrder[j]!;
          if (live.ackedAt.has(voteId)) latency.record(Math.max(1, Math.round((sub.arrivals[k]! - ackedAt) * 1000)));
        }
      }
      continue;
    }
    for (let k = 0; k < frames; k++) {
      const voteId = truth[k]!.voteId;
      const ackedAt = voteId === undefined ? undefined : live.ackedAt.get(voteId);
      if (ackedAt === undefined) continue;
      // An event may arrive before its HTTP acknowledgement does (it is published first): 0.
      latency.record(Math.max(1, Math.round((sub.arrivals[k]! - ackedAt) * 1000)));
    }
  }

  // Each reference subscriber's summed vote changes per comment must equal what storage now holds beyond what it held at connect.
  let countMismatches = 0;
  for (const ref of references) {
    const summed = new Map<string, number>();
    for (const f of ref.parsed) for (const [id, delta] of Object.entries(f.changes)) summed.set(id, (summed.get(id) ?? 0) + delta);
    for (const [id, after] of votesAfter) if ((summed.get(id) ?? 0) !== after - (votesBefore.get(id) ?? 0)) countMismatches++;
  }

  const voteRow = (phase: VotePhase, subscribers: string, role: 'baseline' | 'subject') =>
    ctx.row({
      label: `POST /api/v1/votes at ${VOTES_PER_SECOND}/s, ${subscribers}`,
      role,
      throughput: phase.acked / phase.seconds,
      unit: 'votes/s',
      p50Ms: ms(phase.latency, 50),
      p99Ms: ms(phase.latency, 99),
      errors: [...phase.failed.values()].reduce((a, b) => a + b, 0),
    });
  voteRow(alone, 'no subscribers', 'baseline');
  voteRow(live, `${count} subscribers`, 'subject');
  ctx.row({
    label: `live events delivered (vote acknowledged → received), ${count} subscribers`,
    role: 'subject',
    throughput: latency.count / live.seconds,
    unit: 'deliveries/s',
    p50Ms: ms(latency, 50),
    p99Ms: ms(latency, 99),
    errors: lost,
  });

  ctx.figure({ key: 'subscribers', label: 'subscribers connected', value: count, unit: '' });
  ctx.figure({ key: 'framesPerSubscriber', label: `frames each subscriber received${coalesced ? ' (votes folded into cvc frames)' : ''}`, value: truth.length, unit: '' });
  ctx.figure({ key: 'votesPerSecond', label: 'votes acknowledged per second (measured phase)', value: live.acked / live.seconds, unit: 'votes/s' });
  ctx.figure({ key: 'deliveriesPerSecond', label: 'vote events received per second, all subscribers', value: latency.count / live.seconds, unit: 'msg/s' });
  ctx.figure({ key: 'lostEvents', label: 'events missing at some subscriber', value: lost + missingFromStream * count, unit: '' });
  ctx.figure({ key: 'outOfOrder', label: 'reference subscribers whose stream differs from the first', value: disagreeing + byteMismatch, unit: '' });
  ctx.figure({ key: 'ackToReceiptP50Ms', label: 'vote acknowledged → event received, p50', value: ms(latency, 50), unit: 'ms' });
  ctx.figure({ key: 'ackToReceiptP99Ms', label: 'vote acknowledged → event received, p99', value: ms(latency, 99), unit: 'ms' });
  ctx.figure({ key: 'ackToReceiptMaxMs', label: 'vote acknowledged → event received, max', value: latency.count === 0 ? 0 : latency.max / 1000, unit: 'ms' });
  ctx.figure({ key: 'voteP99AloneMs', label: 'vote latency p99, no subscribers', value: ms(alone.latency, 99), unit: 'ms' });
  ctx.figure({ key: 'voteP99LiveMs', label: `vote latency p99, ${count} subscribers`, value: ms(live.latency, 99), unit: 'ms' });
  ctx.figure({ key: 'voteP99Ratio', label: 'vote latency p99 with subscribers ÷ without', value: ms(alone.latency, 99) === 0 ? 0 : ms(live.latency, 99) / ms(alone.latency, 99), unit: '×', digits: 2 });
  ctx.figure({ key: 'countMismatches', label: 'comments whose count summed by a reference subscriber differs from storage', value: countMismatches, unit: '' });
  ctx.figure({ key: 'serverCores', label: 'server CPU during the measured phase', value: serverCores, unit: 'cores', digits: 2 });
  ctx.figure({ key: 'serverCoresAlone', label: 'server CPU during the baseline (same votes, no subscriber)', value: aloneServerCores, unit: 'cores', digits: 2 });
  // Frames written per second to all subscribers, over the phases with subscribers.
  const frameWrites = (truth.length * count) / ((warm?.seconds ?? 0) + live.seconds);
  ctx.figure({ key: 'serverUsPerFrame', label: 'server CPU added by fan-out per frame written to a subscriber', value: frameWrites === 0 ? 0 : (Math.max(0, serverCores - aloneServerCores) * 1e6) / frameWrites, unit: 'µs', digits: 2 });
  ctx.figure({ key: 'subscriberCores', label: 'subscribers\' process CPU', value: subscriberCores, unit: 'cores', digits: 2 });
  ctx.figure({ key: 'subscriberLoop', label: 'subscribers\' process event-loop utilisation (1: saturated, arrival times late)', value: subscriberLoop, unit: '', digits: 2 });
  ctx.figure({ key: 'clientCores', label: 'vote driver CPU (this process)', value: driverCores, unit: 'cores', digits: 2 });
  ctx.figure({ key: 'machineCores', label: 'whole machine busy during the measured phase', value: machineCores, unit: 'cores', digits: 2 });
  ctx.figure({ key: 'otherCores', label: 'rest of the machine (kernel softirq, other processes)', value: otherCores, unit: 'cores', digits: 2 });
  const rss = server.peakRssBytes;
  if (rss !== undefined) ctx.figure({ key: 'serverPeakRssMb', label: 'server peak resident memory', value: rss / 1024 / 1024, unit: 'MB' });
  ctx.figure({ key: 'connectSeconds', label: `time to connect ${count} subscribers`, value: connectSeconds, unit: 's', digits: 2 });

  ctx.note(
    `Subscribers are raw sockets in a child process of their own (RFC 6455 handshake and frame splitting over net onread, no ws library); ` +
      `1 in ${REFERENCE_EVERY} parses its frames to identify them. Votes are real POST /api/v1/votes calls (new anonymous voter each, ` +
      `${COMMENTS} comments on one page), paced at ${VOTES_PER_SECOND}/s from this process; acknowledgement and receipt times are ` +
      `absolute (performance.timeOrigin + now()) in both processes. When the subscribers' event loop is near 1, receipt times include their own queueing.`,
  );
  ctx.note(
    `Latency counts every (subscriber, vote) pair of the measured phase: ${latency.count.toLocaleString('en-US')} deliveries of ` +
      `${live.acked.toLocaleString('en-US')} votes. CPU is /proc utime+stime of the server and process.cpuUsage() of this process, over the measured phase.`,
  );
  if (!complete) ctx.note(`Not every subscriber had every event ${DRAIN_TIMEOUT_MS / 1000} s after the last vote.`);
  if (closed > 0) ctx.note(`${closed} subscribers were disconnected during the run.`);
  if (countMismatches > 0) ctx.note(`${countMismatches} (reference subscriber, comment) sums differ from the stored counts.`);
  if (missingFromStream > 0) ctx.note(`${missingFromStream} acknowledged votes never appeared in the reference stream.`);
  for (const [code, n] of [...alone.failed, ...live.failed, ...(warm?.failed ?? [])]) ctx.note(`${n} votes failed: ${code}.`);
}

/** See the module comment. */
export const fanout: Suite = {
  name: 'fanout',
  description:
    `websocket subscribers (default ${DEFAULT_SUBSCRIBERS}; --connections) on one page while real votes arrive at ${VOTES_PER_SECOND}/s: ` +
    'every event delivered, and the time from a vote\'s acknowledgement to its receipt; baseline: the same votes with no subscriber.',
  targets: [
    { figure: 'lostEvents', op: '<=', value: 0, description: 'every subscriber receives every vote event' },
    { figure: 'outOfOrder', op: '<=', value: 0, description: 'every subscriber receives the same stream, in order' },
    { figure: 'ackToReceiptP99Ms', op: '<=', value: 100, description: 'p99 from vote acknowledgement to receipt' },
    { figure: 'voteP99Ratio', op: '<=', value: 3, description: 'a vote\'s p99 with subscribers within 3× of its p99 without' },
    { figure: 'countMismatches', op: '<=', value: 0, description: 'subscribers\' summed counts equal the stored counts' },
  ],
  run,
};
