/**
 * Aggregation memory is spent on the aggregation's own state, not on the documents it reads:
 * on both storages, comments of about 48 KB each, over twice the memory a call may use in all
 * (3,000 against 64 MB on LMDB; 1,200 against 24 MB on MongoDB, whose test server, FerretDB,
 * takes minutes to store 144 MB), are counted and grouped right after another call was stopped
 * for memory, because scans hand the worker only the fields the call names.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, type ProvisionedTenant } from '../../actors/tenant/provision.js';
import type { Doc } from '../../storage/store.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { aggregateAs, count, seed, wideUsers } from './aggregate-fixture.js';

/** Comments stored, and the memory (MB) a call may use, per storage. */
const SIZES = { lmdb: { comments: 3000, memoryMb: 64 }, mongodb: { comments: 1200, memoryMb: 24 } } as const;
const COMMENT_BYTES = 48 * 1024;
const PAGES = 30;

function* bigComments(tenantId: string, n: number): Generator<Doc> {
  for (let i = 0; i < n; i++) {
    // Every text differs, so nothing can be shared between documents.
    const text = `${i} `.padEnd(COMMENT_BYTES, String.fromCharCode(97 + (i % 26)));
    yield { _id: `b${String(i).padStart(5, '0')}`, tenantId, urlId: `p${i % PAGES}`, votes: 1, comment: text, commentHTML: text };
  }
}

for (const storage of storages()) {
  describe(`aggregation over large documents on ${storage}`, () => {
    const { comments: BIG_COMMENTS, memoryMb } = SIZES[storage];
    let t: TestServer;
    let wide: ProvisionedTenant;

    before(async () => {
      t = await startTestServer(storage, { aggregationMemoryMb: memoryMb });
      wide = await createTenant(t.server.services.store, { name: 'Wide' });
      await seed(t, 'comments', bigComments(t.tenant.tenantId, BIG_COMMENTS));
      await seed(t, 'users', wideUsers(wide.tenantId));
    });

    after(async () => {
      await t.destroy();
    });

    it(`counts ${BIG_COMMENTS} comments of 48 KB right after a call was stopped for memory`, async () => {
      const greedy = await aggregateAs(t, wide, { resourceName: 'SSOUser', operations: [{ field: 'groupIds', op: 'distinct', expandArray: true }] });
      assert.equal(greedy.status, 422, JSON.stringify(greedy.body).slice(0, 300));
      assert.equal(greedy.body.code, 'aggregation-memory-limit');

      const counted = await aggregateAs(t, t.tenant, { resourceName: 'Comment', operations: [count] }, { includeStats: true });
      assert.equal(counted.status, 200, JSON.stringify(counted.body).slice(0, 300));
      assert.deepEqual(counted.body.data, [{ n: { numericValue: BIG_COMMENTS } }]);
      assert.equal(counted.body.stats?.scanned, BIG_COMMENTS);

      const grouped = await aggregateAs(t, t.tenant, { resourceName: 'Comment', groupBy: ['urlId'], operations: [count, { field: 'votes', op: 'sum', alias: 'v' }] });
      assert.equal(grouped.status, 200, JSON.stringify(grouped.body).slice(0, 300));
      assert.equal(grouped.body.data.length, PAGES);
      for (const item of grouped.body.data) assert.deepEqual([item['n'], item['v']], [{ numericValue: BIG_COMMENTS / PAGES }, { numericValue: BIG_COMMENTS / PAGES }]);
    });
  });
}
