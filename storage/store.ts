/**
 * The Store port: the only way the engine reaches durable storage.
 *
 * It is deliberately small. Actors own their data and keep it in memory; the store only has to
 * load it, find it by indexed fields, and make ordered batches of writes durable atomically.
 * Every adapter (LMDB, MongoDB) must pass the conformance suite in `test/storage/`.
 */

/** A stored document. Values are JSON-compatible (no Date, no Buffer, no undefined). */
export type Doc = { _id: string } & Record<string, unknown>;

/** A scalar that filters and index keys can compare. */
export type Scalar = string | number | boolean | null;

/** Conditions on one field. A bare scalar means equality; on an array field, membership. */
export type FieldCondition =
  | Scalar
  | {
      $eq?: Scalar;
      $ne?: Scalar;
      $in?: readonly Scalar[];
      $nin?: readonly Scalar[];
      $gt?: Scalar;
      $gte?: Scalar;
      $lt?: Scalar;
      $lte?: Scalar;
      /** Array field holds every one of these values. */
      $all?: readonly Scalar[];
      /** `true`: the field is present and not null; `false`: absent or null. */
      $exists?: boolean;
    };

/** Top-level fields only; all conditions must hold. */
export type Filter = Readonly<Record<string, FieldCondition>>;

export type SortSpec = ReadonlyArray<readonly [field: string, direction: 1 | -1]>;

export interface FindOptions {
  sort?: SortSpec;
  skip?: number;
  limit?: number;
}

/**
 * One write of a batch. Every op is idempotent when replayed in order, which is what lets the
 * MongoDB adapter recover a batch from its journal.
 */
export type WriteOp =
  /** Insert or fully replace the document with this `_id`. */
  | { readonly op: 'put'; readonly collection: string; readonly doc: Doc }
  /** Insert; the batch fails with DuplicateKeyError if the `_id` exists. */
  | { readonly op: 'insert'; readonly collection: string; readonly doc: Doc }
  /** Set and unset top-level fields of an existing document; no-op if the document is missing. */
  | {
      readonly op: 'patch';
      readonly collection: string;
      readonly id: string;
      readonly set?: Readonly<Record<string, unknown>>;
      readonly unset?: readonly string[];
    }
  /** Remove the document; no-op if it is missing. */
  | { readonly op: 'delete'; readonly collection: string; readonly id: string };

/**
 * An ascending index over top-level fields. A field holding an array is indexed once per
 * element (multikey). Unique indexes require every indexed field to be present on every
 * document of the collection: neither adapter supports partial indexes.
 */
export interface IndexSpec {
  readonly name: string;
  readonly fields: readonly string[];
  readonly unique?: boolean;
}

/**
 * Which documents of a collection are a tenant's, so that deleting a tenant finds them all
 * (`storage/tenant-data.ts`): `{ field }` names the field holding the tenant id (an index
 * should start with it); `{ sameIdAs }`: each document goes with the document of that
 * collection that has the same `_id`; `'tenant-id'`: the `_id` is the tenant id; `'global'`:
 * no tenant's data. Omitted, it is `{ field: 'tenantId' }` when an index starts with
 * `tenantId`, and undeclared otherwise (a unit test refuses that). Adapters ignore it.
 */
export type TenantData = { readonly field: string } | { readonly sameIdAs: string } | 'tenant-id' | 'global';

export interface CollectionSpec {
  readonly name: string;
  readonly indexes: readonly IndexSpec[];
  readonly tenantData?: TenantData;
}

export type StoreKind = 'lmdb' | 'mongodb';

/**
 * The fencing token of a cluster node's commit: the shard its actor hashes to, and the epoch
 * of the node's lease on that shard. A store that fences (MongoDB in cluster mode) refuses a
 * commit whose epoch is older than the shard's, so a node that lost its lease cannot write.
 */
export interface Fence {
  readonly shard: number;
  readonly epoch: number;
  /** False once the node knows its lease is gone or expired: the store refuses without asking. */
  valid(): boolean;
}

/** Who writes to this storage, asked for at start-up by `claimWriter`. */
export type WriterClaim =
  /** One server alone. */
  | { readonly mode: 'single' }
  /** Any node of the cluster `clusterId`, and no other writer. */
  | { readonly mode: 'cluster'; readonly clusterId: string };

/** A claim held on storage; storage refuses no write for it, it only keeps other servers out. */
export interface WriterLease {
  release(): Promise<void>;
}

/** Options of a streaming read. */
export interface ScanOptions {
  /** Most documents per batch (default 1000). */
  batchSize?: number;
  /**
   * Top-level fields to hand out (`_id` always is): the others are left out of every document,
   * so a reader of a few fields holds no more than those. Without it, whole documents.
   */
  projection?: readonly string[];
}

export interface Store {
  readonly kind: StoreKind;
  /** Connects or opens, and creates the indexes of every collection. Safe to call once. */
  open(): Promise<void>;
  /** Waits for commits under way, then closes. */
  close(): Promise<void>;
  /** Resolves when storage answers; rejects with StorageUnavailableError otherwise. */
  ping(): Promise<void>;
  get<T extends Doc = Doc>(collection: string, id: string): Promise<T | undefined>;
  find<T extends Doc = Doc>(collection: string, filter: Filter, options?: FindOptions): Promise<T[]>;
  count(collection: string, filter: Filter): Promise<number>;
  /**
   * Streams the matching documents in batches of at most `batchSize`, in no promised order,
   * without holding more than one batch: for reads over whole collections. It is not a
   * snapshot: a document written during the scan may or may not be seen, but every document
   * that matches throughout is seen exactly once. Stopping the iteration releases the reader.
   */
  scan<T extends Doc = Doc>(collection: string, filter: Filter, options?: ScanOptions): AsyncIterable<T[]>;
  /**
   * Applies the ops in order, atomically, and resolves only once they are durable.
   * Rejects with DuplicateKeyError (nothing applied) when a unique index would be violated,
   * or StorageUnavailableError when storage cannot be reached (nothing applied). With a
   * `fence`, a store that fences refuses with FencedError (nothing applied) when the shard
   * has moved to a newer epoch; LMDB, never clustered, ignores it.
   */
  commit(ops: readonly WriteOp[], fence?: Fence): Promise<void>;
  /**
   * Makes this process the storage's only writer (or one node of its only cluster) until the
   * lease is released or the process ends; rejects with WriterHeldError while another holds it.
   * `onLost` runs if the claim is taken away later (this process was stalled past its lease).
   */
  claimWriter?(claim: WriterClaim, onLost: () => void): Promise<WriterLease>;
}
