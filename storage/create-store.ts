/**
 * Chooses and builds the store adapter from configuration.
 */
import type { CollectionSpec, Store } from './store.js';
import { LmdbStore } from './lmdb-store.js';
import { MongoStore } from './mongo-store.js';

/** Storage settings; `mongodbUri` switches from LMDB to MongoDB. */
export interface StoreConfig {
  /** Directory of the LMDB environment (unused with MongoDB). */
  dataDir: string;
  /** MongoDB connection string; when set, MongoDB is used instead of LMDB. */
  mongodbUri?: string;
  /** Database name; defaults to the URI's path, then `comments`. */
  mongodbDb?: string;
  /** Time limit for reaching MongoDB, in milliseconds (default 3000). */
  mongoTimeoutMs?: number;
  /** False for tools that run beside a server: only the writer replays MongoDB's journal. */
  replayJournal?: boolean;
  /** Open for reading only, beside a store that writes (see the adapters' `readOnly`). */
  readOnly?: boolean;
}

/** LMDB under dataDir unless mongodbUri is set. The store still has to be opened. */
export function createStore(config: StoreConfig, collections: readonly CollectionSpec[]): Store {
  if (config.mongodbUri) {
    return new MongoStore(
      { uri: config.mongodbUri, dbName: config.mongodbDb, timeoutMs: config.mongoTimeoutMs, replayJournal: config.replayJournal, readOnly: config.readOnly },
      collections,
    );
  }
  return new LmdbStore({ dataDir: config.dataDir, readOnly: config.readOnly === true }, collections);
}
