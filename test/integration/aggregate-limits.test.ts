/**
 * The aggregation pool's limits on both storages, with data written straight to storage (each
 * data set in its own collection: FerretDB reads a whole collection for any filter):
 * distinct values over 100,000 documents; a call built to outgrow 64 MB stopped with its code,
 * the memory given back and the tenant served again; one call at a time per tenant, a queue
 * that times out, and other tenants never held up by it; the run-time limit.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { MongoClient } from 'mongodb';
import { createTenant, type ProvisionedTenant } from '../../actors/tenant/provision.js';
import type { AggregationEvent } from '../../aggregate/aggregator.js';
import type { Doc, WriteOp } from '../../storage/store.js';
import { startTestServer, storages, type ApiResponse, type TestServer } from '../fixtures/server.js';

const MANY = 100_000;
/** Documents of the memory test, each with this many values found in no other. */
const WIDE_DOCS = 1500;
const WIDE_VALUES = 1000;

type Answer = { data: Array<Record<string, Record<string, unknown>>>; stats?: { scanned: number; creditsCost: number }; code?: string };

/** This process's resident anonymous memory (heap and malloc, not LMDB's file pages), in MB. */
function rssAnonMb(): number {
  const match = /RssAnon:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return Number(match![1]) / 1024;
}

/** Writes documents straight to the server's storage: the Store on LMDB, bulk inserts on MongoDB (its journaled commits are far slower). */
async function seed(t: TestServer, collection: string, docs: Generator<Doc>): Promise<void> {
  const { mongodbUri, mongodbDb } = t.server.services.config;
  let client: MongoClient | undefined;
  if (t.storage === 'mongodb') client = await new MongoClient(mongodbUri!).connect();
  try {
    let chunk: Doc[] = [];
    const flush = async () => {
      if (chunk.length === 0) return;
      if (client) await client.db(mongodbDb).collection<Doc>(collection).insertMany(chunk, { ordered: false });
      else await t.server.services.store.commit(chunk.map((doc): WriteOp => ({ op: 'put', collection, doc })));
      chunk = [];
    };
    for (const doc of docs) {
      chunk.push(doc);
      if (chunk.length === 1000) await flush();
    }
    await flush();
  } finally {
    await client?.close();
  }
}

function* manyComments(tenantId: string): Generator<Doc> {
  for (let i = 0; i < MANY; i++) {
    yield { _id: `n${String(i).padStart(6, '0')}`, tenantId, urlId: `p${i % 1000}`, commenterName: `u${i % 5000}`, votes: i % 7 };
  }
}

function* wideUsers(tenantId: string): Generator<Doc> {
  for (let i = 0; i < WIDE_DOCS; i++) {
    yield { _id: `w${i}`, tenantId, kind: 'sso', username: `w${i}`, groupIds: Array.from({ length: WIDE_VALUES }, (_, j) => `${i}.${j}`) };
  }
}

function* votes(tenantId: string, n: number): Generator<Doc> {
  for (let i = 0; i < n; i++) yield { _id: `v${i}`, tenantId, kind: 'authorized', urlId: `p${i % 10}`, commentId: `c${i}`, direction: 1 };
}

/** Votes for a call that runs long on MongoDB (FerretDB reads about 10,000 documents a second). */
const SLOW_VOTES = 5000;

for (const storage of storages()) {
  describe(`aggregation limits on ${storage}`, () => {
    let t: TestServer;
    let wide: ProvisionedTenant;
    let small: ProvisionedTenant;
    const count = { field: 'id', op: 'count', alias: 'n' } as const;
    /**
     * A call that runs for a good while: on LMDB, one that reads all 100,000 comments and keeps a
     * value per document; on FerretDB, far slower, a few thousand votes suffice.
     */
    const long =
      storage === 'lmdb'
        ? { body: { resourceName: 'Comment', operations: [count, { field: 'id', op: 'countDistinct', alias: 'ids' }] }, answer: [{ n: { numericValue: MANY }, ids: { distinctCount: MANY } }] }
        : { body: { resourceName: 'Vote', operations: [count, { field: 'commentId', op: 'countDistinct', alias: 'ids' }] }, answer: [{ n: { numericValue: SLOW_VOTES }, ids: { distinctCount: SLOW_VOTES } }] };
    const smallCall = { resourceName: 'PageReact', operations: [count] };

    function aggregate(as: ProvisionedTenant, body: unknown, query: Record<string, boolean> = {}): Promise<ApiResponse<Answer>> {
      return t.api<Answer>('POST', '/api/v1/aggregate', { auth: 'none', headers: { 'x-api-key': as.apiKey, 'x-tenant-id': as.tenantId }, body, query });
    }

    /** Every pool event from now on, and a promise of the first `started` of a tenant. */
    function watch(tenantId: string): { events: AggregationEvent[]; started: Promise<void>; stop: () => void } {
      const events: AggregationEvent[] = [];
      let resolve!: () => void;
      const started = new Promise<void>((r) => (resolve = r));
      const stop = t.server.services.aggregator.observe((event) => {
        events.push(event);
        if (event.type === 'started' && event.tenantId === tenantId) resolve();
      });
      return { events, started, stop };
    }

    const at = (events: AggregationEvent[], type: AggregationEvent['type'], tenantId: string, nth = 0) =>
      events.findIndex((e, i) => e.type === type && e.tenantId === tenantId && events.slice(0, i).filter((p) => p.type === type && p.tenantId === tenantId).length === nth);

    before(async () => {
      t = await startTestServer(storage);
      wide = await createTenant(t.server.services.store, { name: 'Wide' });
      small = await createTenant(t.server.services.store, { name: 'Small' });
      await seed(t, 'comments', manyComments(t.tenant.tenantId));
      await seed(t, 'users', wideUsers(wide.tenantId));
      await seed(t, 'votes', votes(t.tenant.tenantId, storage === 'lmdb' ? 10 : SLOW_VOTES));
      await seed(t, 'pageReacts', (function* () {
        for (let i = 0; i < 10; i++) yield { _id: `s${i}`, tenantId: small.tenantId, urlId: 'x', kind: 'like', reactId: '', userKey: `a:${i}` };
      })());
    });

    after(async () => {
      await t.destroy();
    });

    it('counts distinct values over 100,000 documents; a second call of the tenant waits, another tenant does not', async () => {
      const me = t.tenant;
      const watching = watch(me.tenantId);
      const first = aggregate(
        me,
        {
          resourceName: 'Comment',
          operations: [
            count,
            { field: 'commenterName', op: 'countDistinct', alias: 'names' },
            { field: 'urlId', op: 'distinct', alias: 'pages' },
            { field: 'id', op: 'countDistinct', alias: 'ids' },
            { field: 'id', op: 'distinct', alias: 'each' },
          ],
        },
        { includeStats: true },
      );
      await watching.started;
      const second = aggregate(me, smallCall);
      const other = aggregate(small, smallCall);
      const [a, b, c] = await Promise.all([first, second, other]);
      watching.stop();

      assert.equal(a.status, 200, JSON.stringify(a.body).slice(0, 300));
      const [item] = a.body.data;
      assert.deepEqual(item!['n'], { numericValue: MANY });
      assert.deepEqual(item!['names'], { distinctCount: 5000 });
      assert.deepEqual(item!['ids'], { distinctCount: MANY });
      const pages = item!['pages']!['distinctCounts'] as Record<string, number>;
      assert.equal(Object.keys(pages).length, 1000);
      assert.ok(Object.values(pages).every((n) => n === 100));
      const each = item!['each']!['distinctCounts'] as Record<string, number>;
      assert.equal(Object.keys(each).length, MANY);
      assert.equal(each['n099999'], 1);
      assert.ok(Object.values(each).every((n) => n === 1));
      assert.deepEqual(a.body.stats && { scanned: a.body.stats.scanned, creditsCost: a.body.stats.creditsCost }, { scanned: MANY, creditsCost: 200 });
      assert.deepEqual([b.status, b.body.data], [200, [{ n: { numericValue: 0 } }]]);
      assert.deepEqual([c.status, c.body.data], [200, [{ n: { numericValue: 10 } }]]);

      const { events } = watching;
      const firstDone = at(events, 'finished', me.tenantId, 0);
      assert.ok(at(events, 'queued', me.tenantId) >= 0 && at(events, 'queued', me.tenantId) < firstDone, 'the second call queued while the first ran');
      assert.ok(at(events, 'started', me.tenantId, 1) > firstDone, 'and started only after it');
      assert.ok(at(events, 'started', small.tenantId) < firstDone, "another tenant's call started while the first ran");
      assert.equal(at(events, 'queued', small.tenantId), -1, "another tenant's call never queued");
    });

    it('stops a call that outgrows 64 MB, gives the memory back, and serves the tenant again', async () => {
      // A worker is up (and its storage open) before the baseline is taken.
      assert.equal((await aggregate(wide, smallCall)).status, 200);
      const baseline = rssAnonMb();
      const greedy = { resourceName: 'SSOUser', operations: [{ field: 'groupIds', op: 'distinct', expandArray: true }] };
      // Twice where that is quick: memory that stayed behind would add up.
      const rounds = storage === 'lmdb' ? 2 : 1;
      for (let round = 0; round < rounds; round++) {
        const r = await aggregate(wide, greedy);
        assert.equal(r.status, 422, JSON.stringify(r.body).slice(0, 300));
        assert.equal(r.body.code, 'aggregation-memory-limit');
        // The stopped worker held over 64 MB; what it held is gone, each time.
        const grown = rssAnonMb() - baseline;
        assert.ok(grown < 40, `resident memory grew by ${grown.toFixed(1)} MB after round ${round + 1}`);
      }
      const again = await aggregate(wide, smallCall);
      assert.deepEqual([again.status, again.body.data], [200, [{ n: { numericValue: 0 } }]]);
    });

    it('times a queued call out with its code, and other tenants are not held up', async () => {
      t = await t.restart({ aggregationQueueTimeoutMs: 1 });
      const me = t.tenant;
      const watching = watch(me.tenantId);
      const first = aggregate(me, long.body);
      await watching.started;
      const [queued, other] = await Promise.all([aggregate(me, smallCall), aggregate(small, smallCall)]);
      const done = await first;
      watching.stop();
      assert.equal(queued.status, 503);
      assert.equal(queued.body.code, 'aggregation-queue-timeout');
      assert.deepEqual([other.status, other.body.data], [200, [{ n: { numericValue: 10 } }]]);
      assert.deepEqual([done.status, done.body.data], [200, long.answer]);
      const { events } = watching;
      assert.ok(at(events, 'started', small.tenantId) < at(events, 'finished', me.tenantId, 1), "the other tenant's call ran beside the first");
    });

    it('stops a run past its time limit with its code', async () => {
      t = await t.restart({ aggregationRunTimeoutMs: 1 });
      const r = await aggregate(t.tenant, long.body);
      assert.equal(r.status, 504);
      assert.equal(r.body.code, 'aggregation-run-timeout');
      t = await t.restart({ aggregationRunTimeoutMs: 300_000 });
      const ok = await aggregate(small, smallCall);
      assert.deepEqual([ok.status, ok.body.data], [200, [{ n: { numericValue: 10 } }]]);
    });
  });
}
