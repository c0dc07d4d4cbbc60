import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { EventLogActor, EventLogSweeperActor } from '../../../actors/live/event-log-actor.js';
import { EntryIds, EVENT_LOG, EVENT_LOG_BODIES, type EventLogDoc, eventLogCollections, type EventLogLimits } from '../../../actors/live/event-log-model.js';
import { EventLogKind, eventLogActorId, EventLogSweeperKind, SWEEPER_ID } from '../../../actors/live/event-log-protocol.js';
import { ActorSystem } from '../../../engine/actor-system.js';
import { clock } from '../../../engine/clock.js';
import { ApiError } from '../../../engine/errors.js';
import { storeFixtures, type StoreHandle } from '../../fixtures/stores.js';
import type { LiveEvent } from '../../../actors/live/live-events.js';
import { storedEntries } from './fixtures.js';

const LIMITS: EventLogLimits = { maxEventsPerPage: 50, maxBytesPerPage: 10_000_000, maxReadBytes: 10_000_000, retentionMs: 60_000, sweepBatch: 7 };

function boot(handle: StoreHandle): ActorSystem {
  const system = new ActorSystem({ store: handle.store });
  system.register(EventLogKind, (ctx) => new EventLogActor(ctx, LIMITS));
  system.register(EventLogSweeperKind, (ctx) => new EventLogSweeperActor(ctx, LIMITS));
  return system;
}

const ids = new EntryIds();

function entries(urlId: string, from: number, count: number): EventLogDoc[] {
  return Array.from({ length: count }, (_, i) => {
    const seq = from + i;
    const { at, id } = ids.next(clock.now());
    return { _id: id, tenantId: 't1', urlId, at, timestamp: 1000 + seq, broadcastId: `b${seq}`, event: { seq } as unknown as LiveEvent };
  });
}

async function logged(system: ActorSystem, urlId: string, startTime = 0): Promise<number[]> {
  const { json } = await system.ask(EventLogKind, eventLogActorId('t1', urlId), 'read', { startTime, endTime: Number.MAX_SAFE_INTEGER });
  return (JSON.parse(json) as { data: string }[]).map((entry) => (JSON.parse(entry.data) as { seq: number }).seq);
}

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

for (const fixture of storeFixtures()) {
  describe(`event-log actor on ${fixture.name}`, () => {
    let handle: StoreHandle;
    let system: ActorSystem;
    before(async () => {
      handle = await fixture.create(eventLogCollections);
      system = boot(handle);
    });
    after(async () => {
      await system.shutdown(5000);
      await handle.destroy();
    });

    test('keeps the newest maxEventsPerPage entries, in memory and in storage, across a reopen', async () => {
      const appends: Promise<null>[] = [];
      for (let batch = 0; batch < 12; batch++) appends.push(system.ask(EventLogKind, eventLogActorId('t1', '/a'), 'append', { entries: entries('/a', batch * 10, 10) }));
      await Promise.all(appends);
      assert.deepEqual(await logged(system, '/a'), range(70, 50));
      assert.deepEqual(await logged(system, '/a', 1100), range(100, 20), 'a window selects by event timestamp');
      assert.equal(await storedEntries(handle.store, { tenantId: 't1', urlId: '/a' }), 50);

      await system.shutdown(5000);
      await handle.reopen();
      system = boot(handle);
      assert.deepEqual(await logged(system, '/a'), range(70, 50));
    });

    test('a chunk stored without its entries loads as empty; the other chunks still load', async () => {
      const first = entries('/m', 0, 3);
      const second = entries('/m', 3, 3);
      for (const batch of [first, second]) await system.ask(EventLogKind, eventLogActorId('t1', '/m'), 'append', { entries: batch });
      await system.shutdown(5000);
      await handle.store.commit([{ op: 'delete', collection: EVENT_LOG_BODIES, id: first[0]!._id }]);
      await handle.reopen();
      system = boot(handle);
      assert.deepEqual(await logged(system, '/m'), range(3, 3));
    });

    test('a retried append stores nothing twice, and a late batch takes its place by id', async () => {
      const early = entries('/b', 0, 3);
      const late = entries('/b', 3, 3);
      const id = eventLogActorId('t1', '/b');
      await system.ask(EventLogKind, id, 'append', { entries: late });
      await system.ask(EventLogKind, id, 'append', { entries: [...early, late[0]!] });
      await system.ask(EventLogKind, id, 'append', { entries: early });
      assert.deepEqual(await logged(system, '/b'), range(0, 6));
      assert.equal(await storedEntries(handle.store, { tenantId: 't1', urlId: '/b' }), 6);
    });

    test('refuses entries of another page, changing nothing', async () => {
      const stray = entries('/elsewhere', 0, 1);
      await assert.rejects(system.ask(EventLogKind, eventLogActorId('t1', '/b'), 'append', { entries: [...entries('/b', 9, 1), ...stray] }), (err: unknown) => err instanceof ApiError && err.code === 'internal-error');
      assert.deepEqual(await logged(system, '/b'), range(0, 6));
    });

    test('the sweeper drops expired entries of every page, several rounds if need be', async () => {
      for (const urlId of ['/q1', '/q2', '/q3']) await system.ask(EventLogKind, eventLogActorId('t1', urlId), 'append', { entries: entries(urlId, 0, 5) });
      const restore = clock.set(() => Date.now() + LIMITS.retentionMs + 1000);
      try {
        const { pages } = await system.ask(EventLogSweeperKind, SWEEPER_ID, 'sweep', null);
        assert.ok(pages >= 3, `swept ${pages} pages`);
        assert.equal(await handle.store.count(EVENT_LOG, {}), 0);
        assert.equal(await handle.store.count(EVENT_LOG_BODIES, {}), 0, 'no chunk leaves its entries behind');
        assert.deepEqual(await logged(system, '/q1'), []);
        assert.deepEqual(await logged(system, '/a'), []);
      } finally {
        restore();
      }
    });
  });
}
