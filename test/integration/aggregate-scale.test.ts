/**
 * Aggregation at scale on both storages, data written straight to storage: distinct values over
 * 100,000 documents, while a second call of the same tenant waits its turn and another
 * tenant's call runs beside it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, type ProvisionedTenant } from '../../actors/tenant/provision.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { aggregateAs, at, count, manyComments, MANY, reactions, seed, smallCall, watch } from './aggregate-fixture.js';

for (const storage of storages()) {
  describe(`aggregation over 100,000 documents on ${storage}`, () => {
    let t: TestServer;
    let small: ProvisionedTenant;

    before(async () => {
      t = await startTestServer(storage);
      small = await createTenant(t.server.services.store, { name: 'Small' });
      await seed(t, 'comments', manyComments(t.tenant.tenantId));
      await seed(t, 'pageReacts', reactions(small.tenantId, 10));
    });

    after(async () => {
      await t.destroy();
    });

    it('counts distinct values over 100,000 documents; a second call of the tenant waits, another tenant does not', async () => {
      const me = t.tenant;
      const watching = watch(t, me.tenantId);
      const first = aggregateAs(t, 
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
      const second = aggregateAs(t, me, smallCall);
      const other = aggregateAs(t, small, smallCall);
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
  });
}
