/**
 * Live fan-out: 2,000 websocket subscribers on one page while real votes (`POST /api/v1/votes`)
 * arrive at 200 per second. Measures whether every subscriber receives every vote event (zero
 * lost, same order everywhere) and the time from a vote's acknowledgement (its HTTP response
 * received here) to the event's receipt at each subscriber.
 *
 * The subscribers live in this process (the server is a child process): raw TCP sockets that
 * speak just enough of RFC 6455 to upgrade and split frames, read through `onread` into one
 * shared buffer, so 400,000 frames per second cost little CPU and leave the server its core.
 * Every subscriber records when each frame arrived; one in a hundred also parses its frames,
 * which identifies the k-th frame (the same event at every subscriber, since every one must
 * receive the same stream) and checks that order. The vote driver runs here too, so ack and
 * receipt times come from one clock.
 *
 * The baseline is the same vote load with no subscriber: what fan-out costs the write path.
 *
 * With enough subscribers the page is hot (`LIVE_VOTE_COALESCE`, on by default) and votes arrive
 * folded into `cvc` frames: then the stream must add up to every acknowledged vote, and the j-th
 * vote acknowledged counts as delivered by the first frame that brings the stream's sum past j.
 * `LIVE_VOTE_COALESCE=0 npm run bench -- fanout` measures one frame per vote per subscriber.
 */
import { createHash, randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import { LiveIds } from '../../actors/live/live-ids.js';
import { liveSecret } from '../../actors/live/live-secret.js';
import { COLLECTIONS } from '../../storage/collections.js';
import { createStore } from '../../storage/create-store.js';
import { machineBusySeconds, processCpuSeconds } from '../lib/cpu.js';
import type { ServerProcess } from '../lib/processes.js';
import type { Suite, SuiteContext } from '../lib/suite.js';

const DEFAULT_SUBSCRIBERS = 2000;
const VOTES_PER_SECOND = 200;
const COMMENTS = 50;
const PAGE = '/bench/fanout';
/** Every this many subscribers, one parses its frames. */
const REFERENCE_EVERY = 100;
const CONNECT_BATCH = 100;
const DRAIN_TIMEOUT_MS = 15_000;
const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** How a presence frame starts: subscribers connecting make them, in numbers that depend on when each connected. */
const PRESENCE_PREFIX = Buffer.from('{"type":"p-u"', 'latin1');

/** Shared by every socket's `onread`: each chunk is consumed before the next read. */
const READ_BUFFER = Buffer.allocUnsafe(256 * 1024);

/** What a reference subscriber learned from one frame. */
interface ParsedFrame {
  readonly type: string;
  readonly voteId: string | undefined;
  /** Votes the frame adds: 1 for a new vote, the sum of `changes` for a `cvc` frame (every vote here is a new up vote). */
  readonly votes: number;
}

/**
 * One websocket subscriber, as lean as it gets: handshake, then a frame splitter that records
 * the arrival time of each text frame and, for reference subscribers, its parsed content.
 */
export class Subscriber {
  readonly reference: boolean;
  /** Arrival time (ms, `performance.now()`) of each text frame, in order. */
  arrivals = new Float64Array(4096);
  frames = 0;
  payloadBytes = 0;
  readonly parsed: ParsedFrame[] = [];
  closed = false;

  #socket: Socket | undefined;
  #handshake: Buffer | undefined = Buffer.alloc(0);
  readonly #header = Buffer.alloc(14);
  #headerLength = 0;
  #headerNeeded = 2;
  #payloadLeft = 0;
  #opcode = 0;
  #payload: Buffer[] = [];
  /** The current text frame's first bytes, until they tell a presence frame (`p-u`) from the rest. */
  #start: Buffer | undefined;
  #startAt = 0;
  /** The current frame is a presence frame: readers joining, which subscribers connecting make; not counted. */
  #presence = false;
  /** Payload bytes of the current frame seen before it was classified. */
  #pendingBytes = 0;

  constructor(reference: boolean) {
    this.reference = reference;
  }

  open(port: number, path: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const key = randomBytes(16).toString('base64');
      const accept = createHash('sha1').update(key + WS_GUID).digest('base64');
      const socket = connect({
        port,
        host: '127.0.0.1',
        onread: {
          buffer: READ_BUFFER,
          callback: (n: number, buffer: Uint8Array): boolean => {
            const now = performance.now();
            let at = 0;
            if (this.#handshake !== undefined) {
              this.#handshake = Buffer.concat([this.#handshake, buffer.subarray(0, n)]);
              const end = this.#handshake.indexOf('\r\n\r\n');
              if (end < 0) return true;
              const head = this.#handshake.subarray(0, end).toString('latin1');
              if (!head.startsWith('HTTP/1.1 101') || !head.toLowerCase().includes(`sec-websocket-accept: ${accept.toLowerCase()}`)) {
                reject(new Error(`upgrade refused: ${head.split('\r\n')[0]}`));
                socket.destroy();
                return false;
              }
              at = n - (this.#handshake.length - end - 4);
              this.#handshake = undefined;
              resolve();
            }
            this.#consume(buffer, at, n, now);
            return true;
          },
        },
      });
      socket.setNoDelay(true);
      socket.once('error', reject);
      socket.once('close', () => {
        this.closed = true;
      });
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
      this.#socket = socket;
    });
  }

  close(): void {
    this.#socket?.destroy();
  }

  #consume(buffer: Uint8Array, from: number, to: number, now: number): void {
    let at = from;
    while (at < to) {
      if (this.#payloadLeft === 0 && this.#headerNeeded > 0) {
        while (this.#headerNeeded > 0 && at < to) {
          this.#header[this.#headerLength++] = buffer[at++]!;
          this.#headerNeeded--;
          if (this.#headerLength === 2) {
            const short = this.#header[1]! & 0x7f;
            this.#headerNeeded = short === 126 ? 2 : short === 127 ? 8 : 0;
          }
        }
        if (this.#headerNeeded > 0) return;
        const short = this.#header[1]! & 0x7f;
        this.#payloadLeft = short === 126 ? this.#header.readUInt16BE(2) : short === 127 ? Number(this.#header.readBigUInt64BE(2)) : short;
        this.#opcode = this.#header[0]! & 0x0f;
        this.#presence = false;
        if (this.#opcode === 1) {
          this.#start = Buffer.alloc(0);
          this.#startAt = now;
        }
        if (this.#payloadLeft === 0) this.#frameDone();
        continue;
      }
      const take = Math.min(this.#payloadLeft, to - at);
      if (this.#opcode === 1) {
        if (this.reference) this.#payload.push(Buffer.from(buffer.subarray(at, at + take)));
        if (this.#start !== undefined) {
          this.#start = Buffer.concat([this.#start, buffer.subarray(at, at + Math.min(take, PRESENCE_PREFIX.length))]);
          this.#pendingBytes += take;
          if (this.#start.length >= PRESENCE_PREFIX.length || take === this.#payloadLeft) this.#classify();
        } else if (!this.#presence) this.payloadBytes += take;
      }
      at += take;
      this.#payloadLeft -= take;
      if (this.#payloadLeft === 0) this.#frameDone();
    }
  }

  #arrived(now: number): void {
    if (this.frames === this.arrivals.length) {
      const grown = new Float64Array(this.arrivals.length * 2);
      grown.set(this.arrivals);
      this.arrivals = grown;
    }
    this.arrivals[this.frames++] = now;
  }

  /** Tells a presence frame from the rest by its first bytes; the rest count as arrived when their header did. */
  #classify(): void {
    this.#presence = this.#start!.subarray(0, PRESENCE_PREFIX.length).equals(PRESENCE_PREFIX);
    this.#start = undefined;
    if (!this.#presence) {
      this.#arrived(this.#startAt);
      this.payloadBytes += this.#pendingBytes;
    }
    this.#pendingBytes = 0;
  }

  #frameDone(): void {
    if (this.#opcode === 1 && this.#start !== undefined) this.#classify();
    if (this.#presence) {
      this.#payload = [];
      this.#presence = false;
    } else if (this.#opcode === 1 && this.reference) {
      const event = JSON.parse(decodeURIComponent(Buffer.concat(this.#payload).toString('utf8'))) as { type: string; vote?: { _id?: string }; changes?: Record<string, number> };
      const votes = event.type === 'new-vote' ? 1 : event.type === 'cvc' ? Object.values(event.changes ?? {}).reduce((a, b) => a + b, 0) : 0;
      this.parsed.push({ type: event.type, voteId: event.vote?._id, votes });
      this.#payload = [];
    }
    if (this.#opcode === 8) this.closed = true;
    this.#headerLength = 0;
    this.#headerNeeded = 2;
  }
}

interface VotePhase {
  sent: number;
  acked: number;
  failed: Map<string, number>;
  /** voteId → when its acknowledgement arrived (ms, `performance.now()`). */
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
        const ackedAt = performance.now();
        const body = (await res.json()) as { voteId?: string; code?: string };
        if (res.status !== 200 || body.voteId === undefined) throw new Error(body.code ?? `HTTP ${res.status}`);
        phase.acked++;
        phase.ackedAt.set(body.voteId, ackedAt);
        phase.latency.record(Math.max(1, Math.round((ackedAt - sentAt) * 1000)));
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

/** Waits until every open subscriber has as many frames as the first reference, and that one has `expected`. */
async function drained(subscribers: readonly Subscriber[], expected: number): Promise<boolean> {
  const deadline = performance.now() + DRAIN_TIMEOUT_MS;
  const reference = subscribers.find((s) => s.reference)!;
  while (performance.now() < deadline) {
    // One frame per vote, or fewer frames adding up to every vote (cvc frames of a hot page).
    const arrived = reference.frames >= expected || reference.parsed.reduce((sum, f) => sum + f.votes, 0) >= expected;
    if (arrived && subscribers.every((s) => s.closed || s.frames >= reference.frames)) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
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
  const alone = await driveVotes(server, commentIds, VOTES_PER_SECOND, durationSeconds, 'alone');

  ctx.progress(`connect ${count} subscribers`);
  const subscribers = Array.from({ length: count }, (_, i) => new Subscriber(i % REFERENCE_EVERY === 0));
  ctx.onCleanup(() => subscribers.forEach((s) => s.close()));
  const connectStart = performance.now();
  for (let i = 0; i < count; i += CONNECT_BATCH) {
    await Promise.all(subscribers.slice(i, i + CONNECT_BATCH).map((s) => s.open(server.port, path)));
  }
  const connectSeconds = (performance.now() - connectStart) / 1000;

  let warm: VotePhase | undefined;
  if (warmupSeconds > 0) {
    ctx.progress(`warm-up: votes at ${VOTES_PER_SECOND}/s with ${count} subscribers (${warmupSeconds} s)`);
    warm = await driveVotes(server, commentIds, VOTES_PER_SECOND, warmupSeconds, 'warm');
  }
  ctx.progress(`measure: votes at ${VOTES_PER_SECOND}/s with ${count} subscribers (${durationSeconds} s)`);
  const serverCpu0 = processCpuSeconds(server.pid) ?? 0;
  const machine0 = machineBusySeconds();
  const clientCpu0 = process.cpuUsage();
  const wall0 = performance.now();
  const live = await driveVotes(server, commentIds, VOTES_PER_SECOND, durationSeconds, 'live');
  const wallSeconds = (performance.now() - wall0) / 1000;
  const serverCores = ((processCpuSeconds(server.pid) ?? 0) - serverCpu0) / wallSeconds;
  const clientCpu = process.cpuUsage(clientCpu0);
  const clientCores = (clientCpu.user + clientCpu.system) / 1e6 / wallSeconds;
  const otherCores = Math.max(0, (machineBusySeconds() - machine0) / wallSeconds - serverCores - clientCores);

  const expectedEvents = (warm?.acked ?? 0) + live.acked;
  const complete = await drained(subscribers, expectedEvents);

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
  ctx.figure({ key: 'serverCores', label: 'server CPU during the measured phase', value: serverCores, unit: 'cores', digits: 2 });
  ctx.figure({ key: 'clientCores', label: 'subscribers + vote driver CPU (this process)', value: clientCores, unit: 'cores', digits: 2 });
  ctx.figure({ key: 'otherCores', label: 'rest of the machine (kernel softirq, other processes)', value: otherCores, unit: 'cores', digits: 2 });
  const rss = server.peakRssBytes;
  if (rss !== undefined) ctx.figure({ key: 'serverPeakRssMb', label: 'server peak resident memory', value: rss / 1024 / 1024, unit: 'MB' });
  ctx.figure({ key: 'connectSeconds', label: `time to connect ${count} subscribers`, value: connectSeconds, unit: 's', digits: 2 });

  ctx.note(
    `Subscribers are raw sockets in the benchmark process (RFC 6455 handshake and frame splitting over net onread, no ws library); ` +
      `1 in ${REFERENCE_EVERY} parses its frames to identify them. Votes are real POST /api/v1/votes calls (new anonymous voter each, ` +
      `${COMMENTS} comments on one page), paced at ${VOTES_PER_SECOND}/s from the same process, so acknowledgement and receipt share a clock.`,
  );
  ctx.note(
    `Latency counts every (subscriber, vote) pair of the measured phase: ${latency.count.toLocaleString('en-US')} deliveries of ` +
      `${live.acked.toLocaleString('en-US')} votes. CPU is /proc utime+stime of the server and process.cpuUsage() of this process, over the measured phase.`,
  );
  if (!complete) ctx.note(`Not every subscriber had every event ${DRAIN_TIMEOUT_MS / 1000} s after the last vote.`);
  if (closed > 0) ctx.note(`${closed} subscribers were disconnected during the run.`);
  if (missingFromStream > 0) ctx.note(`${missingFromStream} acknowledged votes never appeared in the reference stream.`);
  for (const [code, n] of [...alone.failed, ...live.failed, ...(warm?.failed ?? [])]) ctx.note(`${n} votes failed: ${code}.`);
}

/** See the module comment. */
export const fanout: Suite = {
  name: 'fanout',
  description:
    `${DEFAULT_SUBSCRIBERS} websocket subscribers on one page while real votes arrive at ${VOTES_PER_SECOND}/s: ` +
    'every event delivered, and the time from a vote\'s acknowledgement to its receipt; baseline: the same votes with no subscriber.',
  targets: [
    { figure: 'lostEvents', op: '<=', value: 0, description: 'every subscriber receives every vote event' },
    { figure: 'outOfOrder', op: '<=', value: 0, description: 'every subscriber receives the same stream, in order' },
    { figure: 'ackToReceiptP99Ms', op: '<=', value: 50, description: 'p99 from vote acknowledgement to receipt' },
  ],
  run,
};
