import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { ActorSystem } from '../../../engine/actor-system.js';
import { createStore } from '../../../storage/create-store.js';
import type { Store } from '../../../storage/store.js';
import { CounterActor, counterCollections, CounterKind } from '../../fixtures/counter-actor.js';

/** A counter that says it holds `weight` KB per increment it took. */
class HeavyCounter extends CounterActor {
  #incs = 0;
  static weightKb = 1;

  override memoryBytes(): number {
    return 1024 * (1 + this.#incs * HeavyCounter.weightKb);
  }

  countInc(): void {
    this.#incs++;
  }
}

/** Waits until `check` holds (passivation follows the eviction once the actor is idle). */
async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
}

let dir: string;
let store: Store;
let system: ActorSystem;

describe('the memory bound of the actor system', () => {
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'actor-memory-'));
    store = createStore({ dataDir: dir }, counterCollections);
    await store.open();
  });
  afterEach(async () => {
    await system.shutdown(1000);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('actors beyond the bytes bound are passivated least recently used first, never losing state', async () => {
    system = new ActorSystem({ store, maxMemoryBytes: 3 * 1024 });
    system.register(CounterKind, (ctx) => new CounterActor(ctx));
    for (let round = 0; round < 3; round++) {
      await Promise.all(['a', 'b', 'c', 'd', 'e'].map((id) => system.ask(CounterKind, id, 'inc', { seq: round })));
    }
    await until(() => system.activeCount <= 3);
    assert.ok(system.activeCount <= 3, `active ${system.activeCount}`);
    assert.ok(system.stats.passivations >= 2);
    for (const id of ['a', 'b', 'c', 'd', 'e']) assert.deepEqual((await system.ask(CounterKind, id, 'get', null)).log, [0, 1, 2]);
  });

  test('an actor that grows pushes others out; one larger than the bound stays alone', async () => {
    system = new ActorSystem({ store, maxMemoryBytes: 8 * 1024 });
    system.register(CounterKind, (ctx) => {
      const actor = new HeavyCounter(ctx);
      const inc = actor.handlers.inc;
      return Object.assign(actor, { handlers: { ...actor.handlers, inc: (payload: { seq: number }) => (actor.countInc(), inc(payload)) } });
    });
    HeavyCounter.weightKb = 1;
    for (const id of ['a', 'b', 'c']) await system.ask(CounterKind, id, 'get', null);
    assert.equal(system.activeCount, 3);
    // `big` grows by 4 KB per increment; its size is taken at each use.
    HeavyCounter.weightKb = 4;
    for (let seq = 0; seq < 4; seq++) await system.ask(CounterKind, 'big', 'inc', { seq });
    await system.ask(CounterKind, 'big', 'get', null);
    await until(() => system.activeCount === 1);
    assert.equal(system.activeCount, 1);
    assert.deepEqual((await system.ask(CounterKind, 'big', 'get', null)).log, [0, 1, 2, 3]);
  });
});
