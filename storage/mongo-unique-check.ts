/**
 * Pre-flight check of a commit group for the MongoDB adapter.
 *
 * FerretDB has no multi-document transactions, so a group is only journaled once it is known to
 * apply cleanly. This module replays the group in memory, caller by caller and op by op, against
 * the current database state (fetched in bulk) and the group's own earlier writes, and tells
 * which callers would break a unique index or insert an existing `_id`. A rejected caller's
 * writes are rolled back from the simulation so later callers are judged without them.
 *
 * Groups are serialised in-process, so the database cannot change between this check and the
 * journaled apply (one process owns the database).
 */
import type { Db, Document } from 'mongodb';
import { DuplicateKeyError } from './errors.js';
import type { CollectionSpec, Doc, IndexSpec, WriteOp } from './store.js';
import { applyPatch, ID_INDEX, indexTuples, opId } from './write-ops.js';

const QUERY_CHUNK = 200;

/** Something that carries ops to check (a caller of commit). */
export interface OpsCarrier {
  readonly ops: readonly WriteOp[];
}

/** Outcome of a check: callers that may proceed, and callers refused with their error. */
export interface CheckOutcome<T extends OpsCarrier> {
  readonly accepted: T[];
  readonly rejected: Array<readonly [T, DuplicateKeyError]>;
}

type State = Doc | null;

function tupleKey(tuple: readonly unknown[]): string {
  return JSON.stringify(tuple);
}

function tupleFilter(fields: readonly string[], tuple: readonly unknown[]): Document {
  const filter: Document = {};
  fields.forEach((field, i) => {
    filter[field] = tuple[i];
  });
  return filter;
}

/** In-memory view of one collection during the simulation. */
class CollectionView {
  /** States written by the group so far (null = deleted). */
  readonly overlay = new Map<string, State>();
  /** Per unique index: tuple key → ids in the overlay holding it. */
  readonly overlayHolders: Map<string, Map<string, Set<string>>>;
  /** Database state of ids fetched so far (null = absent). */
  readonly stored = new Map<string, State>();
  /** Per unique index: tuple key → ids holding it in the database. */
  readonly storedHolders: Map<string, Map<string, Set<string>>>;

  constructor(
    readonly name: string,
    readonly uniqueIndexes: readonly IndexSpec[],
  ) {
    this.overlayHolders = new Map(uniqueIndexes.map((index) => [index.name, new Map()]));
    this.storedHolders = new Map(uniqueIndexes.map((index) => [index.name, new Map()]));
  }

  current(id: string): State | undefined {
    return this.overlay.has(id) ? this.overlay.get(id)! : this.stored.get(id);
  }

  /** Records a new state for `id`, keeping the overlay holder maps in step. */
  setState(id: string, state: State | undefined): void {
    const previous = this.overlay.get(id);
    for (const index of this.uniqueIndexes) {
      const holders = this.overlayHolders.get(index.name)!;
      if (previous) {
        for (const tuple of indexTuples(previous, index.fields)) holders.get(tupleKey(tuple))?.delete(id);
      }
      if (state) {
        for (const tuple of indexTuples(state, index.fields)) {
          const key = tupleKey(tuple);
          let set = holders.get(key);
          if (!set) holders.set(key, (set = new Set()));
          set.add(id);
        }
      }
    }
    if (state === undefined) this.overlay.delete(id);
    else this.overlay.set(id, state);
  }
}

/** Checks commit groups against one database. */
export class UniqueChecker {
  readonly #db: Db;
  readonly #specs: ReadonlyMap<string, CollectionSpec>;

  constructor(db: Db, specs: ReadonlyMap<string, CollectionSpec>) {
    this.#db = db;
    this.#specs = specs;
  }

  /** Splits the callers of a group into those that apply cleanly and those that must be refused. */
  async check<T extends OpsCarrier>(callers: readonly T[]): Promise<CheckOutcome<T>> {
    const views = new Map<string, CollectionView>();
    const view = (name: string) => {
      let v = views.get(name);
      if (!v) {
        const unique = this.#specs.get(name)!.indexes.filter((index) => index.unique);
        views.set(name, (v = new CollectionView(name, unique)));
      }
      return v;
    };
    const relevant = callers.some((caller) =>
      caller.ops.some((op) => op.op === 'insert' || (op.op !== 'delete' && view(op.collection).uniqueIndexes.length > 0)),
    );
    if (!relevant) return { accepted: [...callers], rejected: [] };

    await this.#prefetchDocs(callers, view);
    await this.#prefetchHolders(callers, view);

    const accepted: T[] = [];
    const rejected: Array<readonly [T, DuplicateKeyError]> = [];
    for (const caller of callers) {
      const undo: Array<readonly [CollectionView, string, State | undefined]> = [];
      const error = await this.#simulate(caller.ops, view, undo);
      if (!error) {
        accepted.push(caller);
        continue;
      }
      for (let i = undo.length - 1; i >= 0; i--) {
        const [v, id, previous] = undo[i]!;
        v.setState(id, previous);
      }
      rejected.push([caller, error]);
    }
    return { accepted, rejected };
  }

  /** Loads the stored documents that patches and inserts depend on, in one query per collection. */
  async #prefetchDocs(callers: readonly OpsCarrier[], view: (name: string) => CollectionView): Promise<void> {
    const wanted = new Map<string, Set<string>>();
    for (const caller of callers) {
      for (const op of caller.ops) {
        if (op.op !== 'patch' && op.op !== 'insert') continue;
        let ids = wanted.get(op.collection);
        if (!ids) wanted.set(op.collection, (ids = new Set()));
        ids.add(opId(op));
      }
    }
    for (const [collection, ids] of wanted) await this.#fetchDocs(view(collection), [...ids]);
  }

  async #fetchDocs(v: CollectionView, ids: readonly string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += QUERY_CHUNK) {
      const chunk = ids.slice(i, i + QUERY_CHUNK);
      const found = await this.#db
        .collection(v.name)
        .find({ _id: { $in: chunk } } as Document)
        .toArray();
      for (const id of chunk) v.stored.set(id, null);
      for (const doc of found) v.stored.set(doc._id as unknown as string, doc as unknown as Doc);
    }
  }

  /** Loads, per unique index, which stored documents hold the values the group writes. */
  async #prefetchHolders(callers: readonly OpsCarrier[], view: (name: string) => CollectionView): Promise<void> {
    const wanted = new Map<CollectionView, Map<IndexSpec, Map<string, unknown[]>>>();
    for (const caller of callers) {
      for (const op of caller.ops) {
        const v = view(op.collection);
        if (v.uniqueIndexes.length === 0 || op.op === 'delete') continue;
        let doc: Doc | undefined;
        if (op.op === 'patch') {
          const stored = v.stored.get(op.id);
          doc = stored ? applyPatch(stored, op.set, op.unset) : undefined;
        } else doc = op.doc;
        if (!doc) continue;
        let byIndex = wanted.get(v);
        if (!byIndex) wanted.set(v, (byIndex = new Map()));
        for (const index of v.uniqueIndexes) {
          let tuples = byIndex.get(index);
          if (!tuples) byIndex.set(index, (tuples = new Map()));
          for (const tuple of indexTuples(doc, index.fields)) tuples.set(tupleKey(tuple), tuple);
        }
      }
    }
    for (const [v, byIndex] of wanted) {
      for (const [index, tuples] of byIndex) await this.#fetchHolders(v, index, [...tuples.values()]);
    }
  }

  async #fetchHolders(v: CollectionView, index: IndexSpec, tuples: readonly unknown[][]): Promise<void> {
    const holders = v.storedHolders.get(index.name)!;
    const projection: Document = { _id: 1 };
    for (const field of index.fields) projection[field] = 1;
    for (let i = 0; i < tuples.length; i += QUERY_CHUNK) {
      const chunk = tuples.slice(i, i + QUERY_CHUNK);
      for (const tuple of chunk) if (!holders.has(tupleKey(tuple))) holders.set(tupleKey(tuple), new Set());
      const filter: Document =
        index.fields.length === 1
          ? { [index.fields[0]!]: { $in: chunk.map((tuple) => tuple[0]) } }
          : { $or: chunk.map((tuple) => tupleFilter(index.fields, tuple)) };
      const found = await this.#db.collection(v.name).find(filter, { projection }).toArray();
      for (const doc of found) {
        for (const tuple of indexTuples(doc as unknown as Doc, index.fields)) {
          holders.get(tupleKey(tuple))?.add(doc._id as unknown as string);
        }
      }
    }
  }

  /** Applies ops to the views; returns the error of the first violation. */
  async #simulate(
    ops: readonly WriteOp[],
    view: (name: string) => CollectionView,
    undo: Array<readonly [CollectionView, string, State | undefined]>,
  ): Promise<DuplicateKeyError | undefined> {
    for (const op of ops) {
      const v = view(op.collection);
      const id = opId(op);
      if ((op.op === 'patch' || op.op === 'insert') && v.current(id) === undefined) await this.#fetchDocs(v, [id]);
      let next: State;
      switch (op.op) {
        case 'insert':
          if (v.current(id)) return new DuplicateKeyError(v.name, ID_INDEX);
          next = op.doc;
          break;
        case 'put':
          next = op.doc;
          break;
        case 'patch': {
          const current = v.current(id);
          if (!current) continue;
          next = applyPatch(current, op.set, op.unset);
          break;
        }
        case 'delete':
          next = null;
          break;
      }
      if (next) {
        const violated = await this.#violatedIndex(v, id, next);
        if (violated) return new DuplicateKeyError(v.name, violated);
      }
      undo.push([v, id, v.overlay.has(id) ? v.overlay.get(id)! : undefined]);
      v.setState(id, next);
    }
    return undefined;
  }

  async #violatedIndex(v: CollectionView, id: string, doc: Doc): Promise<string | undefined> {
    for (const index of v.uniqueIndexes) {
      const stored = v.storedHolders.get(index.name)!;
      const overlay = v.overlayHolders.get(index.name)!;
      for (const tuple of indexTuples(doc, index.fields)) {
        const key = tupleKey(tuple);
        if (!stored.has(key)) await this.#fetchHolders(v, index, [tuple]);
        for (const holder of stored.get(key)!) {
          if (holder !== id && !v.overlay.has(holder)) return index.name;
        }
        for (const holder of overlay.get(key) ?? []) if (holder !== id) return index.name;
      }
    }
    return undefined;
  }
}
