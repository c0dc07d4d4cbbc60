/**
 * Durable mutations through one hot actor, at the engine level (no HTTP), on LMDB.
 *
 * A fixed number of asks is kept in flight: each reply (released only once its write is
 * durable) immediately issues the next ask, so the actor always has a full mailbox, as a hot
 * page would under a vote storm. The baseline is the store alone, committing batches of 100
 * puts one at a time, which is what the actor's output gate competes with.
 */
import { ActorSystem } from '../../engine/actor-system.js';
import { createStore } from '../../storage/create-store.js';
import type { Store, WriteOp } from '../../storage/store.js';
import { benchCollections, counterDoc, HOT_COUNTERS, HotCounterActor, HotCounterKind, RAW_COUNTERS, type CounterDoc } from '../actors/hot-counter-actor.js';
import { keepInFlight, type MeasuredPhase, phaseRow } from '../lib/in-flight.js';
import { LatencyRecorder } from '../lib/latency.js';
import type { Suite, SuiteContext } from '../lib/suite.js';

const DEFAULT_IN_FLIGHT = 256;
const BASELINE_BATCH = 100;
/** Distinct documents the baseline cycles through, so its puts are not all one key. */
const BASELINE_DOCS = 10_000;
const HOT_ID = 'hot';


/** Commits batches of puts back to back, one in flight, for `seconds`. */
async function rawCommits(store: Store, seconds: number): Promise<MeasuredPhase> {
  const latency = new LatencyRecorder();
  const start = performance.now();
  const deadline = start + seconds * 1000;
  let puts = 0;
  let next = 0;
  while (performance.now() < deadline) {
    const ops: WriteOp[] = [];
    for (let i = 0; i < BASELINE_BATCH; i++) {
      ops.push({ op: 'put', collection: RAW_COUNTERS, doc: counterDoc(`doc-${next++ % BASELINE_DOCS}`, next) });
    }
    const t0 = process.hrtime.bigint();
    await store.commit(ops);
    latency.recordSince(t0);
    puts += BASELINE_BATCH;
  }
  return { done: puts, windowSeconds: (performance.now() - start) / 1000, latency, errors: new Map() };
}

async function run(ctx: SuiteContext): Promise<void> {
  const { durationSeconds, warmupSeconds } = ctx.options;
  const inFlight = ctx.options.connections ?? DEFAULT_IN_FLIGHT;
  const dataDir = ctx.tempDir('bench-engine-');
  const store = createStore({ dataDir }, benchCollections);
  await store.open();
  ctx.onCleanup(() => store.close());

  const baselineLabel = `store.commit, ${BASELINE_BATCH} puts per batch, 1 in flight`;
  if (warmupSeconds > 0) {
    ctx.progress(`warm-up raw commits (${warmupSeconds} s)`);
    await rawCommits(store, warmupSeconds);
  }
  ctx.progress(`measure raw commits (${durationSeconds} s)`);
  const before = await rawCommits(store, durationSeconds);

  const system = new ActorSystem({ store });
  system.register(HotCounterKind, (ctx) => new HotCounterActor(ctx));
  ctx.onCleanup(async () => {
    await system.shutdown();
  });
  const increment = () => system.ask(HotCounterKind, HOT_ID, 'inc', { by: 1 });
  let acknowledged = 0;
  if (warmupSeconds > 0) {
    ctx.progress(`warm-up hot actor (${warmupSeconds} s, ${inFlight} in flight)`);
    acknowledged += (await keepInFlight(increment, inFlight, warmupSeconds)).replies;
  }
  ctx.progress(`measure hot actor (${durationSeconds} s, ${inFlight} in flight)`);
  const batchesBefore = system.stats.batches;
  const opsBefore = system.stats.ops;
  const hot = await keepInFlight(increment, inFlight, durationSeconds);
  acknowledged += hot.replies;
  const batches = system.stats.batches - batchesBefore;
  const ops = system.stats.ops - opsBefore;

  ctx.progress(`measure raw commits again (${durationSeconds} s)`);
  const after = await rawCommits(store, durationSeconds);

  const baselineRate = (before.done / before.windowSeconds + after.done / after.windowSeconds) / 2;
  const rate = hot.done / hot.windowSeconds;
  const failed = [...hot.errors.values()].reduce((a, b) => a + b, 0);
  ctx.row(phaseRow(`${baselineLabel}, before`, 'baseline', 'puts/s', before));
  ctx.row(phaseRow(`hot actor, ${inFlight} asks in flight`, 'subject', 'mutations/s', hot, rate / baselineRate));
  ctx.row(phaseRow(`${baselineLabel}, after`, 'baseline', 'puts/s', after));

  ctx.figure({ key: 'mutationsPerSecond', label: 'durable mutations acknowledged per second', value: rate, unit: 'mutations/s' });
  ctx.figure({ key: 'baselinePutsPerSecond', label: 'raw store puts per second (mean of both runs)', value: baselineRate, unit: 'puts/s' });
  ctx.figure({ key: 'ratio', label: 'mutations/s ÷ raw puts/s', value: rate / baselineRate, unit: '×', digits: 3 });
  ctx.figure({ key: 'mutationsPerBatch', label: 'mutations per storage batch (stats.ops ÷ stats.batches)', value: batches === 0 ? 0 : ops / batches, unit: '', digits: 1 });
  ctx.figure({ key: 'batchesPerSecond', label: 'storage batches committed per second', value: batches / hot.windowSeconds, unit: 'batches/s' });
  ctx.figure({ key: 'askP50Ms', label: 'ask latency p50', value: hot.latency.percentileMs(50), unit: 'ms' });
  ctx.figure({ key: 'askP99Ms', label: 'ask latency p99', value: hot.latency.percentileMs(99), unit: 'ms' });
  ctx.figure({ key: 'failedAsks', label: 'failed asks', value: failed, unit: '' });
  for (const [code, n] of hot.errors) ctx.note(`${n} asks failed with ${code}.`);

  // Every acknowledged increment must be on disk: read it back after a clean shutdown.
  await system.shutdown();
  const stored = await store.get<CounterDoc>(HOT_COUNTERS, HOT_ID);
  const storedValue = stored?.value ?? 0;
  ctx.figure({ key: 'lostAcknowledged', label: 'acknowledged increments missing from storage', value: Math.max(0, acknowledged - storedValue), unit: '' });
  ctx.note(
    `Stored counter after shutdown: ${storedValue.toLocaleString('en-US')}; acknowledged increments: ${acknowledged.toLocaleString('en-US')}` +
      (storedValue === acknowledged ? ' (equal).' : ' (they differ: investigate).'),
  );
  ctx.note(
    'Puts to the one hot document coalesce inside each batch (the last put wins), so one batch stores one document ' +
      'however many mutations it carries; a ratio above 1 is possible and means the output gate batches well.',
  );
}

/** See the module comment. */
export const engineHotActor: Suite = {
  name: 'engine-hot-actor',
  description:
    'Durable mutations through one hot actor (ActorSystem on LMDB, no HTTP), a fixed number of asks in flight, ' +
    'versus raw store.commit of 100-put batches in the same run.',
  targets: [
    { figure: 'mutationsPerSecond', op: '>=', value: 20_000, description: 'durable mutations per second through one actor' },
    { figure: 'lostAcknowledged', op: '<=', value: 0, description: 'acknowledged mutations missing after shutdown' },
  ],
  run,
};
