/** The messages of a tenant's moderators actor (`moderators:<tenantId>`, moderators-actor.ts). */
import { defineKind } from '../../engine/actor.js';
import type { ModeratorCounts, ModeratorDoc } from './moderator-model.js';

/** Moderators listed per page. */
export const MODERATOR_PAGE_SIZE = 100;

export type ModeratorsProtocol = {
  list: { in: { skip: number; limit: number }; out: ModeratorDoc[] };
  get: { in: { id: string }; out: ModeratorDoc };
  create: { in: { input: Readonly<Record<string, unknown>> }; out: ModeratorDoc };
  update: { in: { id: string; input: Readonly<Record<string, unknown>> }; out: ModeratorDoc };
  remove: { in: { id: string }; out: ModeratorDoc };
  /** Records a new invitation (replacing any earlier one), valid until `expiresAt`. */
  invite: { in: { id: string; hash: string; expiresAt: number }; out: ModeratorDoc };
  /** Accepts the invitation whose link hashes to `hash`; links the tenant's user with the moderator's email, if any. */
  accept: { in: { id: string; hash: string; userId: string | null }; out: ModeratorDoc };
  /** Adds to the counters of the moderators who are this user. */
  count: { in: { userId: string; counts: ModeratorCounts }; out: null };
  /** Every moderator's email (billing: one person is not billed twice). */
  emails: { in: null; out: string[] };
};

/** `moderators:<tenantId>` */
export const ModeratorsKind = defineKind<ModeratorsProtocol>('moderators');
