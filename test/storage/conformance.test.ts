/**
 * Conformance suite of the Store port: the same body runs against every adapter available
 * (LMDB always, MongoDB/FerretDB when MONGODB_URI is set), so both behave identically. The
 * streaming read (`scan`) must return what `find` does, in bounded batches, each document once
 * even while others are written, and the same from a read-only store opened beside the writer.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Doc, Filter, SortSpec, Store, WriteOp } from '../../storage/store.js';
import { DuplicateKeyError } from '../../storage/errors.js';
import { storeFixtures, type StoreHandle } from '../fixtures/stores.js';
import { COLLECTIONS, FILTER_CASES, FILTER_DOCS } from './cases.js';

const put = (collection: string, doc: Doc): WriteOp => ({ op: 'put', collection, doc });
const insert = (collection: string, doc: Doc): WriteOp => ({ op: 'insert', collection, doc });
const patch = (collection: string, id: string, set?: Record<string, unknown>, unset?: string[]): WriteOp => ({
  op: 'patch',
  collection,
  id,
  ...(set ? { set } : {}),
  ...(unset ? { unset } : {}),
});
const del = (collection: string, id: string): WriteOp => ({ op: 'delete', collection, id });
const ids = (docs: readonly Doc[]) => docs.map((doc) => doc._id);

/** Reference order for the test data (numbers and ASCII strings only), independent of the adapters. */
function expectedOrder(docs: readonly Doc[], sort: SortSpec): string[] {
  const rank = (v: unknown) => (v === undefined || v === null ? 0 : typeof v === 'number' ? 1 : 2);
  const cmp = (a: unknown, b: unknown) =>
    rank(a) - rank(b) || (rank(a) === 0 ? 0 : (a as number | string) < (b as number | string) ? -1 : a === b ? 0 : 1);
  const full = sort.some(([f]) => f === '_id') ? sort : [...sort, ['_id', 1] as const];
  return [...docs]
    .sort((x, y) => {
      for (const [field, dir] of full) {
        const c = cmp(x[field], y[field]);
        if (c !== 0) return c * dir;
      }
      return 0;
    })
    .map((d) => d._id);
}

async function rejectsDuplicate(promise: Promise<unknown>, index?: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof DuplicateKeyError, `expected DuplicateKeyError, got ${String(error)}`);
    if (index) assert.equal(error.index, index);
    return true;
  });
}

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
  describe(`Store conformance: ${fixture.name}`, () => {
    let handle: StoreHandle;
    let store: Store;

    beforeEach(async () => {
      handle = await fixture.create(COLLECTIONS);
      store = handle.store;
    });

    afterEach(async () => {
      await handle.destroy();
    });

    it('puts, gets and replaces whole documents', async () => {
      const doc = { _id: 'a', title: 'hello', nested: { list: [1, 'two', { three: null }], flag: false }, n: 1.5 };
      await store.commit([put('plain', doc)]);
      assert.deepEqual(await store.get('plain', 'a'), doc);
      await store.commit([put('plain', { _id: 'a', other: 2 })]);
      assert.deepEqual(await store.get('plain', 'a'), { _id: 'a', other: 2 });
      assert.equal(await store.get('plain', 'missing'), undefined);
    });

    it('rejects inserting an existing id, applying nothing of the batch', async () => {
      await store.commit([insert('plain', { _id: 'a', v: 1 })]);
      await rejectsDuplicate(store.commit([insert('plain', { _id: 'b', v: 2 }), insert('plain', { _id: 'a', v: 3 })]), '_id_');
      await rejectsDuplicate(store.commit([insert('plain', { _id: 'a', v: 4 })]), '_id_');
      assert.deepEqual(await store.get('plain', 'a'), { _id: 'a', v: 1 });
      assert.equal(await store.get('plain', 'b'), undefined);
    });

    it('patches with set and unset, and ignores patches and deletes of missing documents', async () => {
      await store.commit([put('plain', { _id: 'a', keep: 1, drop: 2, change: 'x' })]);
      await store.commit([patch('plain', 'a', { change: 'y', added: [1, 2] }, ['drop', 'absent'])]);
      assert.deepEqual(await store.get('plain', 'a'), { _id: 'a', keep: 1, change: 'y', added: [1, 2] });
      await store.commit([patch('plain', 'nope', { x: 1 }), del('plain', 'nope')]);
      assert.equal(await store.get('plain', 'nope'), undefined);
      await store.commit([del('plain', 'a')]);
      assert.equal(await store.get('plain', 'a'), undefined);
      assert.equal(await store.count('plain', {}), 0);
    });

    it('applies runs of deletes in order with the writes around them, in batches of any length', async () => {
      const docs = seedDocs(250);
      await store.commit(docs.map((doc) => put('items', doc)));
      // Deletes of existing and missing ids, one run longer than a hundred, between writes of the same ids.
      await store.commit([
        insert('items', { _id: 'fresh', group: 'g', rank: 1 }),
        ...docs.slice(0, 150).map((doc) => del('items', doc._id)),
        del('items', 'fresh'),
        del('items', 'never-there'),
        put('items', { ...docs[0]!, rank: 99 }),
        del('items', docs[200]!._id),
        patch('items', docs[1]!._id, { rank: 98 }),
      ]);
      assert.equal(await store.count('items', {}), 250 - 150 + 1 - 1);
      assert.equal(await store.get('items', 'fresh'), undefined);
      assert.equal((await store.get<Doc & { rank: number }>('items', docs[0]!._id))?.rank, 99, 'a put after its delete stands');
      assert.equal(await store.get('items', docs[1]!._id), undefined, 'a patch of a deleted document does nothing');
      assert.equal(await store.get('items', docs[200]!._id), undefined);
      assert.ok(await store.get('items', docs[201]!._id));
    });

    it('returns fresh copies and does not keep references to written documents', async () => {
      const doc = { _id: 'a', list: [1, 2], inner: { v: 1 }, group: 'g', rank: 1 };
      await store.commit([put('items', doc)]);
      doc.list.push(3);
      doc.inner.v = 99;
      const first = await store.get<Doc & { list: number[]; inner: { v: number } }>('items', 'a');
      assert.deepEqual(first?.list, [1, 2]);
      first!.list.push(4);
      first!.inner.v = 5;
      const [found] = await store.find<Doc & { list: number[] }>('items', { group: 'g' });
      assert.deepEqual(found?.list, [1, 2]);
      found!.list.length = 0;
      assert.deepEqual(await store.get('items', 'a'), { _id: 'a', list: [1, 2], inner: { v: 1 }, group: 'g', rank: 1 });
    });

    it('evaluates every filter operator with MongoDB semantics', async () => {
      await store.commit(FILTER_DOCS.map((doc) => put('items', doc)));
      await store.commit(FILTER_DOCS.map((doc) => put('plain', doc)));
      for (const [filter, expected] of FILTER_CASES) {
        for (const collection of ['items', 'plain']) {
          const found = await store.find(collection, filter);
          assert.deepEqual(ids(found), expected, `${collection} find ${JSON.stringify(filter)}`);
          assert.equal(await store.count(collection, filter), expected.length, `${collection} count ${JSON.stringify(filter)}`);
        }
      }
    });

    describe('sorting and paging', () => {
      const docs: Doc[] = [];
      for (let i = 0; i < 30; i++) {
        const doc: Doc = { _id: `s${String((i * 7) % 30).padStart(2, '0')}`, group: `g${i % 3}`, label: `x${i % 4}` };
        if (i % 5 !== 0) doc['rank'] = i % 6;
        docs.push(doc);
      }
      const sorts: SortSpec[] = [
        [['rank', 1]],
        [['rank', -1]],
        [['group', 1], ['rank', 1]],
        [['group', 1], ['rank', -1]],
        [['group', -1], ['rank', -1]],
        [['label', -1]],
        [['label', 1], ['group', -1]],
        [['_id', -1]],
        [['rank', -1], ['_id', -1]],
        [],
      ];

      it('sorts on one and two fields, both directions, ties broken by _id', async () => {
        await store.commit(docs.map((doc) => put('items', doc)));
        await store.commit(docs.map((doc) => put('plain', doc)));
        for (const collection of ['items', 'plain']) {
          for (const sort of sorts) {
            assert.deepEqual(ids(await store.find(collection, {}, { sort })), expectedOrder(docs, sort), `${collection} ${JSON.stringify(sort)}`);
          }
          const g1 = docs.filter((d) => d['group'] === 'g1');
          for (const sort of [[['rank', 1]], [['rank', -1]], [['group', 1], ['rank', -1]], []] as SortSpec[]) {
            assert.deepEqual(
              ids(await store.find(collection, { group: 'g1' }, { sort })),
              expectedOrder(g1, sort),
              `${collection} g1 ${JSON.stringify(sort)}`,
            );
          }
          const ranged = docs.filter((d) => typeof d['rank'] === 'number' && (d['rank'] as number) >= 2);
          assert.deepEqual(ids(await store.find(collection, { rank: { $gte: 2 } }, { sort: [['rank', -1]] })), expectedOrder(ranged, [['rank', -1]]));
        }
      });

      it('applies skip and limit with and without a usable index', async () => {
        await store.commit(docs.map((doc) => put('items', doc)));
        const g2 = docs.filter((d) => d['group'] === 'g2');
        const cases: Array<[Filter, SortSpec, number, number | undefined, Doc[]]> = [
          [{ group: 'g2' }, [['rank', 1]], 1, 3, g2],
          [{ group: 'g2' }, [['rank', -1]], 0, 2, g2],
          [{}, [['group', 1], ['rank', 1]], 5, 7, docs],
          [{}, [['label', -1]], 4, 6, docs],
          [{}, [['label', 1], ['rank', -1]], 3, 5, docs],
          [{}, [], 10, 5, docs],
          [{}, [['_id', -1]], 2, 3, docs],
          [{ group: 'g0' }, [['label', 1]], 2, undefined, docs.filter((d) => d['group'] === 'g0')],
          [{}, [['rank', 1]], 100, 5, docs],
        ];
        for (const [filter, sort, skip, limit, subset] of cases) {
          const all = expectedOrder(subset, sort);
          const expected = all.slice(skip, limit === undefined ? undefined : skip + limit);
          const found = await store.find('items', filter, { sort, skip, ...(limit === undefined ? {} : { limit }) });
          assert.deepEqual(ids(found), expected, `${JSON.stringify(filter)} ${JSON.stringify(sort)} ${skip} ${limit}`);
        }
        assert.deepEqual(await store.find('items', {}, { limit: 0 }), []);
        assert.equal(await store.count('items', {}), docs.length);
        assert.equal(await store.count('items', { group: 'g2' }), g2.length);
        assert.equal(await store.count('items', { group: 'g2', rank: { $gt: 2 } }), g2.filter((d) => (d['rank'] as number) > 2).length);
      });
    });

    it('refuses a batch whose put or patch breaks a unique index, applying none of it', async () => {
      await store.commit([put('users', { _id: 'u1', email: 'one@x' }), put('users', { _id: 'u2', email: 'two@x' })]);
      await rejectsDuplicate(store.commit([put('users', { _id: 'u3', email: 'three@x' }), put('users', { _id: 'u4', email: 'one@x' })]), 'by_email');
      await rejectsDuplicate(store.commit([put('users', { _id: 'u5', email: 'five@x' }), patch('users', 'u2', { email: 'one@x' })]), 'by_email');
      await rejectsDuplicate(store.commit([put('users', { _id: 'u6', email: 'same@x' }), put('users', { _id: 'u7', email: 'same@x' })]), 'by_email');
      await rejectsDuplicate(store.commit([patch('users', 'u2', { email: 'one@x' })]), 'by_email');
      await rejectsDuplicate(store.commit([put('users', { _id: 'u8', email: 'two@x' })]), 'by_email');
      for (const id of ['u3', 'u4', 'u5', 'u6', 'u7', 'u8']) assert.equal(await store.get('users', id), undefined, id);
      assert.deepEqual(await store.get('users', 'u2'), { _id: 'u2', email: 'two@x' });

      // Values may move between documents within one batch, as long as each step is valid.
      await store.commit([
        patch('users', 'u1', { email: 'tmp@x' }),
        patch('users', 'u2', { email: 'one@x' }),
        patch('users', 'u1', { email: 'two@x' }),
        put('users', { _id: 'u9', email: 'tmp@x' }),
      ]);
      assert.equal((await store.get('users', 'u1'))?.['email'], 'two@x');
      assert.equal((await store.get('users', 'u2'))?.['email'], 'one@x');
      assert.deepEqual(ids(await store.find('users', { email: 'tmp@x' })), ['u9']);
      // Re-putting a document with its own unique value is not a conflict.
      await store.commit([put('users', { _id: 'u9', email: 'tmp@x', name: 'nine' })]);

      await store.commit([put('pairs', { _id: 'p1', a: 1, b: 'x' }), put('pairs', { _id: 'p2', a: 1, b: 'y' })]);
      await rejectsDuplicate(store.commit([put('pairs', { _id: 'p3', a: 1, b: 'x' })]), 'by_ab');
      await store.commit([put('pairs', { _id: 'p3', a: 2, b: 'x' })]);
      assert.equal(await store.count('pairs', {}), 3);
    });

    it('applies ops on the same id in batch order', async () => {
      await store.commit([
        put('items', { _id: 'a', group: 'g', rank: 1 }),
        patch('items', 'a', { rank: 2, extra: true }),
        del('items', 'a'),
        put('items', { _id: 'a', group: 'h', rank: 3 }),
        put('items', { _id: 'b', group: 'g', rank: 1 }),
        patch('items', 'b', { group: 'h' }),
      ]);
      assert.deepEqual(await store.get('items', 'a'), { _id: 'a', group: 'h', rank: 3 });
      assert.deepEqual(ids(await store.find('items', { group: 'h' }, { sort: [['rank', 1]] })), ['b', 'a']);
      assert.deepEqual(await store.find('items', { group: 'g' }), []);
    });

    it('keeps concurrent commits independent when one of them fails', async () => {
      await store.commit([put('users', { _id: 'taken', email: 'taken@x' })]);
      const results = await Promise.allSettled([
        store.commit([put('users', { _id: 'c1', email: 'c1@x' }), put('plain', { _id: 'c1' })]),
        store.commit([put('users', { _id: 'c2', email: 'c2@x' }), put('users', { _id: 'c3', email: 'taken@x' })]),
        store.commit([insert('plain', { _id: 'c4' })]),
        store.commit([insert('users', { _id: 'taken', email: 'other@x' })]),
        store.commit([put('users', { _id: 'c5', email: 'c5@x' }), patch('users', 'c5', { email: 'c5b@x' })]),
      ]);
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled'],
      );
      for (const r of [results[1], results[3]]) {
        assert.ok(r?.status === 'rejected' && r.reason instanceof DuplicateKeyError);
      }
      store = await handle.reopen();
      assert.ok(await store.get('users', 'c1'));
      assert.ok(await store.get('plain', 'c1'));
      assert.ok(await store.get('plain', 'c4'));
      assert.equal((await store.get('users', 'c5'))?.['email'], 'c5b@x');
      assert.equal(await store.get('users', 'c2'), undefined);
      assert.equal(await store.get('users', 'c3'), undefined);
      assert.equal((await store.get('users', 'taken'))?.['email'], 'taken@x');
    });

    it('commits a batch of 1000 ops', async () => {
      const ops: WriteOp[] = [];
      for (let i = 0; i < 1000; i++) {
        ops.push(put('items', { _id: `b${String(i).padStart(4, '0')}`, group: `g${i % 10}`, rank: i, tags: [`t${i % 7}`] }));
      }
      await store.commit(ops);
      assert.equal(await store.count('items', {}), 1000);
      assert.equal(await store.count('items', { group: 'g3' }), 100);
      const top = await store.find('items', { group: 'g3' }, { sort: [['rank', -1]], limit: 3 });
      assert.deepEqual(ids(top), ['b0993', 'b0983', 'b0973']);
      assert.equal((await store.find('items', { tags: 't0' })).length, 143);
    });

    it('rewrites and patches 250 existing documents in one batch', async () => {
      const seed: WriteOp[] = [];
      for (let i = 0; i < 250; i++) seed.push(put('items', { _id: `b${String(i).padStart(4, '0')}`, group: 'seed', rank: i, tags: [] }));
      await store.commit(seed);
      const ops: WriteOp[] = [];
      for (let i = 0; i < 250; i++) {
        const id = `b${String(i).padStart(4, '0')}`;
        ops.push(i % 2 === 0 ? put('items', { _id: id, group: 'rewritten', rank: -i, tags: [] }) : { op: 'patch', collection: 'items', id, set: { group: 'patched' } });
      }
      await store.commit(ops);
      assert.equal(await store.count('items', { group: 'rewritten' }), 125);
      assert.equal(await store.count('items', { group: 'patched' }), 125);
      assert.equal((await store.get('items', 'b0248'))?.['rank'], -248);
    });

    it('handles 3 KB ids and indexed values exactly, including order', async () => {
      const base = 'k'.repeat(3000);
      const longIds = [`${base}b`, `${base}a`, `${base}c`, base, 'short', `${base}a${'z'.repeat(500)}`];
      const labels = [`${base}2`, `${base}1`, `${base}3`, `${base}1`, 'a', base];
      const docs = longIds.map((id, i) => ({ _id: id, label: labels[i]!, group: 'long', rank: i % 2, tags: [labels[i]!] }));
      await store.commit(docs.map((doc) => put('items', doc)));
      for (const doc of docs) assert.deepEqual(await store.get('items', doc._id), doc);
      assert.equal(await store.get('items', `${base}d`), undefined);
      const sortedIds = [...longIds].sort();
      assert.deepEqual(ids(await store.find('items', {})), sortedIds);
      assert.deepEqual(ids(await store.find('items', {}, { sort: [['_id', -1]] })), [...sortedIds].reverse());
      assert.deepEqual(ids(await store.find('items', { _id: { $gt: `${base}a` } })), sortedIds.filter((id) => id > `${base}a`));
      assert.deepEqual(ids(await store.find('items', { label: `${base}1` })), [`${base}a`, base].sort());
      assert.deepEqual(ids(await store.find('items', { tags: `${base}1` })), [`${base}a`, base].sort());
      assert.deepEqual(ids(await store.find('items', { label: { $gt: `${base}1` } })), [`${base}b`, `${base}c`].sort());
      assert.deepEqual(ids(await store.find('items', { label: { $lte: `${base}1` } })), [`${base}a`, base, 'short', `${base}a${'z'.repeat(500)}`].sort());
      for (const sort of [[['label', 1]], [['label', -1]], [['label', 1], ['_id', -1]]] as SortSpec[]) {
        assert.deepEqual(ids(await store.find('items', {}, { sort })), expectedOrder(docs, sort), JSON.stringify(sort));
        assert.deepEqual(ids(await store.find('items', { group: 'long' }, { sort, skip: 1, limit: 3 })), expectedOrder(docs, sort).slice(1, 4));
      }
      assert.equal(await store.count('items', { label: `${base}1` }), 2);

      await store.commit([put('users', { _id: base, email: `${base}@one` }), put('users', { _id: `${base}x`, email: `${base}@two` })]);
      await rejectsDuplicate(store.commit([put('users', { _id: `${base}y`, email: `${base}@one` })]), 'by_email');
      await store.commit([put('users', { _id: `${base}y`, email: `${base}@three` })]);
      assert.deepEqual(ids(await store.find('users', { email: `${base}@two` })), [`${base}x`]);
    });

    it('persists across reopen', async () => {
      await store.commit([put('items', { _id: 'p', group: 'g', rank: 5, tags: ['a'] }), put('users', { _id: 'u', email: 'e@x' })]);
      store = await handle.reopen();
      assert.deepEqual(await store.get('items', 'p'), { _id: 'p', group: 'g', rank: 5, tags: ['a'] });
      assert.deepEqual(ids(await store.find('items', { tags: 'a' })), ['p']);
      await rejectsDuplicate(store.commit([put('users', { _id: 'v', email: 'e@x' })]), 'by_email');
    });

    it('queries multikey indexes with $all, $in and ranges', async () => {
      await store.commit([
        put('items', { _id: 'm1', tags: ['a', 'b', 'c'] }),
        put('items', { _id: 'm2', tags: ['a', 'c'] }),
        put('items', { _id: 'm3', tags: ['b'] }),
        put('items', { _id: 'm4', tags: [1, 5] }),
        put('items', { _id: 'm5', tags: 'a' }),
      ]);
      assert.deepEqual(ids(await store.find('items', { tags: { $all: ['a', 'c'] } })), ['m1', 'm2']);
      assert.deepEqual(ids(await store.find('items', { tags: { $all: ['b', 'a'] } })), ['m1']);
      assert.deepEqual(ids(await store.find('items', { tags: { $all: ['a'] } }, { sort: [['_id', -1]] })), ['m5', 'm2', 'm1']);
      assert.deepEqual(ids(await store.find('items', { tags: { $in: ['b', 'c'] } })), ['m1', 'm2', 'm3']);
      // Each bound may be met by a different element of the array.
      assert.deepEqual(ids(await store.find('items', { tags: { $gt: 2, $lt: 4 } })), ['m4']);
      assert.deepEqual(ids(await store.find('items', { tags: { $gte: 'b' } })), ['m1', 'm2', 'm3']);
      assert.equal(await store.count('items', { tags: 'a' }), 3);
    });

    describe('scan', () => {
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

      it('hands out only the projected fields (and _id), filtering on the others', async () => {
        const docs = seedDocs(120);
        await store.commit(docs.map((doc) => put('items', doc)));
        for (const filter of [{}, { group: 'g1' }, { tags: 't2', rank: { $gte: 3 } }] as Filter[]) {
          const batches: Doc[][] = [];
          for await (const batch of store.scan('items', filter, { batchSize: 16, projection: ['rank', 'missing'] })) batches.push(batch);
          const expected = (await store.find('items', filter)).map((doc) => ({ _id: doc._id, rank: doc['rank'] }));
          assert.deepEqual(batches.flat().sort((a, b) => a._id.localeCompare(b._id)), expected.sort((a, b) => a._id.localeCompare(b._id)), JSON.stringify(filter));
        }
        const [only] = (await (async () => {
          const out: Doc[] = [];
          for await (const batch of store.scan('items', { _id: 'k00005' }, { projection: [] })) out.push(...batch);
          return out;
        })());
        assert.deepEqual(only, { _id: 'k00005' });
        for (const projection of [['a.b'], ['$x'], [''], 'rank']) {
          await assert.rejects((async () => {
            for await (const _ of store.scan('items', {}, { projection: projection as string[] })) break;
          })(), TypeError);
        }
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
  });
}
