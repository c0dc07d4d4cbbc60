/**
 * The LMDB adapter (lmdb-js): the default store.
 *
 * One environment holds a database per collection (document key → msgpack document) and one per
 * index (plain: [values..., document key] → empty; unique: [values...] → document key), plus a
 * `$meta` database recording which indexes are built and which ever held arrays.
 *
 * A commit runs as an lmdb-js child transaction: lmdb-js batches every transaction queued in the
 * same event turn into one LMDB write transaction and one disk commit, and a child transaction is
 * what lets one caller's callback throw (DuplicateKeyError) and roll back only its own writes. A
 * plain `transaction()` callback that throws keeps the writes it made before throwing, in the
 * shared batch. `overlappingSync` is turned off so that the promise resolves only after the
 * commit has been synced to disk (with it on, lmdb-js resolves at commit and flushes later).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import { Packr } from 'msgpackr';
import { DuplicateKeyError, StorageUnavailableError } from './errors.js';
import type { CollectionSpec, Doc, Filter, FindOptions, IndexSpec, Store, WriteOp } from './store.js';
import { validateFilter, validateFindOptions } from './query.js';
import { applyPatch, ID_INDEX, indexTuples, validateOps } from './write-ops.js';
import { idKey, plainIndexKey, uniqueIndexKey, unitsPerValue } from './lmdb-keys.js';
import { countDocs, findDocs, type LmdbCollection, type LmdbIndex } from './lmdb-query.js';

/** Options of the LMDB adapter. */
export interface LmdbStoreOptions {
  /** Directory that holds the environment (created if missing). */
  readonly dataDir: string;
}

interface IndexState extends LmdbIndex {
  /** Whether the multikey flag is known to be on disk. */
  multikeyDurable: boolean;
}

interface CollectionState extends LmdbCollection {
  readonly indexes: readonly IndexState[];
}

const EMPTY = Buffer.alloc(0);

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
  readonly #path: string;
  readonly #specs: ReadonlyMap<string, CollectionSpec>;
  #env: RootDatabase | undefined;
  #meta: Database<unknown, string[]> | undefined;
  #collections = new Map<string, CollectionState>();
  readonly #inFlight = new Set<Promise<unknown>>();
  #closing = false;

  /** @param collections every collection the store may touch, with its indexes */
  constructor(options: LmdbStoreOptions, collections: readonly CollectionSpec[]) {
    this.#path = join(options.dataDir, 'lmdb');
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
        maxDbs: 1 + this.#specs.size + indexCount + 16,
        overlappingSync: false,
        compression: false,
      });
      this.#env = env;
      this.#meta = env.openDB<unknown, string[]>({ name: '$meta', encoding: 'json' });
      this.#closing = false;
      for (const spec of this.#specs.values()) this.#collections.set(spec.name, this.#openCollection(spec));
      this.#dropStaleIndexes();
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
    const indexes = spec.indexes.map((indexSpec): IndexState => {
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
    for (const index of indexes) this.#ensureBuilt(collection, index);
    return collection;
  }

  /** (Re)builds an index whose recorded definition differs from the declared one. */
  #ensureBuilt(collection: CollectionState, index: IndexState): void {
    const metaKey = indexMetaKey(collection.name, index.spec.name);
    const definition = { fields: index.spec.fields, unique: index.spec.unique === true };
    if (JSON.stringify(this.#meta!.get(metaKey)) === JSON.stringify(definition)) return;
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

  async commit(ops: readonly WriteOp[]): Promise<void> {
    validateOps(ops, this.#specs);
    const env = this.#env;
    if (!env || this.#closing) throw new StorageUnavailableError('LMDB store is not open');
    if (ops.length === 0) return;
    const touched: IndexState[] = [];
    const done = env.childTransaction(() => this.#apply(ops, touched));
    this.#inFlight.add(done);
    try {
      await done;
    } catch (error) {
      if (error instanceof DuplicateKeyError) throw error;
      throw new StorageUnavailableError('LMDB commit failed', { cause: error });
    } finally {
      this.#inFlight.delete(done);
    }
    for (const index of touched) index.multikeyDurable = true;
  }

  #collection(name: string): CollectionState {
    if (!this.#env || this.#closing) throw new StorageUnavailableError('LMDB store is not open');
    const state = this.#collections.get(name);
    if (!state) throw new TypeError(`unknown collection ${name}`);
    return state;
  }

  /** Runs inside the write transaction; throwing aborts this batch's child transaction only. */
  #apply(ops: readonly WriteOp[], touched: IndexState[]): void {
    for (const op of ops) {
      const collection = this.#collections.get(op.collection)!;
      const indexed = collection.indexes.length > 0;
      switch (op.op) {
        case 'put':
        case 'insert': {
          const docKey = idKey(op.doc._id);
          const existing = op.op === 'insert' || indexed ? collection.db.getBinaryFast(docKey) : undefined;
          if (existing !== undefined && op.op === 'insert') throw new DuplicateKeyError(collection.name, ID_INDEX);
          this.#write(collection, docKey, existing && decode(existing), op.doc, touched);
          break;
        }
        case 'patch': {
          const docKey = idKey(op.id);
          const existing = collection.db.getBinaryFast(docKey);
          if (existing === undefined) break;
          const previous = decode(existing);
          this.#write(collection, docKey, previous, applyPatch(previous, op.set, op.unset), touched);
          break;
        }
        case 'delete': {
          const docKey = idKey(op.id);
          if (indexed) {
            const existing = collection.db.getBinaryFast(docKey);
            if (existing === undefined) break;
            const previous = decode(existing);
            for (const index of collection.indexes) {
              for (const key of indexKeys(index, previous, docKey).values()) index.db.removeSync(key);
            }
          }
          collection.db.removeSync(docKey);
          break;
        }
      }
    }
  }

  #write(collection: CollectionState, docKey: Buffer, previous: Doc | undefined, next: Doc, touched: IndexState[]): void {
    for (const index of collection.indexes) {
      const nextKeys = indexKeys(index, next, docKey);
      const previousKeys = previous ? indexKeys(index, previous, docKey) : undefined;
      for (const [text, key] of nextKeys) {
        if (previousKeys?.has(text)) continue;
        if (index.spec.unique) {
          const holder = index.db.getBinaryFast(key);
          if (holder !== undefined && !holder.equals(docKey)) {
            throw new DuplicateKeyError(collection.name, index.spec.name);
          }
        }
        index.db.putSync(key, index.spec.unique ? docKey : EMPTY);
      }
      if (previousKeys) {
        for (const [text, key] of previousKeys) if (!nextKeys.has(text)) index.db.removeSync(key);
      }
      if (!index.multikeyDurable && holdsArray(next, index.spec)) {
        index.multikey = true;
        this.#meta!.putSync(multikeyMetaKey(collection.name, index.spec.name), true);
        touched.push(index);
      }
    }
    collection.db.putSync(docKey, packr.pack(next));
  }
}
