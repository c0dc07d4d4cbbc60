/**
 * Fenced commits of the MongoDB adapter (cluster mode): a commit under an epoch older than the
 * shard's is refused with nothing applied, and a node claiming a shard applies what the
 * previous owner committed but left unapplied, before anything else.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { MongoClient } from 'mongodb';
import { FencedError } from '../../storage/errors.js';
import { FENCE_COLLECTION } from '../../storage/mongo-fences.js';
import { MongoStore } from '../../storage/mongo-store.js';
import type { CollectionSpec, Fence } from '../../storage/store.js';

const uri = process.env['MONGODB_URI'];
const COLLECTIONS: CollectionSpec[] = [{ name: 'things', indexes: [] }];

function fence(shard: number, epoch: number, valid = () => true): Fence {
  return { shard, epoch, valid };
}

describe('fenced commits on MongoDB', { skip: uri === undefined ? 'no MONGODB_URI' : false }, () => {
  const dbName = `fences_${randomBytes(5).toString('hex')}`;
  let a: MongoStore;
  let b: MongoStore;
  before(async () => {
    a = new MongoStore({ uri: uri!, dbName }, COLLECTIONS);
    b = new MongoStore({ uri: uri!, dbName }, COLLECTIONS);
    await a.open();
    await b.open();
  });
  after(async () => {
    await a.close();
    await b.close();
    const client = new MongoClient(uri!);
    await client.db(dbName).dropDatabase();
    await client.close();
  });

  test('a commit from an older epoch is refused and changes nothing; the newer owner commits', async () => {
    await a.claimShard(fence(3, 10));
    await a.commit([{ op: 'put', collection: 'things', doc: { _id: 'x', n: 1 } }], fence(3, 10));
    await b.claimShard(fence(3, 12));
    await assert.rejects(
      a.commit([{ op: 'put', collection: 'things', doc: { _id: 'x', n: 2 } }, { op: 'put', collection: 'things', doc: { _id: 'y', n: 2 } }], fence(3, 10)),
      (err: unknown) => err instanceof FencedError && err.by === 'storage',
    );
    assert.deepEqual(await b.get('things', 'x'), { _id: 'x', n: 1 });
    assert.equal(await b.get('things', 'y'), undefined);
    await b.commit([{ op: 'put', collection: 'things', doc: { _id: 'x', n: 3 } }], fence(3, 12));
    assert.deepEqual(await a.get('things', 'x'), { _id: 'x', n: 3 });
    await assert.rejects(a.claimShard(fence(3, 11)), FencedError, 'an older claim is refused too');
  });

  test('a node whose lease ran out does not even send its commit', async () => {
    await a.claimShard(fence(4, 20));
    await assert.rejects(
      a.commit([{ op: 'put', collection: 'things', doc: { _id: 'z', n: 1 } }], fence(4, 20, () => false)),
      (err: unknown) => err instanceof FencedError && err.by === 'lease',
    );
    assert.equal(await a.get('things', 'z'), undefined);
  });

  test('a claim first applies what the previous owner committed and left unapplied, in order', async () => {
    await a.claimShard(fence(5, 30));
    // What a node that died between its commit point and applying it leaves behind.
    const client = new MongoClient(uri!);
    try {
      await client
        .db(dbName)
        .collection<{ _id: number }>(FENCE_COLLECTION)
        .updateOne(
          { _id: 5 },
          {
            $set: {
              'open.e30s2': { epoch: 30, seq: 2, ops: [{ op: 'patch', collection: 'things', id: 'w', set: { n: 2 } }] },
              'open.e30s1': { epoch: 30, seq: 1, ops: [{ op: 'insert', collection: 'things', doc: { _id: 'w', n: 1 } }] },
            },
          },
        );
    } finally {
      await client.close();
    }
    assert.equal(await b.get('things', 'w'), undefined);
    await b.claimShard(fence(5, 31));
    assert.deepEqual(await b.get('things', 'w'), { _id: 'w', n: 2 });
    await b.commit([{ op: 'patch', collection: 'things', id: 'w', set: { n: 3 } }], fence(5, 31));
    await a.claimShard(fence(5, 32));
    assert.deepEqual(await a.get('things', 'w'), { _id: 'w', n: 3 }, 'applied entries are not applied again over newer writes');
  });
});
