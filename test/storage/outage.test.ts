/**
 * The MongoDB adapter when the database goes away and comes back, and its crash journal.
 * Runs against a private FerretDB that the tests stop and restart.
 */
import assert from 'node:assert/strict';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { describe, it, type TestContext } from 'node:test';
import { MongoClient } from 'mongodb';
import type { CollectionSpec, Doc, Store, WriteOp } from '../../storage/store.js';
import { StorageUnavailableError } from '../../storage/errors.js';
import { createStore } from '../../storage/create-store.js';
import { JOURNAL_COLLECTION, type JournalEntry } from '../../storage/mongo-store.js';
import { ferretdbAvailable, startFerretDb, type FerretDbServer } from '../fixtures/ferretdb.js';

const COLLECTIONS: readonly CollectionSpec[] = [
  { name: 'items', indexes: [{ name: 'by_group', fields: ['group'] }] },
  { name: 'users', indexes: [{ name: 'by_email', fields: ['email'], unique: true }] },
];
const TIMEOUT_MS = 1500;

const put = (collection: string, doc: Doc): WriteOp => ({ op: 'put', collection, doc });

/** Starts a private FerretDB, or skips (outside CI) when the binary is missing. */
async function ferretdb(t: TestContext): Promise<FerretDbServer | undefined> {
  if (!ferretdbAvailable()) {
    if (process.env['CI'] === 'true') assert.fail('ferretdb binary not found (required under CI)');
    t.skip('ferretdb binary not found');
    return undefined;
  }
  return startFerretDb();
}

function mongoStore(server: FerretDbServer, db: string): Store {
  return createStore({ dataDir: '', mongodbUri: server.uri, mongodbDb: db, mongoTimeoutMs: TIMEOUT_MS }, COLLECTIONS);
}

/** Asserts the call rejects with StorageUnavailableError, and soon. */
async function unavailable(what: string, call: Promise<unknown>): Promise<void> {
  const started = Date.now();
  await assert.rejects(call, StorageUnavailableError, what);
  const took = Date.now() - started;
  assert.ok(took < 4 * TIMEOUT_MS, `${what} took ${took} ms to fail`);
}

/**
 * A TCP proxy in front of the database that can cut every connection right after the server
 * has acknowledged the journal insert of a commit group, and refuse connections for a while:
 * the crash window between the commit point and the apply, without a crash.
 */
class CuttingProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #refusing = false;
  #armed: { outageMs: number; cut: () => void } | undefined;
  port = 0;

  constructor(upstreamPort: number) {
    this.#server = createServer((client) => {
      if (this.#refusing) {
        client.destroy();
        return;
      }
      const upstream = connect(upstreamPort, '127.0.0.1');
      let cutAfterReply = false;
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.on('data', (chunk: Buffer) => {
        if (this.#armed && chunk.includes('insert') && chunk.includes('_journal')) cutAfterReply = true;
        upstream.write(chunk);
      });
      upstream.on('data', (chunk: Buffer) => {
        const armed = cutAfterReply ? this.#armed : undefined;
        client.write(chunk, () => {
          if (!armed) return;
          this.#armed = undefined;
          this.#outage(armed.outageMs);
          armed.cut();
        });
      });
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.port = (this.#server.address() as { port: number }).port;
  }

  /** Resolves when the next journal insert has been acknowledged and the connections cut. */
  cutAfterNextJournalInsert(outageMs: number): Promise<void> {
    return new Promise((cut) => (this.#armed = { outageMs, cut }));
  }

  #outage(ms: number): void {
    this.#refusing = true;
    for (const socket of this.#sockets) socket.destroy();
    setTimeout(() => (this.#refusing = false), ms);
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}

describe('MongoDB adapter outage', () => {
  it('fails fast while the database is down and recovers by itself', async (t) => {
    const server = await ferretdb(t);
    if (!server) return;
    const store = mongoStore(server, 'outage');
    try {
      await store.open();
      await store.commit([put('items', { _id: 'a', group: 'g' }), put('users', { _id: 'u', email: 'u@x' })]);

      await server.stop();
      await Promise.all([
        unavailable('ping', store.ping()),
        unavailable('get', store.get('items', 'a')),
        unavailable('find', store.find('items', { group: 'g' })),
        unavailable('batch commit', store.commit([put('items', { _id: 'b', group: 'g' }), put('items', { _id: 'c', group: 'g' })])),
        unavailable('single commit', store.commit([put('items', { _id: 'd', group: 'g' })])),
      ]);

      await server.start();
      await store.ping();
      assert.deepEqual(await store.get('items', 'a'), { _id: 'a', group: 'g' });
      assert.deepEqual((await store.find('items', { group: 'g' })).map((doc) => doc._id), ['a']);
      await store.commit([put('items', { _id: 'e', group: 'g' }), put('users', { _id: 'v', email: 'v@x' })]);
      assert.deepEqual((await store.find('items', { group: 'g' })).map((doc) => doc._id), ['a', 'e']);
      assert.equal(await store.count('users', {}), 2);
    } finally {
      await store.close();
      await server.destroy();
    }
  });

  it('finishes a journaled group that failed to apply, holding reads and commits meanwhile', async (t) => {
    const server = await ferretdb(t);
    if (!server) return;
    const proxy = new CuttingProxy(Number(new URL(server.uri).port));
    await proxy.listen();
    const store = createStore(
      { dataDir: '', mongodbUri: `mongodb://127.0.0.1:${proxy.port}/`, mongodbDb: 'recovery', mongoTimeoutMs: TIMEOUT_MS },
      COLLECTIONS,
    );
    try {
      await store.open();
      await store.commit([put('items', { _id: 'before', group: 'g' })]);

      const cut = proxy.cutAfterNextJournalInsert(TIMEOUT_MS + 500);
      const group = store.commit([put('items', { _id: 'x1', group: 'g' }), put('items', { _id: 'x2', group: 'g' })]);
      await cut;
      // The group is durable but not applied: nobody may see half of it, and waiting is bounded.
      await Promise.all([
        unavailable('get during recovery', store.get('items', 'x1')),
        unavailable('commit during recovery', store.commit([put('items', { _id: 'late', group: 'g' })])),
      ]);
      await group;
      assert.deepEqual((await store.find('items', { group: 'g' })).map((doc) => doc._id), ['before', 'x1', 'x2']);
      const client = new MongoClient(server.uri, { serverSelectionTimeoutMS: TIMEOUT_MS });
      try {
        assert.equal(await client.db('recovery').collection(JOURNAL_COLLECTION).countDocuments({}), 0);
      } finally {
        await client.close();
      }
      await store.commit([put('items', { _id: 'after', group: 'g' })]);
      assert.equal(await store.count('items', { group: 'g' }), 4);
    } finally {
      await store.close();
      await proxy.close();
      await server.destroy();
    }
  });

  it('replays a journal left by a crash exactly once, in order', async (t) => {
    const server = await ferretdb(t);
    if (!server) return;
    const client = new MongoClient(server.uri, { serverSelectionTimeoutMS: TIMEOUT_MS });
    let store = mongoStore(server, 'journal');
    try {
      await store.open();
      await store.commit([put('items', { _id: 'x', group: 'old', v: 0 }), put('items', { _id: 'gone', group: 'old' })]);
      await store.close();

      // What a crash between the journal insert (commit point) and the apply leaves behind.
      const journal = client.db('journal').collection<JournalEntry>(JOURNAL_COLLECTION);
      await journal.insertMany([
        {
          _id: 1,
          ops: [
            { op: 'put', collection: 'items', doc: { _id: 'x', group: 'new', v: 1 } },
            { op: 'patch', collection: 'items', id: 'x', set: { v: 2, w: true } },
            { op: 'insert', collection: 'items', doc: { _id: 'y', group: 'new', v: 1 } },
            { op: 'delete', collection: 'items', id: 'gone' },
            { op: 'put', collection: 'users', doc: { _id: 'u', email: 'u@x' } },
          ],
          createdAt: new Date(),
        },
        {
          _id: 2,
          ops: [
            { op: 'patch', collection: 'items', id: 'x', set: { v: 3 }, unset: ['w'] },
            { op: 'patch', collection: 'items', id: 'y', set: { v: 2 } },
          ],
          createdAt: new Date(),
        },
      ]);

      store = mongoStore(server, 'journal');
      await store.open();
      assert.deepEqual(await store.get('items', 'x'), { _id: 'x', group: 'new', v: 3 });
      assert.deepEqual(await store.get('items', 'y'), { _id: 'y', group: 'new', v: 2 });
      assert.equal(await store.get('items', 'gone'), undefined);
      assert.deepEqual(await store.get('users', 'u'), { _id: 'u', email: 'u@x' });
      assert.equal(await journal.countDocuments({}), 0);

      // A later change must not be undone by a second replay on the next open.
      await store.commit([put('items', { _id: 'x', group: 'later', v: 9 })]);
      await store.close();
      store = mongoStore(server, 'journal');
      await store.open();
      assert.deepEqual(await store.get('items', 'x'), { _id: 'x', group: 'later', v: 9 });
    } finally {
      await store.close();
      await client.close();
      await server.destroy();
    }
  });
});
