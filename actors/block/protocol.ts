/**
 * Blocks (`blocks:<tenantId>:<blocker key>`): the authors one user (or anonymous session) has
 * blocked. Authors are keyed like comments' `authorKey` (`u:<userId>` or `e:<email>`).
 */
import { defineKind } from '../../engine/actor.js';
import type { Doc } from '../../storage/store.js';

/** Collection of blocks. */
export const BLOCKS = 'blocks';

/** One author blocked by one reader. */
export interface BlockDoc extends Doc {
  tenantId: string;
  blockerKey: string;
  authorKey: string;
  createdAt: string;
}

/** Every message of a block actor. */
export type BlockProtocol = {
  block: { in: { authorKey: string }; out: null };
  unblock: { in: { authorKey: string }; out: null };
  /** The blocked author keys. */
  list: { in: null; out: string[] };
};

/**
 * Views a block actor publishes (read with `system.peek`, no message): `list`, the blocked author
 * keys (sorted), once the actor was asked for them, kept current by every block and unblock.
 */
export const BLOCK_VIEWS = { list: 'list' } as const;

/** `blocks:<tenantId>:<blocker key>` */
export const BlockKind = defineKind<BlockProtocol>('blocks');

/** The id of a reader's block actor. */
export function blockActorId(tenantId: string, blockerKey: string): string {
  return `${tenantId}:${blockerKey}`;
}
