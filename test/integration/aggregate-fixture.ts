/**
 * Shared by the aggregation limit tests: data written straight to storage (each data set in
 * its own collection, since FerretDB reads a whole collection for any filter), calls as a given
 * tenant, and the pool's events.
 */
import { readFileSync } from 'node:fs';
import { MongoClient } from 'mongodb';
import type { ProvisionedTenant } from '../../actors/tenant/provision.js';
import type { AggregationEvent } from '../../aggregate/aggregator.js';
import type { Doc, WriteOp } from '../../storage/store.js';
import type { ApiResponse, StorageName, TestServer } from '../fixtures/server.js';

/** Documents of the distinct-value tests. */
export const MANY = 100_000;
/** Documents of the memory test, each with this many values found in no other. */
export const WIDE_DOCS = 1500;
export const WIDE_VALUES = 1000;
/** Votes for a call that runs long on MongoDB (FerretDB reads about 10,000 documents a second). */
export const SLOW_VOTES = 5000;

export type Answer = { data: Array<Record<string, Record<string, unknown>>>; stats?: { scanned: number; creditsCost: number }; code?: string };

export const count = { field: 'id', op: 'count', alias: 'n' } as const;
/** A quick call: the few reactions of a tenant. */
export const smallCall = { resourceName: 'PageReact', operations: [count] };

/**
 * A call that runs for a good while: on LMDB, one that reads the 100,000 comments and keeps a
 * value per document; on FerretDB, far slower, a few thousand votes suffice.
 */
export function longCall(storage: StorageName): { body: unknown; answer: unknown } {
  return storage === 'lmdb'
    ? { body: { resourceName: 'Comment', operations: [count, { field: 'id', op: 'countDistinct', alias: 'ids' }] }, answer: [{ n: { numericValue: MANY }, ids: { distinctCount: MANY } }] }
    : { body: { resourceName: 'Vote', operations: [count, { field: 'commentId', op: 'countDistinct', alias: 'ids' }] }, answer: [{ n: { numericValue: SLOW_VOTES }, ids: { distinctCount: SLOW_VOTES } }] };
}

/** This process's resident anonymous memory (heap and malloc, not LMDB's file pages), in MB. */
export function rssAnonMb(): number {
  const match = /RssAnon:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return Number(match![1]) / 1024;
}

/** Writes documents straight to the server's storage: the Store on LMDB, bulk inserts on MongoDB (its journaled commits are far slower). */
export async function seed(t: TestServer, collection: string, docs: Iterable<Doc>): Promise<void> {
  const { mongodbUri, mongodbDb } = t.server.services.config;
  const client = t.storage === 'mongodb' ? await new MongoClient(mongodbUri!).connect() : undefined;
  try {
    let chunk: Doc[] = [];
    const flush = async () => {
      if (chunk.length === 0) return;
      if (client) await client.db(mongodbDb).collection<Doc>(collection).insertMany(chunk, { ordered: false });
      else await t.server.services.store.commit(chunk.map((doc): WriteOp => ({ op: 'put', collection, doc })));
      chunk = [];
    };
    for (const doc of docs) {
      chunk.push(doc);
      if (chunk.length === 5000) await flush();
    }
    await flush();
  } finally {
    await client?.close();
  }
}

export function* manyComments(tenantId: string): Generator<Doc> {
  for (let i = 0; i < MANY; i++) {
    yield { _id: `n${String(i).padStart(6, '0')}`, tenantId, urlId: `p${i % 1000}`, commenterName: `u${i % 5000}`, votes: i % 7 };
  }
}

export function* wideUsers(tenantId: string): Generator<Doc> {
  for (let i = 0; i < WIDE_DOCS; i++) {
    yield { _id: `w${i}`, tenantId, kind: 'sso', username: `w${i}`, groupIds: Array.from({ length: WIDE_VALUES }, (_, j) => `${i}.${j}`) };
  }
}

export function* votes(tenantId: string, n: number): Generator<Doc> {
  for (let i = 0; i < n; i++) yield { _id: `v${i}`, tenantId, kind: 'authorized', urlId: `p${i % 10}`, commentId: `c${i}`, direction: 1 };
}

export function* reactions(tenantId: string, n: number): Generator<Doc> {
  for (let i = 0; i < n; i++) yield { _id: `s${i}`, tenantId, urlId: 'x', kind: 'like', reactId: '', userKey: `a:${i}` };
}

/** Calls the endpoint as `as`. */
export function aggregateAs(t: TestServer, as: ProvisionedTenant, body: unknown, query: Record<string, boolean> = {}): Promise<ApiResponse<Answer>> {
  return t.api<Answer>('POST', '/api/v1/aggregate', { auth: 'none', headers: { 'x-api-key': as.apiKey, 'x-tenant-id': as.tenantId }, body, query });
}

/** Every pool event from now on, and a promise of the first `started` of a tenant. */
export function watch(t: TestServer, tenantId: string): { events: AggregationEvent[]; started: Promise<void>; stop: () => void } {
  const events: AggregationEvent[] = [];
  let resolve!: () => void;
  const started = new Promise<void>((r) => (resolve = r));
  const stop = t.server.services.aggregator.observe((event) => {
    events.push(event);
    if (event.type === 'started' && event.tenantId === tenantId) resolve();
  });
  return { events, started, stop };
}

/** Where the `nth` event of this type and tenant is (-1: none). */
export function at(events: readonly AggregationEvent[], type: AggregationEvent['type'], tenantId: string, nth = 0): number {
  let seen = 0;
  for (let i = 0; i < events.length; i++) {
    if (events[i]!.type !== type || events[i]!.tenantId !== tenantId) continue;
    if (seen++ === nth) return i;
  }
  return -1;
}
