/**
 * The MongoDB adapter, written for FerretDB v1 (no multi-document transactions, no partial
 * indexes) and therefore equally valid on MongoDB.
 *
 * Batches are made atomic with a journal and group commit. Commits that arrive while a group is
 * in flight wait and form the next group, each caller's ops kept contiguous and in order. A group
 * of one op is applied directly (single-document writes are atomic). A larger group is
 *  1. checked in memory against the database for unique-index and `_id` conflicts; a violating
 *     caller is refused alone (see `mongo-unique-check.ts`);
 *  2. written as one `_journal` document `{_id: seq, ops, createdAt}`: the commit point;
 *  3. applied with ordered bulk writes;
 *  4. removed from the journal, and only then are its callers resolved.
 * If 3 or 4 fail after 2 succeeded, the group is durable, so it is re-applied in the background
 * until it succeeds; reads and later commits wait for that (up to the timeout). `open()` replays
 * what a crash left in the journal. Replays turn inserts into upserts: the check in step 1
 * already proved the id free, and an insert replayed over itself must not fail.
 */
import { MongoClient, type Collection, type Db, type Document } from 'mongodb';
import { AmbiguousCommitError, DuplicateKeyError, FencedError, StorageUnavailableError } from './errors.js';
import type { CollectionSpec, Doc, Fence, Filter, FindOptions, ScanOptions, Store, WriteOp, WriterClaim, WriterLease } from './store.js';
import { FenceLedger, type ShardPart } from './mongo-fences.js';
import { claimMongoWriter, type WriterLeaseTimings } from './mongo-writer-lease.js';
import { checkProjection, normalizeSort, validateFilter, validateFindOptions } from './query.js';
import { ID_INDEX, validateOps } from './write-ops.js';
import { isAmbiguousWriteError, isDuplicateKeyError, isUnavailableError, toStorageError } from './mongo-errors.js';
import { UniqueChecker } from './mongo-unique-check.js';
import { scanCollection } from './mongo-scan.js';
import { applyOps, ensureIndexes, toMongoFilter, uriDatabase, violatedIndex } from './mongo-ops.js';

/** Options of the MongoDB adapter. */
export interface MongoStoreOptions {
  readonly uri: string;
  /** Database name; defaults to the URI's path, then `comments`. */
  readonly dbName?: string | undefined;
  /** Time limit for reaching the server and for waiting on recovery, in ms (default 3000). */
  readonly timeoutMs?: number | undefined;
  /**
   * Whether `open()` re-applies what a crash left in the journal (default true). Only the
   * database's writer may: a command-line tool run beside a live server must not replay the
   * server's groups under its feet.
   */
  readonly replayJournal?: boolean | undefined;
  /** Timings of `claimWriter` (tests shorten them). */
  readonly writerTimings?: WriterLeaseTimings | undefined;
  /** Only read (a worker beside the server's own store): no index creation, no journal replay, no commits. */
  readonly readOnly?: boolean | undefined;
}

/** The collection holding group journals. */
export const JOURNAL_COLLECTION = '_journal';
/** A journal entry as stored: the ops of one group, in order. */
export interface JournalEntry {
  _id: number;
  ops: WriteOp[];
  createdAt: Date;
}

/** Groups stop growing past this many ops (a caller's ops are never split). */
const MAX_GROUP_OPS = 2000;
const RECOVERY_BACKOFF_MS = [50, 100, 200, 400, 800, 1600];

interface Caller {
  readonly ops: readonly WriteOp[];
  /** Cluster mode: the lease this commit is made under. */
  readonly fence: Fence | undefined;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
  timer?: NodeJS.Timeout;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Store backed by a MongoDB-compatible server (MongoDB or FerretDB). */
export class MongoStore implements Store {
  readonly kind = 'mongodb' as const;
  readonly #uri: string;
  readonly #dbName: string;
  readonly #timeoutMs: number;
  readonly #replays: boolean;
  readonly #writerTimings: WriterLeaseTimings | undefined;
  readonly #fences = new FenceLedger();
  readonly #readOnly: boolean;
  readonly #specs: ReadonlyMap<string, CollectionSpec>;
  #client: MongoClient | undefined;
  #db: Db | undefined;
  #checker: UniqueChecker | undefined;
  #closing = false;

  readonly #queue: Caller[] = [];
  #draining: Promise<void> | undefined;
  /** Set while a journaled group is being applied; reads wait so they never see half of it. */
  #applying: Promise<void> | undefined;
  /** Set while a durable group is being re-applied; reads and commits wait for it. */
  #recovery: Promise<void> | undefined;
  #lastSeq = 0;
  /** Journal ids whose insert may or may not have landed; deleted before the next journal write. */
  readonly #orphans: number[] = [];

  /** The database once open: GridFS (uploaded images) keeps its files beside the collections. */
  get database(): Db | undefined {
    return this.#db;
  }

  /** @param collections every collection the store may touch, with its indexes */
  constructor(options: MongoStoreOptions, collections: readonly CollectionSpec[]) {
    this.#uri = options.uri;
    this.#dbName = options.dbName ?? uriDatabase(options.uri) ?? 'comments';
    this.#timeoutMs = options.timeoutMs ?? 3000;
    this.#replays = options.replayJournal ?? true;
    this.#writerTimings = options.writerTimings;
    this.#readOnly = options.readOnly === true;
    this.#specs = new Map(collections.map((spec) => [spec.name, spec]));
  }

  async open(): Promise<void> {
    if (this.#client) return;
    const t = this.#timeoutMs;
    const client = new MongoClient(this.#uri, {
      serverSelectionTimeoutMS: t,
      connectTimeoutMS: t,
      // Inactivity limit on a socket; generous so that slow queries are not cut, finite so a
      // silently dead connection is noticed.
      socketTimeoutMS: Math.max(4 * t, 10_000),
      // FerretDB v1 has no retryable writes; the journal gives commits their own recovery.
      retryWrites: false,
    });
    try {
      await client.connect();
      const db = client.db(this.#dbName);
      if (!this.#readOnly) {
        for (const spec of this.#specs.values()) await ensureIndexes(db, spec);
        if (this.#replays) await this.#replayJournal(db);
      }
      this.#client = client;
      this.#db = db;
      this.#checker = new UniqueChecker(db, this.#specs);
      this.#closing = false;
    } catch (error) {
      await client.close().catch(() => undefined);
      throw toStorageError(error, 'open');
    }
  }

  async #replayJournal(db: Db): Promise<void> {
    const journal = db.collection<JournalEntry>(JOURNAL_COLLECTION);
    const entries = await journal.find({}).sort({ _id: 1 }).toArray();
    for (const entry of entries) {
      await applyOps(db, entry.ops, true);
      await journal.deleteOne({ _id: entry._id });
      this.#lastSeq = Math.max(this.#lastSeq, entry._id);
    }
  }

  async close(): Promise<void> {
    const client = this.#client;
    if (!client) return;
    this.#closing = true;
    // A group stuck in recovery is durable in the journal; the next open() replays it.
    const deadline = Date.now() + this.#timeoutMs;
    while (this.#draining && Date.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<void>((resolve) => (timer = setTimeout(resolve, deadline - Date.now())));
      await Promise.race([this.#draining, expired]);
      clearTimeout(timer);
    }
    if (this.#orphans.length > 0 && this.#db) {
      // Best effort: an orphan left behind would be replayed by the next open().
      await this.#db
        .collection<JournalEntry>(JOURNAL_COLLECTION)
        .deleteMany({ _id: { $in: this.#orphans } })
        .then(() => (this.#orphans.length = 0))
        .catch(() => undefined);
    }
    this.#client = undefined;
    this.#db = undefined;
    this.#checker = undefined;
    await client.close();
  }

  /**
   * Claims the database for this server or cluster (see `mongo-writer-lease.ts`); a store opened
   * without `replayJournal` replays the journal now, once it is the writer.
   */
  async claimWriter(claim: WriterClaim, onLost: () => void): Promise<WriterLease> {
    const db = this.#openDb();
    const lease = await claimMongoWriter(db, this.#dbName, claim, onLost, this.#writerTimings);
    if (!this.#replays) {
      try {
        await this.#replayJournal(db);
      } catch (error) {
        await lease.release();
        throw toStorageError(error, 'open');
      }
    }
    return lease;
  }

  /**
   * Cluster mode: makes this node's lease on a shard the only one storage accepts commits under,
   * and applies what earlier owners committed and left unapplied. Call before any actor of the
   * shard loads. Throws FencedError if a newer lease on the shard already reached storage.
   */
  async claimShard(fence: Fence): Promise<void> {
    const db = this.#openDb();
    try {
      await this.#fences.claim(db, fence, (ops, replaying) => applyOps(db, ops, replaying));
    } catch (error) {
      throw error instanceof FencedError ? error : toStorageError(error, 'claim shard');
    }
  }

  /** Cluster mode: tidies a shard this node hands over once its actors are passivated (best effort). */
  async releaseShard(fence: Fence): Promise<void> {
    const db = this.#db;
    if (db) await this.#fences.settle(db, fence).catch(() => undefined);
  }

  async ping(): Promise<void> {
    const db = this.#openDb();
    try {
      await db.command({ ping: 1 });
    } catch (error) {
      throw toStorageError(error, 'ping');
    }
  }

  async get<T extends Doc = Doc>(collection: string, id: string): Promise<T | undefined> {
    const mongo = this.#collection(collection);
    await this.#recovered();
    try {
      const doc = await mongo.findOne({ _id: id } as Document);
      return (doc ?? undefined) as T | undefined;
    } catch (error) {
      throw toStorageError(error, 'get');
    }
  }

  async find<T extends Doc = Doc>(collection: string, filter: Filter, options: FindOptions = {}): Promise<T[]> {
    const mongo = this.#collection(collection);
    validateFilter(filter);
    validateFindOptions(options);
    if (options.limit === 0) return [];
    await this.#recovered();
    try {
      let cursor = mongo.find(toMongoFilter(filter), { sort: normalizeSort(options.sort) as Array<[string, 1 | -1]> });
      if (options.skip) cursor = cursor.skip(options.skip);
      if (options.limit !== undefined) cursor = cursor.limit(options.limit);
      return (await cursor.toArray()) as unknown as T[];
    } catch (error) {
      throw toStorageError(error, 'find');
    }
  }

  async count(collection: string, filter: Filter): Promise<number> {
    const mongo = this.#collection(collection);
    validateFilter(filter);
    await this.#recovered();
    try {
      return await mongo.countDocuments(toMongoFilter(filter));
    } catch (error) {
      throw toStorageError(error, 'count');
    }
  }

  async *scan<T extends Doc = Doc>(collection: string, filter: Filter, options: ScanOptions = {}): AsyncIterable<T[]> {
    const mongo = this.#collection(collection);
    validateFilter(filter);
    const batchSize = options.batchSize ?? 1000;
    if (!(Number.isSafeInteger(batchSize) && batchSize > 0)) throw new TypeError('batchSize must be a positive integer');
    const projection = checkProjection(options.projection);
    await this.#recovered();
    yield* scanCollection(mongo, toMongoFilter(filter), batchSize, projection) as AsyncIterable<T[]>;
  }

  commit(ops: readonly WriteOp[], fence?: Fence): Promise<void> {
    try {
      if (this.#readOnly) throw new TypeError('this MongoDB store was opened read-only');
      validateOps(ops, this.#specs);
      this.#openDb();
    } catch (error) {
      return Promise.reject(error);
    }
    if (ops.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const caller: Caller = { ops, fence, resolve, reject };
      this.#queue.push(caller);
      if (this.#recovery) this.#armTimeout(caller);
      this.#kick();
    });
  }

  /** Starts draining the queue unless a drain is under way (which will pick new callers up). */
  #kick(): void {
    if (this.#draining || this.#queue.length === 0) return;
    this.#draining = (async () => {
      // One microtask of delay lets commits issued in the same tick share a group.
      await null;
      try {
        await this.#drain();
      } finally {
        this.#draining = undefined;
        // A caller may have queued after the loop's last check but before this point.
        this.#kick();
      }
    })();
  }

  #openDb(): Db {
    if (!this.#db || this.#closing) throw new StorageUnavailableError('MongoDB store is not open');
    return this.#db;
  }

  #collection(name: string): Collection<Document> {
    const db = this.#openDb();
    if (!this.#specs.has(name)) throw new TypeError(`unknown collection ${name}`);
    return db.collection(name);
  }

  /** Waits until no group is half-applied, giving up on a pending recovery after the timeout. */
  async #recovered(): Promise<void> {
    if (this.#applying) await this.#applying;
    const recovery = this.#recovery;
    if (!recovery) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new StorageUnavailableError('MongoDB unavailable: a committed batch is still being applied')),
        this.#timeoutMs,
      );
    });
    try {
      await Promise.race([recovery, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Refuses a queued caller that is still waiting when the timeout expires (nothing applied). */
  #armTimeout(caller: Caller): void {
    if (caller.timer) return;
    caller.timer = setTimeout(() => {
      const at = this.#queue.indexOf(caller);
      if (at < 0) return;
      this.#queue.splice(at, 1);
      caller.reject(new StorageUnavailableError('MongoDB unavailable: a committed batch is still being applied'));
    }, this.#timeoutMs);
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const group: Caller[] = [];
      let size = 0;
      while (this.#queue.length > 0 && (group.length === 0 || size + this.#queue[0]!.ops.length <= MAX_GROUP_OPS)) {
        const caller = this.#queue.shift()!;
        clearTimeout(caller.timer);
        group.push(caller);
        size += caller.ops.length;
      }
      await this.#runGroup(group);
    }
  }

  async #runGroup(group: Caller[]): Promise<void> {
    const db = this.#db;
    if (!db) {
      for (const caller of group) caller.reject(new StorageUnavailableError('MongoDB store is not open'));
      return;
    }
    let accepted: Caller[];
    try {
      const outcome = await this.#checker!.check(group);
      for (const [caller, error] of outcome.rejected) caller.reject(error);
      accepted = outcome.accepted;
    } catch (error) {
      const failure = toStorageError(error, 'commit');
      for (const caller of group) caller.reject(failure);
      return;
    }
    if (accepted.length === 0) return;
    const fenced = accepted.filter((caller) => caller.fence !== undefined);
    if (fenced.length > 0) {
      if (fenced.length < accepted.length) await this.#runPlain(db, accepted.filter((caller) => caller.fence === undefined));
      await this.#runFenced(db, fenced);
      return;
    }
    await this.#runPlain(db, accepted);
  }

  /** A group without fences: one op applied directly, more through the journal. */
  async #runPlain(db: Db, accepted: Caller[]): Promise<void> {
    const ops = accepted.flatMap((caller) => caller.ops);
    if (ops.length === 1) {
      await this.#runSingle(db, accepted[0]!);
      return;
    }
    const journal = db.collection<JournalEntry>(JOURNAL_COLLECTION);
    const seq = (this.#lastSeq = Math.max(this.#lastSeq + 1, Date.now() * 1000));
    try {
      if (this.#orphans.length > 0) {
        await journal.deleteMany({ _id: { $in: this.#orphans } });
        this.#orphans.length = 0;
      }
      await journal.insertOne({ _id: seq, ops, createdAt: new Date() });
    } catch (error) {
      if (isAmbiguousWriteError(error)) this.#orphans.push(seq);
      const failure = isUnavailableError(error)
        ? toStorageError(error, 'commit')
        : new StorageUnavailableError('MongoDB refused the commit journal', { cause: error });
      for (const caller of accepted) caller.reject(failure);
      return;
    }
    let applied!: () => void;
    this.#applying = new Promise<void>((resolve) => (applied = resolve));
    try {
      await applyOps(db, ops, false);
      this.#applying = undefined;
      applied();
      await journal.deleteOne({ _id: seq });
    } catch {
      const recovery = this.#recover(db, seq, ops);
      this.#recovery = recovery;
      this.#applying = undefined;
      applied();
      for (const caller of this.#queue) this.#armTimeout(caller);
      await recovery;
      this.#recovery = undefined;
    }
    for (const caller of accepted) caller.resolve();
  }

  /**
   * A group of cluster commits (see `mongo-fences.ts`): per shard, one conditional update of
   * its fence document is the commit point; then the ops of the shards that landed are applied.
   * If applying fails, it is retried (reads and commits wait) for as long as this node still
   * holds each shard; a shard whose lease ran out meanwhile is left to its next owner, which
   * re-applies it before anything of the shard is read.
   */
  async #runFenced(db: Db, callers: Caller[]): Promise<void> {
    const parts = new Map<number, ShardPart<Caller>>();
    for (const caller of callers) {
      const fence = caller.fence!;
      const part = parts.get(fence.shard);
      if (!fence.valid() || (part !== undefined && part.fence.epoch > fence.epoch)) {
        caller.reject(new FencedError(fence.shard, fence.epoch, 'lease'));
      } else if (part === undefined || part.fence.epoch < fence.epoch) {
        for (const stale of part?.callers ?? []) stale.reject(new FencedError(fence.shard, stale.fence!.epoch, 'lease'));
        parts.set(fence.shard, { fence, callers: [caller], ops: [...caller.ops] });
      } else {
        part.callers.push(caller);
        part.ops.push(...caller.ops);
      }
    }
    if (parts.size === 0) return;
    const seq = (this.#lastSeq = Math.max(this.#lastSeq + 1, Date.now() * 1000));
    let landed: Set<number>;
    try {
      landed = await this.#fences.commit(db, seq, parts);
    } catch (error) {
      // Whatever landed is removed by the shard's next commit, before anyone relies on it.
      for (const part of parts.values()) this.#fences.applied(part.fence.shard, part.fence.epoch, seq);
      const failure = toStorageError(error, 'commit');
      for (const part of parts.values()) for (const caller of part.callers) caller.reject(failure);
      return;
    }
    let pending: ShardPart<Caller>[] = [];
    for (const part of parts.values()) {
      if (landed.has(part.fence.shard)) pending.push(part);
      else for (const caller of part.callers) caller.reject(new FencedError(part.fence.shard, part.fence.epoch, 'storage'));
    }
    let applied!: () => void;
    this.#applying = new Promise<void>((resolve) => (applied = resolve));
    for (let attempt = 0; pending.length > 0; attempt++) {
      const kept = pending.filter((part) => part.fence.valid());
      for (const part of pending) {
        if (kept.includes(part)) continue;
        for (const caller of part.callers) caller.reject(new AmbiguousCommitError(`shard ${part.fence.shard} moved while its commit was being applied`));
      }
      pending = kept;
      if (pending.length === 0) break;
      try {
        const current = pending;
        await applyOps(db, current.flatMap((part) => part.ops), attempt > 0, () => current.every((part) => part.fence.valid()));
        break;
      } catch {
        if (attempt === 0) {
          let recovered!: () => void;
          this.#recovery = new Promise<void>((resolve) => (recovered = resolve));
          this.#applying = undefined;
          applied();
          applied = recovered;
          for (const caller of this.#queue) this.#armTimeout(caller);
        }
        await sleep(RECOVERY_BACKOFF_MS[Math.min(attempt, RECOVERY_BACKOFF_MS.length - 1)]!);
      }
    }
    this.#applying = undefined;
    this.#recovery = undefined;
    applied();
    for (const part of pending) {
      this.#fences.applied(part.fence.shard, part.fence.epoch, seq);
      for (const caller of part.callers) caller.resolve();
    }
  }

  async #runSingle(db: Db, caller: Caller): Promise<void> {
    const op = caller.ops[0]!;
    try {
      await applyOps(db, caller.ops, false);
      caller.resolve();
    } catch (error) {
      if (!isDuplicateKeyError(error)) {
        caller.reject(toStorageError(error, 'commit'));
        return;
      }
      const index = await violatedIndex(db, op, this.#specs.get(op.collection)!).catch(() => undefined);
      caller.reject(new DuplicateKeyError(op.collection, index ?? ID_INDEX, { cause: error }));
    }
  }

  /** Re-applies a durable group until it lands, then clears its journal entry. */
  async #recover(db: Db, seq: number, ops: readonly WriteOp[]): Promise<void> {
    const journal = db.collection<JournalEntry>(JOURNAL_COLLECTION);
    for (let attempt = 0; ; attempt++) {
      await sleep(RECOVERY_BACKOFF_MS[Math.min(attempt, RECOVERY_BACKOFF_MS.length - 1)]!);
      // After close() the journal entry stays for the next open() to replay.
      if (!this.#client) return;
      try {
        await applyOps(db, ops, true);
        await journal.deleteOne({ _id: seq });
        return;
      } catch {
        // Still unreachable (or not yet); the backoff above paces the next attempt.
      }
    }
  }
}
