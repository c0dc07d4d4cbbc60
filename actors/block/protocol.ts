/**
 * Blocks (`blocks:<tenantId>:<blocker key>`): the authors one user (or anonymous session) has
 * blocked. Authors are keyed like comments' `authorKey` (`u:<userId>` or `e:<email>`).
 */
import { defineKind } from '../../engine/actor.js';
import type { Doc } from '../../storage/store.js';

export const BLOCKS = 'blocks';

export interface BlockDoc extends Doc {
  tenantId: string;
  blockerKey: string;
  authorKey: string;
  createdAt: string;
}

export type BlockProtocol = {
  block: { in: { authorKey: string }; out: null };
  unblock: { in: { authorKey: string }; out: null };
  /** The blocked author keys. */
  list: { in: null; out: string[] };
};

export const BlockKind = defineKind<BlockProtocol>('blocks');

export function blockActorId(tenantId: string, blockerKey: string): string {
  return `${tenantId}:${blockerKey}`;
}
