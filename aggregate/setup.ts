/** Builds the server's aggregation pool from its configuration. */
import type { Config } from '../engine/config.js';
import { QUESTION_TALLIES } from '../actors/question/tally.js';
import { COLLECTIONS } from '../storage/collections.js';
import type { StoreKind } from '../storage/store.js';
import { Aggregator } from './aggregator.js';
import { AGGREGATABLE } from './resources.js';
import type { WorkerSetup } from './worker.js';

/**
 * Workers' MongoDB time limit: a scan's next batch may take a while to gather on a large
 * collection (the socket limit is four times this), and the run has its own limit anyway.
 */
const WORKER_MONGO_TIMEOUT_MS = 30_000;

/** The collections workers read: every aggregatable resource's, and question tallies, with their indexes. */
function readCollections(): WorkerSetup['collections'] {
  const names = new Set([...Object.values(AGGREGATABLE).map((resource) => resource.collection), QUESTION_TALLIES]);
  return COLLECTIONS.filter((spec) => names.has(spec.name));
}

/** An aggregation pool on the same storage as the server (`kind` is the store it opened). */
export function aggregatorFor(config: Config, kind: StoreKind): Aggregator {
  const storage: WorkerSetup['storage'] =
    kind === 'mongodb'
      ? { kind, uri: config.mongodbUri!, dbName: config.mongodbDb, timeoutMs: Math.max(config.storageTimeoutMs, WORKER_MONGO_TIMEOUT_MS) }
      : { kind, dataDir: config.dataDir };
  return new Aggregator({
    setup: { storage, collections: readCollections() },
    memoryMb: config.aggregationMemoryMb,
    queueTimeoutMs: config.aggregationQueueTimeoutMs,
    runTimeoutMs: config.aggregationRunTimeoutMs,
    threads: config.aggregationThreads,
  });
}
