/**
 * The aggregation pool's limits on both storages, data written straight to storage: a call built
 * to outgrow 64 MB stopped with its code, the memory given back and the tenant served again; a
 * queued call timed out while other tenants are not held up; the run-time limit.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, type ProvisionedTenant } from '../../actors/tenant/provision.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { aggregateAs, at, longCall, manyComments, reactions, rssAnonMb, seed, SLOW_VOTES, smallCall, votes, watch, wideUsers } from './aggregate-fixture.js';

for (const storage of storages()) {
  describe(`aggregation limits on ${storage}`, () => {
    let t: TestServer;
    let wide: ProvisionedTenant;
    let small: ProvisionedTenant;

    before(async () => {
      t = await startTestServer(storage);
      wide = await createTenant(t.server.services.store, { name: 'Wide' });
      small = await createTenant(t.server.services.store, { name: 'Small' });
      if (storage === 'lmdb') await seed(t, 'comments', manyComments(t.tenant.tenantId));
      else await seed(t, 'votes', votes(t.tenant.tenantId, SLOW_VOTES));
      await seed(t, 'users', wideUsers(wide.tenantId));
      await seed(t, 'pageReacts', reactions(small.tenantId, 10));
    });

    after(async () => {
      await t.destroy();
    });

    it('stops a call that outgrows 64 MB, gives the memory back, and serves the tenant again', async () => {
      // A worker is up (and its storage open) before the baseline is taken.
      assert.equal((await aggregateAs(t, wide, smallCall)).status, 200);
      const baseline = rssAnonMb();
      const greedy = { resourceName: 'SSOUser', operations: [{ field: 'groupIds', op: 'distinct', expandArray: true }] };
      // Twice where that is quick: memory that stayed behind would add up.
      const rounds = storage === 'lmdb' ? 2 : 1;
      for (let round = 0; round < rounds; round++) {
        const r = await aggregateAs(t, wide, greedy);
        assert.equal(r.status, 422, JSON.stringify(r.body).slice(0, 300));
        assert.equal(r.body.code, 'aggregation-memory-limit');
        // The stopped worker held over 64 MB; what it held is gone, each time.
        const grown = rssAnonMb() - baseline;
        assert.ok(grown < 40, `resident memory grew by ${grown.toFixed(1)} MB after round ${round + 1}`);
      }
      const again = await aggregateAs(t, wide, smallCall);
      assert.deepEqual([again.status, again.body.data], [200, [{ n: { numericValue: 0 } }]]);
    });

    it('times a queued call out with its code, and other tenants are not held up', async () => {
      t = await t.restart({ aggregationQueueTimeoutMs: 1 });
      const me = t.tenant;
      const watching = watch(t, me.tenantId);
      const first = aggregateAs(t, me, longCall(storage).body);
      await watching.started;
      const [queued, other] = await Promise.all([aggregateAs(t, me, smallCall), aggregateAs(t, small, smallCall)]);
      const done = await first;
      watching.stop();
      assert.equal(queued.status, 503);
      assert.equal(queued.body.code, 'aggregation-queue-timeout');
      assert.deepEqual([other.status, other.body.data], [200, [{ n: { numericValue: 10 } }]]);
      assert.deepEqual([done.status, done.body.data], [200, longCall(storage).answer]);
      const { events } = watching;
      assert.ok(at(events, 'started', small.tenantId) < at(events, 'finished', me.tenantId, 1), "the other tenant's call ran beside the first");
    });

    it('stops a run past its time limit with its code', async () => {
      t = await t.restart({ aggregationRunTimeoutMs: 1 });
      const r = await aggregateAs(t, t.tenant, longCall(storage).body);
      assert.equal(r.status, 504);
      assert.equal(r.body.code, 'aggregation-run-timeout');
      t = await t.restart({ aggregationRunTimeoutMs: 300_000 });
      const ok = await aggregateAs(t, small, smallCall);
      assert.deepEqual([ok.status, ok.body.data], [200, [{ n: { numericValue: 10 } }]]);
    });
  });
}
