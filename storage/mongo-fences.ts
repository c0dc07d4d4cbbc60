/**
 * Fencing of cluster commits in the MongoDB adapter.
 *
 * In cluster mode a node commits for actors of the shards it leases, and each commit carries
 * the lease's epoch (see `Fence`). Each shard has one document in `_fences`:
 * `{_id: shard, epoch, open: {<entry>: {epoch, seq, ops}}}`. The commit point of a group's
 * writes for a shard is one conditional update of that document, `{_id: shard, epoch}`, that
 * stores the ops under a new entry: the condition and the journal entry are one atomic
 * single-document write, so a node whose shard has moved to a newer epoch can never commit
 * again, however late its request arrives. A shard's entries are removed once applied (by the
 * next commit's update on that shard, or when the shard is handed over), so `open` only ever
 * holds the newest few groups of the shard, in order.
 *
 * A node taking a shard over first raises its epoch (`claimShard`): from then on, older epochs
 * are refused. It then re-applies what is open, in (epoch, seq) order: groups the previous owner
 * committed but may not have applied before it died. Only then do the shard's actors activate.
 */
import type { AnyBulkWriteOperation, Collection, Db, Document } from 'mongodb';
import { FencedError } from './errors.js';
import type { Fence, WriteOp } from './store.js';

export const FENCE_COLLECTION = '_fences';

interface OpenEntry {
  epoch: number;
  seq: number;
  ops: WriteOp[];
}

interface FenceDoc {
  _id: number;
  epoch: number;
  open: Record<string, OpenEntry>;
}

/** Applies ops in order (replaying: inserts become upserts). */
export type ApplyOps = (ops: readonly WriteOp[], replaying: boolean) => Promise<void>;

function entryKey(epoch: number, seq: number): string {
  return `e${epoch}s${seq}`;
}

/** The part of a group one shard commits: its callers' ops, in order. */
export interface ShardPart<C> {
  readonly fence: Fence;
  readonly callers: C[];
  readonly ops: WriteOp[];
}

/**
 * Keeps, per shard, the entries this node committed and applied but has not removed yet; they
 * are removed by the shard's next commit, in the same update.
 */
export class FenceLedger {
  readonly #applied = new Map<number, string[]>();

  #fences(db: Db): Collection<FenceDoc> {
    return db.collection<FenceDoc>(FENCE_COLLECTION);
  }

  /**
   * The commit point of a group for several shards: one conditional update per shard. Returns
   * the shards whose update landed; the others were fenced off (nothing of them is stored).
   */
  async commit<C>(db: Db, seq: number, parts: ReadonlyMap<number, ShardPart<C>>): Promise<Set<number>> {
    const updates: AnyBulkWriteOperation<FenceDoc>[] = [];
    for (const [shard, part] of parts) {
      const update: Document = { $set: { [`open.${entryKey(part.fence.epoch, seq)}`]: { epoch: part.fence.epoch, seq, ops: part.ops } } };
      const done = this.#applied.get(shard);
      if (done !== undefined && done.length > 0) update['$unset'] = Object.fromEntries(done.map((key) => [`open.${key}`, '']));
      updates.push({ updateOne: { filter: { _id: shard, epoch: part.fence.epoch }, update } });
    }
    const result = await this.#fences(db).bulkWrite(updates, { ordered: false });
    for (const shard of parts.keys()) this.#applied.delete(shard);
    if (result.matchedCount === parts.size) return new Set(parts.keys());
    const landed = await this.#fences(db)
      .find({ _id: { $in: [...parts.keys()] }, $or: [...parts].map(([shard, part]) => ({ _id: shard, [`open.${entryKey(part.fence.epoch, seq)}`]: { $exists: true } })) }, { projection: { _id: 1 } })
      .toArray();
    return new Set(landed.map((doc) => doc._id));
  }

  /** Notes that a shard's entry is applied: the shard's next commit removes it. */
  applied(shard: number, epoch: number, seq: number): void {
    const done = this.#applied.get(shard);
    if (done === undefined) this.#applied.set(shard, [entryKey(epoch, seq)]);
    else done.push(entryKey(epoch, seq));
  }

  /** Removes the applied entries of a shard now (before handing it over). */
  async settle(db: Db, fence: Fence): Promise<void> {
    const done = this.#applied.get(fence.shard);
    if (done === undefined || done.length === 0) return;
    this.#applied.delete(fence.shard);
    await this.#fences(db).updateOne({ _id: fence.shard, epoch: fence.epoch }, { $unset: Object.fromEntries(done.map((key) => [`open.${key}`, ''])) });
  }

  /**
   * Raises the shard's epoch to `fence.epoch` (refusing every older one from now on), then
   * applies what the shard's previous owners committed and left open. Throws FencedError if
   * the shard is already at this epoch or a newer one (another node claimed it since).
   */
  async claim(db: Db, fence: Fence, apply: ApplyOps): Promise<void> {
    const fences = this.#fences(db);
    this.#applied.delete(fence.shard);
    let doc = await fences.findOneAndUpdate({ _id: fence.shard, epoch: { $lt: fence.epoch } }, { $set: { epoch: fence.epoch } }, { returnDocument: 'after' });
    if (doc === null) {
      try {
        await fences.insertOne({ _id: fence.shard, epoch: fence.epoch, open: {} });
        return;
      } catch {
        // It exists: at this epoch or a newer one, or it was just raised by another claimant.
        doc = await fences.findOneAndUpdate({ _id: fence.shard, epoch: { $lt: fence.epoch } }, { $set: { epoch: fence.epoch } }, { returnDocument: 'after' });
        if (doc === null) throw new FencedError(fence.shard, fence.epoch, 'storage');
      }
    }
    const open = Object.entries(doc.open ?? {}).sort(([, a], [, b]) => a.epoch - b.epoch || a.seq - b.seq);
    if (open.length === 0) return;
    for (const [, entry] of open) {
      if (!fence.valid()) throw new FencedError(fence.shard, fence.epoch, 'lease');
      await apply(entry.ops, true);
    }
    await fences.updateOne({ _id: fence.shard, epoch: fence.epoch }, { $unset: Object.fromEntries(open.map(([key]) => [`open.${key}`, ''])) });
  }
}
