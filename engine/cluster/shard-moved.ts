/**
 * Refusal of a message that never ran because its actor's shard is not (or no longer) held by
 * the node it reached. Never shown to clients: the router sends the message on to the shard's
 * current owner instead.
 */
export class ShardMoved extends Error {
  override readonly name = 'ShardMoved';

  constructor(readonly shard: number) {
    super(`shard ${shard} is not held here`);
  }
}
