/**
 * The MongoDB adapter's translations to the driver: filters, write ops as bulk operations,
 * index creation, and which unique index a refused write hit. Stateless; `mongo-store.ts` owns
 * the group commit and the journal that make these writes atomic.
 */
import type { AnyBulkWriteOperation, Db, Document } from 'mongodb';
import { StorageUnavailableError } from './errors.js';
import type { CollectionSpec, Doc, Filter, WriteOp } from './store.js';
import { isOperatorCondition } from './query.js';
import { applyPatch, ID_INDEX, indexTuples, opId } from './write-ops.js';

/** Most operations sent in one bulk write (see applyOps). */
const BULK_WRITE_MAX = 99;

/** Documents as the driver sees them: string ids, arbitrary fields. */
type StoredDoc = { _id: string; [field: string]: unknown };

/** The database named in the URI's path, if any. */
export function uriDatabase(uri: string): string | undefined {
  const match = /^mongodb(?:\+srv)?:\/\/[^/?#]*\/([^?#]*)/.exec(uri);
  const name = match?.[1] ? decodeURIComponent(match[1]) : '';
  return name === '' ? undefined : name;
}

/**
 * The port's filter in MongoDB syntax. Only `$exists` differs: the port defines it as
 * "present and not null", which is `$ne: null` / `$eq: null` in MongoDB.
 */
export function toMongoFilter(filter: Filter): Document {
  const result: Document = {};
  const and: Document[] = [];
  for (const [field, condition] of Object.entries(filter)) {
    if (!isOperatorCondition(condition)) {
      result[field] = condition;
      continue;
    }
    const ops: Document = {};
    for (const [op, value] of Object.entries(condition)) {
      if (value === undefined) continue;
      if (op !== '$exists') ops[op] = value;
      else and.push({ [field]: value ? { $ne: null } : { $eq: null } });
    }
    // An empty operator object would mean "equals {}" to MongoDB; the port means "no condition".
    if (Object.keys(ops).length > 0) result[field] = ops;
  }
  if (and.length > 0) result.$and = and;
  return result;
}

function bulkOperation(op: WriteOp, replaying: boolean): AnyBulkWriteOperation<StoredDoc> | undefined {
  switch (op.op) {
    case 'put':
      return { replaceOne: { filter: { _id: op.doc._id }, replacement: op.doc, upsert: true } };
    case 'insert':
      return replaying
        ? { replaceOne: { filter: { _id: op.doc._id }, replacement: op.doc, upsert: true } }
        : { insertOne: { document: { ...op.doc } } };
    case 'patch': {
      const update: Document = {};
      if (op.set && Object.keys(op.set).length > 0) update.$set = op.set;
      if (op.unset && op.unset.length > 0) update.$unset = Object.fromEntries(op.unset.map((f) => [f, '']));
      if (Object.keys(update).length === 0) return undefined;
      return { updateOne: { filter: { _id: op.id }, update } };
    }
    case 'delete':
      return { deleteOne: { filter: { _id: op.id } } };
  }
}

/**
 * Creates missing indexes one at a time and replaces changed ones. FerretDB v1.24 drops the
 * connection when one createIndexes command names several indexes that already exist on a
 * collection holding data, so existing indexes are never re-sent.
 */
export async function ensureIndexes(db: Db, spec: CollectionSpec): Promise<void> {
  if (spec.indexes.length === 0) return;
  const collection = db.collection(spec.name);
  const existing = new Map<string, Document>();
  for (const index of await collection.listIndexes().toArray().catch(() => [])) {
    existing.set(index['name'] as string, index);
  }
  for (const index of spec.indexes) {
    const key = Object.fromEntries(index.fields.map((field) => [field, 1]));
    const current = existing.get(index.name);
    if (current) {
      const same =
        JSON.stringify(Object.entries(current['key'] as Document)) === JSON.stringify(Object.entries(key)) &&
        (current['unique'] === true) === (index.unique === true);
      if (same) continue;
      await collection.dropIndex(index.name);
    }
    await collection.createIndex(key, { name: index.name, ...(index.unique ? { unique: true } : {}) });
  }
}


/**
 * Names the index a single refused op violated (FerretDB's message does not). Only reached
 * when the database changed behind the pre-flight check.
 */
export async function violatedIndex(db: Db, op: WriteOp, spec: CollectionSpec): Promise<string | undefined> {
  const mongo = db.collection(op.collection);
  const id = opId(op);
  const stored = (await mongo.findOne({ _id: id } as Document)) as Doc | null;
  if (op.op === 'insert' && stored) return ID_INDEX;
  const doc = op.op === 'patch' ? (stored ? applyPatch(stored, op.set, op.unset) : undefined) : op.op === 'delete' ? undefined : op.doc;
  if (!doc) return undefined;
  for (const index of spec.indexes) {
    if (!index.unique) continue;
    for (const tuple of indexTuples(doc, index.fields)) {
      const filter: Document = { _id: { $ne: id } };
      index.fields.forEach((field, i) => {
        filter[field] = tuple[i];
      });
      if (await mongo.findOne(filter, { projection: { _id: 1 } })) return index.name;
    }
  }
  return undefined;
}


/** Applies ops in order: consecutive ops on one collection go in one ordered bulk write. */
export async function applyOps(db: Db, ops: readonly WriteOp[], replaying: boolean, guard?: () => boolean): Promise<void> {
  let i = 0;
  while (i < ops.length) {
    const collection = ops[i]!.collection;
    const batch: AnyBulkWriteOperation<StoredDoc>[] = [];
    for (; i < ops.length && ops[i]!.collection === collection; i++) {
      const op = ops[i]!;
      // Consecutive deletes go as one statement: their order among themselves cannot matter,
      // and FerretDB looks each statement's document up on its own.
      if (op.op === 'delete' && i + 1 < ops.length && ops[i + 1]!.op === 'delete' && ops[i + 1]!.collection === collection) {
        const ids: string[] = [];
        for (; i < ops.length && ops[i]!.op === 'delete' && ops[i]!.collection === collection && ids.length < BULK_WRITE_MAX; i++) ids.push((ops[i] as { id: string }).id);
        i--;
        batch.push({ deleteMany: { filter: { _id: { $in: ids } } } });
        continue;
      }
      const operation = bulkOperation(op, replaying);
      if (operation) batch.push(operation);
    }
    // FerretDB 1.24 never answers an update command of 100 or more statements. Smaller
    // bulk writes are as good: a group is atomic through its journal entry, not through one
    // database call.
    for (let start = 0; start < batch.length; start += BULK_WRITE_MAX) {
      if (guard !== undefined && !guard()) throw new StorageUnavailableError('the lease on a shard of this group ran out');
      await db.collection<StoredDoc>(collection).bulkWrite(batch.slice(start, start + BULK_WRITE_MAX), { ordered: true });
    }
  }
}
