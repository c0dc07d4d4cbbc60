/**
 * The LMDB adapter (lmdb-js): the default store.
 *
 * One environment holds a database per collection (document key → msgpack document) and one per
 * index (plain: [values..., document key] → empty; unique: [values...] → document key), plus a
 * `$meta` database recording which indexes are built and which ever held arrays.
 *
 * A commit is planned first, on the calling thread: every document's previous version (from
 * this commit, from commits still in flight, or from disk) gives the index keys to change, and
 * unique keys are checked, so a refused commit (DuplicateKeyError) writes nothing and nothing
 * ever has to be rolled back. Each commit's writes then go to lmdb-js as one batch: lmdb-js
 * queues batches in order and its write thread starts the next one as soon as the last is
 * synced (grouping them here, one in flight at a time, measured slower: the write thread then
 * waits for this thread between batches). `overlappingSync` is off so that a batch resolves
 * only once it is synced to disk (with it on, lmdb-js resolves at commit and flushes later).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import { Packr } from 'msgpackr';
import { DuplicateKeyError, StorageUnavailableError } from './errors.js';
import type { CollectionSpec, Doc, Filter, FindOptions, IndexSpec, ScanOptions, Store, WriteOp, WriterClaim, WriterLease } from './store.js';
import { lockDataDir } from './lmdb-lock.js';
import { checkProjection, validateFilter, validateFindOptions } from './query.js';
import { applyPatch, ID_INDEX, indexTuples, validateOps } from './write-ops.js';
import { idKey, plainIndexKey, uniqueIndexKey, unitsPerValue } from './lmdb-keys.js';
import { countDocs, findDocs, type LmdbCollection, type LmdbIndex } from './lmdb-query.js';
import { pickFields, planScan, readBatch, startCursor } from './lmdb-scan.js';

/** Options of the LMDB adapter. */
export interface LmdbStoreOptions {
  /** Directory that holds the environment (created if missing). */
  readonly dataDir: string;
  /**
   * Open for reading only (a worker thread beside the server's own store): indexes are neither
   * built nor dropped, and commits are refused. The environment is shared with the other
   * threads of the process that opened it.
   */
  readonly readOnly?: boolean;
}

interface IndexState extends LmdbIndex {
  /** Whether the multikey flag is known to be on disk. */
  multikeyDurable: boolean;
}

interface CollectionState extends LmdbCollection {
  readonly indexes: readonly IndexState[];
}

const EMPTY = Buffer.alloc(0);

/** The async writes of an lmdb-js database, whatever its key and value types. */
interface Writable {
  put(key: unknown, value: unknown): Promise<boolean>;
  remove(key: unknown): Promise<boolean>;
}

/** One low-level write (`value` undefined: remove) of a planned commit. */
type LowWrite = readonly [db: Writable, key: unknown, value: unknown];

/** A commit turned into writes, with what it leaves for the commits planned after it. */
interface Plan {
  readonly writes: LowWrite[];
  /** Document slot → the document after this commit (null: deleted). */
  readonly docs: Map<string, Doc | null>;
  /** Unique index slot → the key of the document holding it after this commit (null: free). */
  readonly unique: Map<string, Buffer | null>;
  readonly touched: IndexState[];
}

function docSlot(collection: CollectionState, docKey: Buffer): string {
  return `${collection.name}\u0000${docKey.toString('latin1')}`;
}

function uniqueSlot(collection: CollectionState, index: IndexState, keyText: string): string {
  return `${collection.name}\u0000${index.spec.name}\u0000${keyText}`;
}

/** JSON values in, fresh JSON values out; no shared structures, so aborted writes leave no state behind. */
const packr = new Packr({ useRecords: false, mapsAsObjects: true, moreTypes: false });
const decode = (buffer: Buffer): Doc => packr.unpack(buffer) as Doc;

function indexMetaKey(collection: string, index: string): string[] {
  return ['index', collection, index];
}

function multikeyMetaKey(collection: string, index: string): string[] {
  return ['multikey', collection, index];
}

/** Map of latin1 key string → key, so duplicate entries (same element twice) collapse. */
function indexKeys(index: IndexState, doc: Doc, docKey: Buffer): Map<string, Buffer> {
  const keys = new Map<string, Buffer>();
  for (const tuple of indexTuples(doc, index.spec.fields)) {
    const key = index.spec.unique ? uniqueIndexKey(tuple, index.units) : plainIndexKey(tuple, docKey, index.units);
    keys.set(key.toString('latin1'), key);
  }
  return keys;
}

function holdsArray(doc: Doc, spec: IndexSpec): boolean {
  for (const field of spec.fields) if (Array.isArray(doc[field])) return true;
  return false;
}

/** Store backed by an LMDB environment under `dataDir/lmdb`. */
export class LmdbStore implements Store {
  readonly kind = 'lmdb' as const;
  readonly #dataDir: string;
  readonly #path: string;
  readonly #readOnly: boolean;
  readonly #specs: ReadonlyMap<string, CollectionSpec>;
  #env: RootDatabase | undefined;
  #meta: Database<unknown, string[]> | undefined;
  #collections = new Map<string, CollectionState>();
  readonly #inFlight = new Set<Promise<unknown>>();
  /** Documents written by commits queued but not yet done, by slot: what later plans build on. */
  readonly #pendingDocs = new Map<string, { doc: Doc | null; plan: Plan }>();
  /** Unique index keys set (or cleared, null) by commits queued but not yet done. */
  readonly #pendingUnique = new Map<string, { holder: Buffer | null; plan: Plan }>();
  #closing = false;

  /** @param collections every collection the store may touch, with its indexes */
  constructor(options: LmdbStoreOptions, collections: readonly CollectionSpec[]) {
    this.#dataDir = options.dataDir;
    this.#path = join(options.dataDir, 'lmdb');
    this.#readOnly = options.readOnly === true;
    this.#specs = new Map(collections.map((spec) => [spec.name, spec]));
  }

  async open(): Promise<void> {
    if (this.#env) return;
    let indexCount = 0;
    for (const spec of this.#specs.values()) indexCount += spec.indexes.length;
    try {
      mkdirSync(this.#path, { recursive: true });
      const env = open({
        path: this.#path,
        // A reader may open the environment first (then its size holds for everyone) and
        // declares only the collections it reads.
        maxDbs: this.#readOnly ? 256 : 1 + this.#specs.size + indexCount + 16,
        overlappingSync: false,
        compression: false,
      });
      this.#env = env;
      this.#meta = env.openDB<unknown, string[]>({ name: '$meta', encoding: 'json' });
      this.#closing = false;
      for (const spec of this.#specs.values()) this.#collections.set(spec.name, this.#openCollection(spec));
      if (!this.#readOnly) this.#dropStaleIndexes();
    } catch (error) {
      await this.#env?.close().catch(() => undefined);
      this.#env = undefined;
      this.#collections.clear();
      if (error instanceof DuplicateKeyError) throw error;
      throw new StorageUnavailableError(`cannot open LMDB at ${this.#path}`, { cause: error });
    }
  }

  #openCollection(spec: CollectionSpec): CollectionState {
    const env = this.#env!;
    const binary = { keyEncoding: 'binary', encoding: 'binary' } as const;
    const db = env.openDB<Buffer, Buffer>({ name: `c:${spec.name}`, ...binary });
    // A reader uses only the indexes the writer has built to the declared definition.
    const usable = this.#readOnly ? spec.indexes.filter((indexSpec) => this.#isBuilt(spec.name, indexSpec)) : spec.indexes;
    const indexes = usable.map((indexSpec): IndexState => {
      const multikey = this.#meta!.get(multikeyMetaKey(spec.name, indexSpec.name)) === true;
      return {
        spec: indexSpec,
        db: env.openDB<Buffer, Buffer>({ name: `i:${spec.name}:${indexSpec.name}`, ...binary }),
        units: unitsPerValue(indexSpec.fields.length),
        multikey,
        multikeyDurable: multikey,
      };
    });
    const collection: CollectionState = { name: spec.name, db, indexes, decode };
    if (!this.#readOnly) for (const index of indexes) this.#ensureBuilt(collection, index);
    return collection;
  }

  /** Whether the index is recorded as built to its declared definition. */
  #isBuilt(collection: string, spec: IndexSpec): boolean {
    const definition = { fields: spec.fields, unique: spec.unique === true };
    return JSON.stringify(this.#meta!.get(indexMetaKey(collection, spec.name))) === JSON.stringify(definition);
  }

  /** (Re)builds an index whose recorded definition differs from the declared one. */
  #ensureBuilt(collection: CollectionState, index: IndexState): void {
    const metaKey = indexMetaKey(collection.name, index.spec.name);
    const definition = { fields: index.spec.fields, unique: index.spec.unique === true };
    if (this.#isBuilt(collection.name, index.spec)) return;
    this.#env!.transactionSync(() => {
      index.db.clearSync();
      let multikey = false;
      for (const { key, value } of collection.db.getRange()) {
        const doc = decode(value);
        multikey ||= holdsArray(doc, index.spec);
        for (const entry of indexKeys(index, doc, key).values()) {
          if (index.spec.unique && index.db.doesExist(entry)) {
            throw new DuplicateKeyError(collection.name, index.spec.name);
          }
          index.db.putSync(entry, index.spec.unique ? key : EMPTY);
        }
      }
      this.#meta!.putSync(multikeyMetaKey(collection.name, index.spec.name), multikey);
      this.#meta!.putSync(metaKey, definition);
      index.multikey = index.multikeyDurable = multikey;
    });
  }

  /** Forgets indexes no longer declared, so declaring one again later rebuilds it. */
  #dropStaleIndexes(): void {
    const stale: string[][] = [];
    for (const { key } of this.#meta!.getRange()) {
      if (key[0] !== 'index') continue;
      const spec = this.#specs.get(key[1]!);
      if (!spec?.indexes.some((index) => index.name === key[2])) stale.push(key);
    }
    if (stale.length === 0) return;
    this.#env!.transactionSync(() => {
      for (const [, collection, index] of stale) {
        this.#meta!.removeSync(indexMetaKey(collection!, index!));
        this.#meta!.removeSync(multikeyMetaKey(collection!, index!));
        this.#env!.openDB({ name: `i:${collection}:${index}`, keyEncoding: 'binary', encoding: 'binary' }).dropSync();
      }
    });
  }

  /** An exclusive lock on the data directory, for the life of the process (see `lmdb-lock.ts`). */
  claimWriter(claim: WriterClaim): Promise<WriterLease> {
    if (claim.mode !== 'single') return Promise.reject(new Error('LMDB cannot be shared by a cluster: cluster mode needs MONGODB_URI'));
    return lockDataDir(this.#dataDir);
  }

  async close(): Promise<void> {
    const env = this.#env;
    if (!env) return;
    this.#closing = true;
    await Promise.allSettled([...this.#inFlight]);
    this.#env = undefined;
    this.#meta = undefined;
    this.#collections.clear();
    await env.close();
  }

  async ping(): Promise<void> {
    if (!this.#env || this.#closing) throw new StorageUnavailableError('LMDB store is not open');
  }

  async get<T extends Doc = Doc>(collection: string, id: string): Promise<T | undefined> {
    const state = this.#collection(collection);
    const buffer = state.db.getBinaryFast(idKey(id));
    return buffer === undefined ? undefined : (decode(buffer) as T);
  }

  async find<T extends Doc = Doc>(collection: string, filter: Filter, options: FindOptions = {}): Promise<T[]> {
    const state = this.#collection(collection);
    validateFilter(filter);
    validateFindOptions(options);
    return findDocs(state, filter, options) as T[];
  }

  async count(collection: string, filter: Filter): Promise<number> {
    const state = this.#collection(collection);
    validateFilter(filter);
    return countDocs(state, filter);
  }

  async *scan<T extends Doc = Doc>(collection: string, filter: Filter, options: ScanOptions = {}): AsyncIterable<T[]> {
    const state = this.#collection(collection);
    validateFilter(filter);
    const batchSize = options.batchSize ?? 1000;
    if (!(Number.isSafeInteger(batchSize) && batchSize > 0)) throw new TypeError('batchSize must be a positive integer');
    if (this.#readOnly) {
      // Another thread's commits are seen from a fresh read transaction: lmdb-js renews the
      // thread's own only on a timer, which a thread that blocks between tasks never runs.
      this.#env!.resetReadTxn();
      // The writer may have indexed its first array since this reader opened.
      for (const index of state.indexes) index.multikey = this.#meta!.get(multikeyMetaKey(collection, index.spec.name)) === true;
    }
    const pick = pickFields(checkProjection(options.projection));
    const plan = planScan(state, filter);
    if (!plan) return;
    const cursor = startCursor();
    while (!cursor.done) {
      const batch = readBatch(this.#collection(collection), plan, filter, cursor, batchSize, pick);
      if (batch.length > 0) yield batch as T[];
      // A new event-loop turn: other work runs, and the next batch reads the newest commits.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  async commit(ops: readonly WriteOp[]): Promise<void> {
    if (this.#readOnly) throw new TypeError('this LMDB store was opened read-only');
    validateOps(ops, this.#specs);
    const env = this.#env;
    if (!env || this.#closing) throw new StorageUnavailableError('LMDB store is not open');
    if (ops.length === 0) return;
    // Planned in full before anything is queued: a refusal leaves nothing behind.
    const plan = this.#plan(ops);
    const done = env.batch(() => {
      for (const [db, key, value] of plan.writes) {
        if (value === undefined) void db.remove(key);
        else void db.put(key, value);
      }
    });
    this.#claim(plan);
    this.#inFlight.add(done);
    try {
      await done;
    } catch (error) {
      throw new StorageUnavailableError('LMDB commit failed', { cause: error });
    } finally {
      this.#inFlight.delete(done);
      this.#release(plan);
    }
    for (const index of plan.touched) index.multikeyDurable = true;
  }

  #collection(name: string): CollectionState {
    if (!this.#env || this.#closing) throw new StorageUnavailableError('LMDB store is not open');
    const state = this.#collections.get(name);
    if (!state) throw new TypeError(`unknown collection ${name}`);
    return state;
  }

  /**
   * Turns a commit's ops into the low-level writes to make, reading each document's previous
   * version from (in order of precedence) this commit's earlier ops, commits still in flight,
   * and storage; checks unique indexes the same way. Throws DuplicateKeyError before anything
   * is written.
   */
  #plan(ops: readonly WriteOp[]): Plan {
    const plan: Plan = { writes: [], docs: new Map(), unique: new Map(), touched: [] };
    for (const op of ops) {
      const collection = this.#collections.get(op.collection)!;
      const indexed = collection.indexes.length > 0;
      switch (op.op) {
        case 'put':
        case 'insert': {
          const docKey = idKey(op.doc._id);
          const previous = op.op === 'insert' || indexed ? this.#current(plan, collection, docKey) : undefined;
          if (previous !== undefined && op.op === 'insert') throw new DuplicateKeyError(collection.name, ID_INDEX);
          this.#planWrite(plan, collection, docKey, previous, op.doc);
          break;
        }
        case 'patch': {
          const docKey = idKey(op.id);
          const previous = this.#current(plan, collection, docKey);
          if (previous === undefined) break;
          this.#planWrite(plan, collection, docKey, previous, applyPatch(previous, op.set, op.unset));
          break;
        }
        case 'delete': {
          const docKey = idKey(op.id);
          if (indexed) {
            const previous = this.#current(plan, collection, docKey);
            if (previous === undefined) break;
            for (const index of collection.indexes) {
              for (const [text, key] of indexKeys(index, previous, docKey)) {
                if (index.spec.unique) plan.unique.set(uniqueSlot(collection, index, text), null);
                plan.writes.push([index.db as unknown as Writable, key, undefined]);
              }
            }
          }
          plan.writes.push([collection.db as unknown as Writable, docKey, undefined]);
          plan.docs.set(docSlot(collection, docKey), null);
          break;
        }
      }
    }
    return plan;
  }

  /** A document as it will be once everything planned or in flight before it is written. */
  #current(plan: Plan, collection: CollectionState, docKey: Buffer): Doc | undefined {
    const slot = docSlot(collection, docKey);
    const planned = plan.docs.get(slot);
    if (planned !== undefined) return planned ?? undefined;
    const pending = this.#pendingDocs.get(slot);
    if (pending !== undefined) return pending.doc ?? undefined;
    const stored = collection.db.getBinaryFast(docKey);
    return stored === undefined ? undefined : decode(stored);
  }

  /** Who holds a unique index key, looking at this commit, commits in flight, then storage. */
  #holder(plan: Plan, collection: CollectionState, index: IndexState, text: string, key: Buffer): Buffer | undefined {
    const slot = uniqueSlot(collection, index, text);
    const planned = plan.unique.get(slot);
    if (planned !== undefined) return planned ?? undefined;
    const pending = this.#pendingUnique.get(slot);
    if (pending !== undefined) return pending.holder ?? undefined;
    return index.db.getBinaryFast(key) ?? undefined;
  }

  #planWrite(plan: Plan, collection: CollectionState, docKey: Buffer, previous: Doc | undefined, next: Doc): void {
    for (const index of collection.indexes) {
      const nextKeys = indexKeys(index, next, docKey);
      const previousKeys = previous ? indexKeys(index, previous, docKey) : undefined;
      if (previousKeys) {
        for (const [text, key] of previousKeys) {
          if (nextKeys.has(text)) continue;
          if (index.spec.unique) plan.unique.set(uniqueSlot(collection, index, text), null);
          plan.writes.push([index.db as unknown as Writable, key, undefined]);
        }
      }
      for (const [text, key] of nextKeys) {
        if (previousKeys?.has(text)) continue;
        if (index.spec.unique) {
          const holder = this.#holder(plan, collection, index, text, key);
          if (holder !== undefined && !holder.equals(docKey)) throw new DuplicateKeyError(collection.name, index.spec.name);
          plan.unique.set(uniqueSlot(collection, index, text), docKey);
        }
        plan.writes.push([index.db as unknown as Writable, key, index.spec.unique ? docKey : EMPTY]);
      }
      if (!index.multikeyDurable && holdsArray(next, index.spec)) {
        index.multikey = true;
        plan.writes.push([this.#meta! as unknown as Writable, multikeyMetaKey(collection.name, index.spec.name), true]);
        plan.touched.push(index);
      }
    }
    plan.writes.push([collection.db as unknown as Writable, docKey, packr.pack(next)]);
    plan.docs.set(docSlot(collection, docKey), next);
  }

  /** Marks a queued commit's documents and unique keys as pending, for the commits planned after it. */
  #claim(plan: Plan): void {
    for (const [slot, doc] of plan.docs) this.#pendingDocs.set(slot, { doc, plan });
    for (const [slot, holder] of plan.unique) this.#pendingUnique.set(slot, { holder, plan });
  }

  /** Once a commit is done (durable or failed), storage alone says what it left. */
  #release(plan: Plan): void {
    for (const slot of plan.docs.keys()) if (this.#pendingDocs.get(slot)?.plan === plan) this.#pendingDocs.delete(slot);
    for (const slot of plan.unique.keys()) if (this.#pendingUnique.get(slot)?.plan === plan) this.#pendingUnique.delete(slot);
  }
}
