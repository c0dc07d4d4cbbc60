/** Storage could not be reached or failed; nothing of the failed call was applied. */
export class StorageUnavailableError extends Error {
  override readonly name = 'StorageUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A write would have violated a unique index; nothing of the batch was applied. */
export class DuplicateKeyError extends Error {
  override readonly name = 'DuplicateKeyError';
  constructor(
    readonly collection: string,
    readonly index: string,
    options?: { cause?: unknown },
  ) {
    super(`duplicate key in ${collection} (index ${index})`, options);
  }
}

/** A cluster commit from a node whose lease on the shard is gone; nothing was applied. */
export class FencedError extends Error {
  override readonly name = 'FencedError';
  constructor(
    readonly shard: number,
    readonly epoch: number,
    /** `storage`: the shard's epoch in storage was newer; `lease`: the node knew its lease ran out and did not try. */
    readonly by: 'storage' | 'lease',
  ) {
    super(by === 'storage' ? `shard ${shard} moved past epoch ${epoch}: commit refused by storage` : `shard ${shard}: the lease of epoch ${epoch} ran out; commit not sent`);
  }
}

/** Another server (or cluster) is the storage's writer. */
export class WriterHeldError extends Error {
  override readonly name = 'WriterHeldError';
}

/**
 * A cluster commit that reached its commit point but that this node could not finish applying
 * before its lease ran out: the shard's next owner applies it. Outcome unknown to the caller.
 */
export class AmbiguousCommitError extends Error {
  override readonly name = 'AmbiguousCommitError';
}
