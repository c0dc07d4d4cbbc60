import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { ActorSystem, type ActorSystemOptions } from '../../../engine/actor-system.js';
import { ApiError } from '../../../engine/errors.js';
import { createStore } from '../../../storage/create-store.js';
import { CounterActor, COUNTERS, counterCollections, CounterKind, probe } from '../../fixtures/counter-actor.js';
import { InstrumentedStore } from '../../fixtures/instrumented-store.js';

let dir: string;
let store: InstrumentedStore;
let system: ActorSystem;

async function boot(options: Partial<ActorSystemOptions> = {}): Promise<void> {
  store = new InstrumentedStore(createStore({ dataDir: dir }, counterCollections));
  await store.open();
  system = new ActorSystem({ store, ...options });
  system.register(CounterKind, (ctx) => new CounterActor(ctx));
}

function code(err: unknown): string {
  return err instanceof ApiError ? err.code : `not an ApiError: ${String(err)}`;
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'engine-test-'));
  probe.running = 0;
  probe.maxRunning = 0;
  probe.starts = 0;
  await boot();
});

afterEach(async () => {
  await system.shutdown(5000);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('mailbox', () => {
  test('messages are handled in arrival order', async () => {
    const n = 500;
    await Promise.all(Array.from({ length: n }, (_, seq) => system.ask(CounterKind, 'a', 'inc', { seq })));
    const { log } = await system.ask(CounterKind, 'a', 'get', null);
    assert.deepEqual(log, Array.from({ length: n }, (_, i) => i));
  });

  test('handlers never interleave, even when they await', async () => {
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, seq) => system.ask(CounterKind, 'a', 'slowInc', { seq, ms: seq % 3 })),
    );
    assert.equal(probe.maxRunning, 1);
    assert.deepEqual(
      replies.map((r) => r.value),
      Array.from({ length: 40 }, (_, i) => i + 1),
    );
  });

  test('different actors run concurrently', async () => {
    await Promise.all(['x', 'y', 'z'].map((id) => system.ask(CounterKind, id, 'slowInc', { seq: 0, ms: 30 })));
    assert.equal(probe.maxRunning, 3);
  });

  test('a throwing handler fails only its own message', async () => {
    const asks = Array.from({ length: 20 }, (_, seq) =>
      seq === 7 ? system.ask(CounterKind, 'a', 'fail', { afterWrite: false }) : system.ask(CounterKind, 'a', 'inc', { seq }),
    );
    const results = await Promise.allSettled(asks);
    const failed = results.flatMap((r, i) => (r.status === 'rejected' ? [[i, code(r.reason)]] : []));
    assert.deepEqual(failed, [[7, 'invalid-param']]);
    assert.equal((await system.ask(CounterKind, 'a', 'get', null)).value, 19);
  });

  test('a handler that throws after writing has its writes dropped and the actor reloaded', async () => {
    await system.ask(CounterKind, 'a', 'inc', { seq: 1 });
    const startsBefore = probe.starts;
    await assert.rejects(system.ask(CounterKind, 'a', 'fail', { afterWrite: true }), (e) => code(e) === 'invalid-param');
    const state = await system.ask(CounterKind, 'a', 'get', null);
    assert.deepEqual(state.log, [1], 'the failed message left no trace in memory');
    assert.equal(probe.starts, startsBefore + 1, 'the actor was reloaded from storage');
    const stored = await store.inner.get<{ log: number[] } & { _id: string }>(COUNTERS, 'a');
    assert.deepEqual(stored?.log, [1], 'nor in storage');
  });

  test('a full mailbox refuses with overloaded and changes nothing', async () => {
    await system.shutdown(1000);
    await store.close();
    await boot({ mailboxLimit: 5 });
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, seq) => system.ask(CounterKind, 'a', 'slowInc', { seq, ms: 1 })),
    );
    const refused = results.filter((r) => r.status === 'rejected');
    assert.ok(refused.length > 0);
    for (const r of refused) assert.equal(code((r as PromiseRejectedResult).reason), 'overloaded');
    const accepted = results.length - refused.length;
    assert.equal((await system.ask(CounterKind, 'a', 'get', null)).value, accepted);
  });

  test('an ask that times out before it starts never runs', async () => {
    const slow = system.ask(CounterKind, 'a', 'slowInc', { seq: 0, ms: 80 });
    const late = system.ask(CounterKind, 'a', 'inc', { seq: 1 }, { timeoutMs: 20 });
    await assert.rejects(late, (e) => code(e) === 'timeout');
    await slow;
    assert.deepEqual((await system.ask(CounterKind, 'a', 'get', null)).log, [0]);
  });
});

describe('output gate and write coalescing', () => {
  test('many concurrent mutations share few batches, and each reply waits for its batch', async () => {
    const n = 2000;
    const seen: number[] = [];
    await Promise.all(
      Array.from({ length: n }, (_, seq) =>
        system.ask(CounterKind, 'hot', 'inc', { seq }).then((reply) => {
          assert.ok(store.durable.has(`${COUNTERS}/${reply.docId}`), 'reply released before its write was durable');
          seen.push(reply.value);
        }),
      ),
    );
    assert.equal(seen.length, n);
    assert.ok(store.batches < n / 10, `expected far fewer batches than ${n}, got ${store.batches}`);
    const stored = await store.inner.get<{ _id: string; value: number }>(COUNTERS, 'hot');
    assert.equal(stored?.value, n);
  });

  test('replies are released in order, and only after the write they depend on is durable', async () => {
    const order: number[] = [];
    const committed = new Set<number>();
    const inner = store.commit.bind(store);
    store.commit = async (ops) => {
      await inner(ops);
      for (const op of ops) if (op.op === 'put') for (const seq of op.doc['log'] as number[]) committed.add(seq);
    };
    await Promise.all(
      Array.from({ length: 300 }, (_, seq) =>
        system.ask(CounterKind, 'a', 'inc', { seq }).then(() => {
          assert.ok(committed.has(seq), `reply ${seq} before its commit`);
          order.push(seq);
        }),
      ),
    );
    assert.deepEqual(order, Array.from({ length: 300 }, (_, i) => i));
  });

  test('a read waits for earlier writes unless it allows unconfirmed state', async () => {
    const write = system.ask(CounterKind, 'a', 'inc', { seq: 0 });
    let readDone = false;
    const read = system.ask(CounterKind, 'a', 'get', null).then((r) => {
      readDone = true;
      return r;
    });
    const peek = await system.ask(CounterKind, 'a', 'peek', null);
    assert.equal(peek.value, 1, 'peek sees the unconfirmed write at once');
    await write;
    assert.equal((await read).value, 1);
    assert.ok(readDone);
  });

  test('events are published only after their write is durable, in commit order', async () => {
    const received: number[] = [];
    system.bus.listen((topic, event) => {
      if (topic !== 'counter:a') return;
      const seq = (event as { seq: number }).seq;
      assert.ok(store.durable.has(`${COUNTERS}/a`));
      received.push(seq);
    });
    await Promise.all(Array.from({ length: 100 }, (_, seq) => system.ask(CounterKind, 'a', 'announce', { seq })));
    assert.deepEqual(received, Array.from({ length: 100 }, (_, i) => i));
  });
});

describe('flush failure', () => {
  test('fails the held replies, reloads state, and loses nothing acknowledged', async () => {
    const acked: number[] = [];
    const refused: number[] = [];
    const track = (seq: number) =>
      system.ask(CounterKind, 'a', 'inc', { seq }).then(
        () => void acked.push(seq),
        (err) => {
          assert.equal(code(err), 'storage-unavailable');
          refused.push(seq);
        },
      );
    await Promise.all(Array.from({ length: 50 }, (_, seq) => track(seq)));
    store.failNextCommits(1);
    await Promise.all(Array.from({ length: 50 }, (_, i) => track(50 + i)));
    await Promise.all(Array.from({ length: 50 }, (_, i) => track(100 + i)));

    assert.ok(refused.length > 0, 'the injected failure refused some writes');
    const stored = await store.inner.get<{ _id: string; log: number[] }>(COUNTERS, 'a');
    const storedSet = new Set(stored!.log);
    for (const seq of acked) assert.ok(storedSet.has(seq), `acknowledged write ${seq} lost`);
    for (const seq of refused) assert.ok(!storedSet.has(seq), `refused write ${seq} is visible`);
    const state = await system.ask(CounterKind, 'a', 'get', null);
    assert.deepEqual(state.log, stored!.log, 'memory was reloaded from storage');
    assert.equal(state.value, acked.length);
  });

  test('activation that fails is retried by the next message', async () => {
    store.setDown(true);
    await assert.rejects(system.ask(CounterKind, 'b', 'get', null), (e) => code(e) === 'storage-unavailable');
    store.setDown(false);
    assert.equal((await system.ask(CounterKind, 'b', 'get', null)).value, 0);
  });
});

describe('passivation', () => {
  test('an idle actor is passivated and reactivates with the same state', async () => {
    await system.shutdown(1000);
    await store.close();
    await boot({ idleMs: 40 });
    await Promise.all(Array.from({ length: 30 }, (_, seq) => system.ask(CounterKind, 'a', 'inc', { seq })));
    const before = await system.ask(CounterKind, 'a', 'get', null);
    const deadline = Date.now() + 3000;
    while (system.stats.passivations === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(system.stats.passivations, 1);
    assert.equal(system.activeCount, 0);
    const after = await system.ask(CounterKind, 'a', 'get', null);
    assert.deepEqual(after, before);
    assert.equal(system.stats.activations, 2);
  });

  test('the count bound passivates least recently used actors, never losing state', async () => {
    await system.shutdown(1000);
    await store.close();
    await boot({ maxActive: 3 });
    for (let round = 0; round < 3; round++) {
      await Promise.all(['a', 'b', 'c', 'd', 'e'].map((id) => system.ask(CounterKind, id, 'inc', { seq: round })));
    }
    await new Promise((r) => setTimeout(r, 10));
    assert.ok(system.activeCount <= 3, `active ${system.activeCount}`);
    for (const id of ['a', 'b', 'c', 'd', 'e']) {
      assert.deepEqual((await system.ask(CounterKind, id, 'get', null)).log, [0, 1, 2]);
    }
  });

  test('shutdown drains mailboxes before returning and refuses new asks', async () => {
    const pending = Array.from({ length: 100 }, (_, seq) => system.ask(CounterKind, 'a', 'inc', { seq }));
    const drained = await system.shutdown(5000);
    assert.ok(drained);
    await Promise.all(pending);
    await assert.rejects(system.ask(CounterKind, 'a', 'get', null), (e) => code(e) === 'shutting-down');
    const stored = await store.inner.get<{ _id: string; value: number }>(COUNTERS, 'a');
    assert.equal(stored?.value, 100);
  });
});

describe('coalesce', () => {
  test('a later put of a document replaces earlier writes to it; inserts and other documents stay, in order', async () => {
    const { coalesce } = await import('../../../engine/actor-cell.js');
    const put = (id: string, v: number) => ({ op: 'put' as const, collection: 'c', doc: { _id: id, v } });
    const ops = [
      { op: 'insert' as const, collection: 'c', doc: { _id: 'a', v: 0 } },
      put('a', 1),
      put('b', 1),
      { op: 'patch' as const, collection: 'c', id: 'a', set: { w: 1 } },
      put('a', 2),
      { op: 'delete' as const, collection: 'c', id: 'b' },
      put('a', 3),
      { op: 'put' as const, collection: 'other', doc: { _id: 'a', v: 9 } },
    ];
    assert.deepEqual(coalesce(ops), [ops[0], ops[2], ops[5], ops[6], ops[7]]);
    const single = [put('x', 1)];
    assert.equal(coalesce(single), single);
  });
});

describe('views', () => {
  test('a view appears only once the writes before it are durable, and vanishes on reset', async () => {
    const { ViewActor, ViewKind } = await import('../../fixtures/view-actor.js');
    system.register(ViewKind, (ctx) => new ViewActor(ctx));
    assert.equal(system.peek(ViewKind, 'v', 'count'), undefined, 'nothing before activation');
    let seenEarly = false;
    const inner = store.commit.bind(store);
    store.commit = async (ops) => {
      if (system.peek(ViewKind, 'v', 'count') === 1) seenEarly = true;
      await inner(ops);
    };
    await system.ask(ViewKind, 'v', 'bump', null);
    assert.equal(seenEarly, false, 'the view was visible before its write was durable');
    assert.equal(system.peek(ViewKind, 'v', 'count'), 1);
    store.failNextCommits(1);
    await assert.rejects(system.ask(ViewKind, 'v', 'bump', null));
    assert.equal(system.peek(ViewKind, 'v', 'count'), undefined, 'a reset drops views');
    await system.ask(ViewKind, 'v', 'bump', null);
    assert.equal(system.peek(ViewKind, 'v', 'count'), 2, 'rebuilt from durable state');
  });
});
