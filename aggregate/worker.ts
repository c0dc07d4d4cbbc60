/**
 * The aggregation worker (a Piscina task module): opens its own read-only access to the
 * server's storage once, then runs plans. It streams documents in batches and keeps only the
 * group state; the answer goes back as JSON bytes whose buffer is transferred, not copied.
 * Runs under the pool's memory limit: a plan that outgrows it ends this thread, not the server.
 */
import { workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import Piscina from 'piscina';
import { StorageUnavailableError } from '../storage/errors.js';
import type { CollectionSpec, Doc, Filter, Store } from '../storage/store.js';
import { Aggregation } from './accumulate.js';
import type { ParentScope, WorkerAnswer, WorkerRefusal, WorkerTask } from './plan.js';
import { runQuestionTask } from './question-worker.js';

/** Where the worker finds storage: the server's own settings, and the collections it may read. */
export interface WorkerSetup {
  readonly storage:
    | { readonly kind: 'lmdb'; readonly dataDir: string }
    | { readonly kind: 'mongodb'; readonly uri: string; readonly dbName?: string | undefined; readonly timeoutMs: number };
  readonly collections: readonly CollectionSpec[];
}

const setup = workerData as WorkerSetup;
let opening: Promise<Store> | undefined;

/** Only the adapter in use is loaded: everything loaded counts against the memory limit. */
async function openStore(): Promise<Store> {
  const { storage, collections } = setup;
  let store: Store;
  if (storage.kind === 'lmdb') {
    const { LmdbStore } = await import('../storage/lmdb-store.js');
    store = new LmdbStore({ dataDir: storage.dataDir, readOnly: true }, collections);
  } else {
    const { MongoStore } = await import('../storage/mongo-store.js');
    store = new MongoStore({ uri: storage.uri, dbName: storage.dbName, timeoutMs: storage.timeoutMs, readOnly: true }, collections);
  }
  await store.open();
  return store;
}

function storeOnce(): Promise<Store> {
  opening ??= openStore().catch((error: unknown) => {
    opening = undefined;
    throw error;
  });
  return opening;
}

/** The parent's child tenants, once the caller is known to manage the parent. */
async function childTenants(store: Store, parent: ParentScope): Promise<string[] | WorkerRefusal> {
  if (parent.parentTenantId !== parent.callerTenantId) {
    const doc = await store.get(parent.tenantsCollection, parent.parentTenantId);
    if (doc?.['managedByTenantId'] !== parent.callerTenantId) return { refused: { code: 'parent-tenant-forbidden' } };
  }
  const ids: string[] = [];
  for await (const batch of store.scan(parent.tenantsCollection, { managedByTenantId: parent.parentTenantId })) {
    for (const doc of batch) ids.push(doc._id);
  }
  return ids;
}

/** Wraps the answer so Piscina transfers the bytes' buffer instead of copying it. */
function transferred(answer: WorkerAnswer): unknown {
  return Piscina.move({
    get [Piscina.transferableSymbol]() {
      return [answer.data.buffer];
    },
    get [Piscina.valueSymbol]() {
      return answer;
    },
  });
}

/** Runs one plan. Refusals come back as values; anything else thrown is a fault. */
export default async function runAggregation(plan: WorkerTask): Promise<unknown> {
  const started = performance.now();
  try {
    const store = await storeOnce();
    if ('questionTask' in plan) return transferred(await runQuestionTask(store, plan));
    let filter: Filter = plan.filter;
    if (plan.parent) {
      const children = await childTenants(store, plan.parent);
      if (!Array.isArray(children)) return children;
      filter = { ...filter, [plan.parent.tenantField]: { $in: children } };
    }
    const aggregation = new Aggregation(plan);
    for await (const batch of store.scan<Doc>(plan.collection, filter, { batchSize: plan.batchSize, projection: plan.fields })) aggregation.add(batch);
    // Its own buffer (Buffer.from may share a pooled one), so it can be transferred.
    const data = new TextEncoder().encode(JSON.stringify(aggregation.items()));
    return transferred({ data, scanned: aggregation.scanned, timeMs: Math.round(performance.now() - started) });
  } catch (error) {
    if (error instanceof StorageUnavailableError) return { refused: { code: 'storage-unavailable', reason: error.message } } satisfies WorkerRefusal;
    throw error;
  }
}
