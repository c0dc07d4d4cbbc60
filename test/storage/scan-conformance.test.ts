/**
 * Conformance of the Store port's streaming read (`scan`) on every adapter available: the same
 * documents as `find`, in bounded batches, each document once even while others are written,
 * and the same from a read-only store opened beside the writer.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Doc, Filter, Store, WriteOp } from '../../storage/store.js';
import { storeFixtures, type StoreHandle } from '../fixtures/stores.js';
import { COLLECTIONS, FILTER_CASES, FILTER_DOCS } from './cases.js';

const put = (collection: string, doc: Doc): WriteOp => ({ op: 'put', collection, doc });

/** Every batch of a scan, checked against the batch size. */
async function scanAll(store: Store, collection: string, filter: Filter, batchSize?: number): Promise<Doc[][]> {
  const batches: Doc[][] = [];
  for await (const batch of store.scan(collection, filter, batchSize === undefined ? {} : { batchSize })) {
    assert.ok(batch.length > 0, 'no empty batch is handed out');
    if (batchSize !== undefined) assert.ok(batch.length <= batchSize, `batch of ${batch.length} > ${batchSize}`);
    batches.push(batch);
  }
  return batches;
}

const sortedIds = (batches: readonly Doc[][]) => batches.flat().map((doc) => doc._id).sort();

function seedDocs(n: number): Doc[] {
  const docs: Doc[] = [];
  for (let i = 0; i < n; i++) {
    docs.push({ _id: `k${String(i).padStart(5, '0')}`, group: `g${i % 4}`, rank: i % 10, tags: [`t${i % 3}`, `t${(i + 1) % 3}`], label: `l${i % 7}` });
  }
  return docs;
}

for (const fixture of storeFixtures()) {
  describe(`Store scan conformance: ${fixture.name}`, () => {
    let handle: StoreHandle;
    let store: Store;

    beforeEach(async () => {
      handle = await fixture.create(COLLECTIONS);
      store = handle.store;
    });

    afterEach(async () => {
      await handle.destroy();
    });

    it('streams the documents find returns, for every filter operator, indexed or not', async () => {
      await store.commit(FILTER_DOCS.map((doc) => put('items', doc)));
      await store.commit(FILTER_DOCS.map((doc) => put('plain', doc)));
      for (const [filter, expected] of FILTER_CASES) {
        for (const collection of ['items', 'plain']) {
          for (const batchSize of [1, 2, 1000]) {
            const batches = await scanAll(store, collection, filter, batchSize);
            assert.deepEqual(sortedIds(batches), [...expected].sort(), `${collection} ${JSON.stringify(filter)} batch ${batchSize}`);
          }
        }
      }
      const [doc] = (await scanAll(store, 'items', { _id: 'd1' })).flat();
      assert.deepEqual(doc, FILTER_DOCS[0]);
    });

    it('hands out bounded batches and each document once, also through a multikey index', async () => {
      const docs = seedDocs(400);
      await store.commit(docs.map((doc) => put('items', doc)));
      const all = await scanAll(store, 'items', {}, 64);
      assert.ok(all.length >= 7);
      assert.deepEqual(sortedIds(all), docs.map((d) => d._id));
      // Every document lists t0..t2 twice between them: one entry per element in the index.
      const tagged = await scanAll(store, 'items', { tags: 't1' }, 50);
      assert.deepEqual(sortedIds(tagged), docs.filter((d) => (d['tags'] as string[]).includes('t1')).map((d) => d._id));
      const ranged = await scanAll(store, 'items', { group: 'g2', rank: { $gte: 5 } }, 7);
      assert.deepEqual(sortedIds(ranged), docs.filter((d) => d['group'] === 'g2' && (d['rank'] as number) >= 5).map((d) => d._id));
      assert.deepEqual(await scanAll(store, 'items', { group: { $in: [] } }), []);
    });

    it('sees every document present throughout exactly once while others are written and removed', async () => {
      const docs = seedDocs(300);
      await store.commit(docs.map((doc) => put('plain', doc)));
      await store.commit(docs.map((doc) => put('items', doc)));
      for (const [collection, filter] of [['plain', {}], ['items', { group: 'g1' }]] as const) {
        const seen = new Map<string, number>();
        let round = 0;
        for await (const batch of store.scan(collection, filter, { batchSize: 50 })) {
          for (const doc of batch) seen.set(doc._id, (seen.get(doc._id) ?? 0) + 1);
          // Between batches: new documents on both sides of the cursor, and the removal of some
          // not yet reached (k0025x and up) and some already passed.
          round++;
          await store.commit([
            put(collection, { _id: `a${round}`, group: 'g1', rank: 0 }),
            put(collection, { _id: `z${round}`, group: 'g1', rank: 0 }),
            { op: 'delete', collection, id: `k${String(250 + round * 4).padStart(5, '0')}` },
          ]);
        }
        const removed = new Set(Array.from({ length: round }, (_, i) => `k${String(250 + (i + 1) * 4).padStart(5, '0')}`));
        for (const doc of docs) {
          if (removed.has(doc._id) || ((filter as Filter)['group'] !== undefined && doc['group'] !== 'g1')) continue;
          assert.equal(seen.get(doc._id), 1, `${collection} ${doc._id} seen once`);
        }
        for (const [id, times] of seen) assert.equal(times, 1, `${collection} ${id} at most once`);
      }
    });

    it('stops cleanly when the reader stops early', async () => {
      await store.commit(seedDocs(300).map((doc) => put('items', doc)));
      let batches = 0;
      for await (const batch of store.scan('items', {}, { batchSize: 10 })) {
        assert.equal(batch.length, 10);
        if (++batches === 3) break;
      }
      assert.equal(batches, 3);
      assert.equal((await scanAll(store, 'items', {})).flat().length, 300);
    });

    it('refuses malformed filters and batch sizes', async () => {
      await assert.rejects(scanAll(store, 'items', { $or: 1 } as unknown as Filter), TypeError);
      await assert.rejects(scanAll(store, 'items', {}, 0), TypeError);
      await assert.rejects(scanAll(store, 'nope', {}), TypeError);
    });

    it('reads through a read-only store opened beside the writer, which refuses writes', async () => {
      const docs = seedDocs(200);
      await store.commit(docs.map((doc) => put('items', doc)));
      const reader = await handle.reader();
      assert.deepEqual(sortedIds(await scanAll(reader, 'items', { group: 'g3' }, 16)), docs.filter((d) => d['group'] === 'g3').map((d) => d._id));
      await store.commit([put('items', { _id: 'late', group: 'g3', rank: 1, tags: ['solo'] })]);
      assert.ok(sortedIds(await scanAll(reader, 'items', { group: 'g3' })).includes('late'), 'sees later commits');
      assert.deepEqual(sortedIds(await scanAll(reader, 'items', { tags: 'solo' })), ['late']);
      await assert.rejects(reader.commit([put('items', { _id: 'x', group: 'g', rank: 1 })]), TypeError);
      assert.equal(await store.get('items', 'x'), undefined);
    });
  });
}
