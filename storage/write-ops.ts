/**
 * Write-op rules shared by every adapter: what a valid batch looks like, what a patch does to a
 * document, and which index entries a document produces.
 */
import type { CollectionSpec, Doc, WriteOp } from './store.js';

/** The index named by DuplicateKeyError for an existing `_id` (MongoDB's name for it). */
export const ID_INDEX = '_id_';

function checkFieldName(collection: string, field: string): void {
  if (field === '_id') throw new TypeError(`${collection}: a patch cannot change _id`);
  if (field === '' || field.startsWith('$') || field.includes('.')) {
    throw new TypeError(`${collection}: invalid field name ${JSON.stringify(field)}`);
  }
}

function checkDoc(collection: string, doc: unknown): void {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new TypeError(`${collection}: document must be an object`);
  }
  if (typeof (doc as Doc)._id !== 'string') throw new TypeError(`${collection}: document _id must be a string`);
}

/**
 * Throws TypeError for a malformed batch, before anything is written, so that adapters only
 * ever fail a valid batch for storage reasons.
 */
export function validateOps(ops: readonly WriteOp[], collections: ReadonlyMap<string, CollectionSpec>): void {
  if (!Array.isArray(ops)) throw new TypeError('commit needs an array of ops');
  for (const op of ops) {
    if (!collections.has(op.collection)) throw new TypeError(`unknown collection ${String(op.collection)}`);
    switch (op.op) {
      case 'put':
      case 'insert':
        checkDoc(op.collection, op.doc);
        break;
      case 'patch': {
        if (typeof op.id !== 'string') throw new TypeError(`${op.collection}: patch id must be a string`);
        const set = op.set ?? {};
        for (const field of Object.keys(set)) checkFieldName(op.collection, field);
        for (const field of op.unset ?? []) {
          checkFieldName(op.collection, field);
          if (Object.hasOwn(set, field)) throw new TypeError(`${op.collection}: ${field} is both set and unset`);
        }
        break;
      }
      case 'delete':
        if (typeof op.id !== 'string') throw new TypeError(`${op.collection}: delete id must be a string`);
        break;
      default:
        throw new TypeError(`unknown op ${String((op as { op: unknown }).op)}`);
    }
  }
}

/** The document a patch produces; the input is left untouched. */
export function applyPatch(
  doc: Doc,
  set: Readonly<Record<string, unknown>> | undefined,
  unset: readonly string[] | undefined,
): Doc {
  const next: Doc = set ? { ...doc, ...set } : { ...doc };
  if (unset) for (const field of unset) delete next[field];
  return next;
}

/** The `_id` an op writes to. */
export function opId(op: WriteOp): string {
  return op.op === 'put' || op.op === 'insert' ? op.doc._id : op.id;
}

/**
 * The index entries of a document over the given fields: one tuple per combination of array
 * elements (multikey). Missing fields and empty arrays index as null.
 */
export function indexTuples(doc: Doc, fields: readonly string[]): unknown[][] {
  let tuples: unknown[][] = [[]];
  for (const field of fields) {
    const value = doc[field];
    if (!Array.isArray(value)) {
      const v = value === undefined ? null : value;
      for (const tuple of tuples) tuple.push(v);
      continue;
    }
    const elements = value.length === 0 ? [null] : [...new Set(value)];
    const next: unknown[][] = [];
    for (const tuple of tuples) for (const element of elements) next.push([...tuple, element]);
    tuples = next;
  }
  return tuples;
}
