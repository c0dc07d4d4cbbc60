/**
 * The LMDB adapter's key encoding and query planner against brute force: whatever access path
 * the planner picks, results must equal filtering and sorting every document in memory.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CollectionSpec, Doc, FieldCondition, Filter, Scalar, SortSpec, WriteOp } from '../../storage/store.js';
import { compareValues, docComparator, matchesFilter, normalizeSort } from '../../storage/query.js';
import { componentsKey, idKey, idKeyOrderPart, unitsPerValue } from '../../storage/lmdb-keys.js';
import { LmdbStore } from '../../storage/lmdb-store.js';

/** Small deterministic PRNG (mulberry32) so failures reproduce. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rand = random(20240607);
const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
const LONG = 'p'.repeat(700);
const STRINGS = ['', 'a', 'ab', 'b', 'B', 'é', '\u0000', 'a\u0000', 'a\u0001', '\uffff', '\ud83d\ude00', `${LONG}a`, `${LONG}b`, LONG];
const NUMBERS = [-1e20, -2.5, -1, 0, 0.5, 1, 2, 3, 1e9, 2 ** 53];
const scalar = (): Scalar => {
  const r = rand();
  if (r < 0.1) return null;
  if (r < 0.2) return rand() < 0.5;
  if (r < 0.55) return pick(NUMBERS);
  return pick(STRINGS);
};

describe('LMDB key encoding', () => {
  it('orders components like compareValues, with cut values never out of order', () => {
    const values: Scalar[] = [...STRINGS, ...NUMBERS, null, true, false];
    const units = unitsPerValue(2);
    for (const a of values) {
      for (const b of values) {
        const ka = componentsKey([a], units);
        const kb = componentsKey([b], units);
        const byKey = Math.sign(Buffer.compare(ka.key, kb.key));
        const byValue = Math.sign(compareValues(a, b));
        if (ka.cut || kb.cut) {
          if (byKey !== 0) assert.equal(byKey, byValue, `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
        } else assert.equal(byKey, byValue, `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
      }
    }
  });

  it('keeps document keys unique and in id order up to their order part', () => {
    const ids = [...STRINGS, 'x'.repeat(300), `${'x'.repeat(300)}a`, `${'x'.repeat(300)}b`, 'x'.repeat(200)];
    for (const a of ids) {
      for (const b of ids) {
        const ka = idKey(a);
        const kb = idKey(b);
        assert.equal(ka.equals(kb), a === b);
        const byOrderPart = Math.sign(Buffer.compare(idKeyOrderPart(ka), idKeyOrderPart(kb)));
        if (byOrderPart !== 0) assert.equal(byOrderPart, Math.sign(compareValues(a, b)), `${a.length} vs ${b.length}`);
      }
    }
  });
});

describe('LMDB query planner', () => {
  const collections: readonly CollectionSpec[] = [
    {
      name: 'docs',
      indexes: [
        { name: 'ab', fields: ['a', 'b'] },
        { name: 'c', fields: ['c'] },
        { name: 'tags', fields: ['tags'] },
        { name: 'u', fields: ['u'], unique: true },
      ],
    },
  ];
  const model = new Map<string, Doc>();
  let dir: string;
  let store: LmdbStore;
  let counter = 0;

  const randomDoc = (id: string): Doc => {
    const doc: Doc = { _id: id, u: counter++ };
    if (rand() < 0.9) doc['a'] = pick(['x', 'y', 'z', `${LONG}q`, `${LONG}r`, 1, 2]);
    if (rand() < 0.9) doc['b'] = scalar();
    if (rand() < 0.9) doc['c'] = scalar();
    if (rand() < 0.7) doc['tags'] = rand() < 0.8 ? Array.from({ length: Math.floor(rand() * 4) }, scalar) : scalar();
    return doc;
  };
  const randomId = () => (rand() < 0.02 ? '' : rand() < 0.1 ? `${LONG}${Math.floor(rand() * 400)}` : `d${Math.floor(rand() * 400)}`);

  /** One batch of random puts, patches and deletes, applied to the store and the model alike. */
  async function mutate(count: number): Promise<void> {
    const ops: WriteOp[] = [];
    for (let i = 0; i < count; i++) {
      const id = rand() < 0.7 || model.size === 0 ? randomId() : pick([...model.keys()]);
      const r = rand();
      if (r < 0.6) {
        const doc = randomDoc(id);
        ops.push({ op: 'put', collection: 'docs', doc });
        model.set(id, doc);
      } else if (r < 0.85) {
        const set: Record<string, unknown> = {};
        if (rand() < 0.7) set[pick(['a', 'b', 'c'])] = scalar();
        if (rand() < 0.3) set['tags'] = [scalar(), scalar()];
        const unset = rand() < 0.3 ? [pick(['a', 'b', 'c', 'tags'])] : [];
        const unique = unset.filter((field) => !(field in set));
        ops.push({ op: 'patch', collection: 'docs', id, set, unset: unique });
        const current = model.get(id);
        if (current) {
          const next: Doc = { ...current, ...set };
          for (const field of unique) delete next[field];
          model.set(id, next);
        }
      } else {
        ops.push({ op: 'delete', collection: 'docs', id });
        model.delete(id);
      }
    }
    await store.commit(ops);
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'planner-'));
    store = new LmdbStore({ dataDir: dir }, collections);
    await store.open();
    await mutate(400);
  });

  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const condition = (): FieldCondition => {
    const r = rand();
    if (r < 0.3) return scalar();
    if (r < 0.4) return { $in: [scalar(), scalar(), scalar()] };
    if (r < 0.45) return { $nin: [scalar(), scalar()] };
    if (r < 0.5) return { $ne: scalar() };
    if (r < 0.55) return { $exists: rand() < 0.5 };
    if (r < 0.6) return { $all: [scalar(), scalar()] };
    const ops = ['$gt', '$gte', '$lt', '$lte'] as const;
    const result: Record<string, Scalar> = { [pick(ops)]: scalar() };
    if (rand() < 0.5) result[pick(ops)] = scalar();
    return result;
  };

  async function verify(rounds: number): Promise<void> {
    const docs = [...model.values()];
    const fields = ['a', 'b', 'c', 'tags', '_id', 'u'];
    for (let round = 0; round < rounds; round++) {
      const filter: Record<string, FieldCondition> = {};
      const fieldCount = Math.floor(rand() * 3);
      for (let i = 0; i < fieldCount; i++) filter[pick(fields)] = condition();
      if (rand() < 0.3) filter['a'] = pick(['x', 'y', `${LONG}q`, 1]);
      const sort: Array<[string, 1 | -1]> = [];
      const sortCount = Math.floor(rand() * 3);
      for (let i = 0; i < sortCount; i++) sort.push([pick(['a', 'b', 'c', '_id', 'u']), rand() < 0.5 ? 1 : -1]);
      const skip = rand() < 0.3 ? Math.floor(rand() * 10) : 0;
      const limit = rand() < 0.5 ? 1 + Math.floor(rand() * 10) : undefined;

      const matching = docs.filter((doc) => matchesFilter(doc, filter as Filter));
      const expected = matching
        .sort(docComparator(normalizeSort(sort as SortSpec)))
        .slice(skip, limit === undefined ? undefined : skip + limit)
        .map((doc) => doc._id);
      const options = { sort, skip, ...(limit === undefined ? {} : { limit }) };
      const found = (await store.find('docs', filter as Filter, options)).map((doc) => doc._id);
      const context = JSON.stringify({ filter, options });
      assert.deepEqual(found, expected, context);
      assert.equal(await store.count('docs', filter as Filter), matching.length, context);
    }
  }

  it('matches brute force for random filters, sorts, skips and limits', async () => {
    await verify(300);
  });

  it('keeps indexes exact through puts, patches and deletes', async () => {
    for (let batch = 0; batch < 5; batch++) {
      await mutate(100);
      await verify(60);
    }
    const reopened = new LmdbStore({ dataDir: dir }, collections);
    await store.close();
    store = reopened;
    await store.open();
    await verify(60);
  });
});
