/**
 * The `fanout` suite's subscribers, in a process of their own (forked by fanout.ts), so that
 * reading 10,000 sockets neither delays the vote driver's clock nor hides in its CPU figure:
 * the suite reads this process's CPU from /proc and its event-loop utilisation from here.
 * Arrival times are absolute (`performance.timeOrigin + performance.now()`), comparable with
 * the driver's acknowledgement times in the other process.
 */
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { type ParsedFrame, Subscriber } from './ws-subscriber.js';

/** What the suite asks. */
export type ClientsRequest =
  | { type: 'open'; port: number; path: string; count: number; referenceEvery: number; batch: number }
  | { type: 'status' }
  | { type: 'measure-start' }
  | { type: 'measure-end' }
  | { type: 'collect' };

/** One subscriber's record, as sent back. */
export interface CollectedSubscriber {
  readonly reference: boolean;
  readonly closed: boolean;
  readonly frames: number;
  readonly payloadBytes: number;
  /** Absolute arrival time (ms since the epoch, sub-millisecond) of each frame. */
  readonly arrivals: Float64Array;
  readonly parsed: readonly ParsedFrame[];
}

/** What the clients process answers. */
export type ClientsReply =
  | { type: 'opened'; seconds: number; error?: string }
  | { type: 'status'; referenceFrames: number; referenceVotes: number; minFrames: number }
  | { type: 'measured'; eventLoopUtilization: number }
  | { type: 'collected'; subscribers: CollectedSubscriber[] };

let subscribers: Subscriber[] = [];
let elu: EventLoopUtilization | undefined;

function reply(message: ClientsReply): void {
  process.send!(message);
}

async function open(port: number, path: string, count: number, referenceEvery: number, batch: number): Promise<void> {
  subscribers = Array.from({ length: count }, (_, i) => new Subscriber(i % referenceEvery === 0));
  const start = performance.now();
  try {
    for (let i = 0; i < count; i += batch) await Promise.all(subscribers.slice(i, i + batch).map((s) => s.open(port, path)));
    reply({ type: 'opened', seconds: (performance.now() - start) / 1000 });
  } catch (err) {
    reply({ type: 'opened', seconds: (performance.now() - start) / 1000, error: err instanceof Error ? err.message : String(err) });
  }
}

function status(): void {
  const reference = subscribers.find((s) => s.reference)!;
  let minFrames = Infinity;
  for (const s of subscribers) if (!s.closed && s.frames < minFrames) minFrames = s.frames;
  reply({ type: 'status', referenceFrames: reference.frames, referenceVotes: reference.parsed.reduce((sum, f) => sum + f.votes, 0), minFrames: minFrames === Infinity ? 0 : minFrames });
}

function collect(): void {
  const origin = performance.timeOrigin;
  const out: CollectedSubscriber[] = subscribers.map((s) => {
    const arrivals = s.arrivals.slice(0, s.frames);
    for (let k = 0; k < arrivals.length; k++) arrivals[k] = arrivals[k]! + origin;
    return { reference: s.reference, closed: s.closed, frames: s.frames, payloadBytes: s.payloadBytes, arrivals, parsed: s.parsed };
  });
  reply({ type: 'collected', subscribers: out });
  for (const s of subscribers) s.close();
  subscribers = [];
}

process.on('message', (request: ClientsRequest) => {
  switch (request.type) {
    case 'open':
      void open(request.port, request.path, request.count, request.referenceEvery, request.batch);
      return;
    case 'status':
      return status();
    case 'measure-start':
      elu = performance.eventLoopUtilization();
      return;
    case 'measure-end':
      reply({ type: 'measured', eventLoopUtilization: elu === undefined ? 0 : performance.eventLoopUtilization(elu).utilization });
      return;
    default:
      collect();
  }
});
process.on('disconnect', () => process.exit(0));
