/**
 * Bans (docs/moderation.md): who a tenant refused, how they are matched, and when a ban ends.
 * Pure rules the moderation actor calls.
 */
import { clock } from '../../engine/clock.js';
import type { Doc } from '../../storage/store.js';

/** Collection of bans (the API's `APIBannedUser`). */
export const BANNED_USERS = 'banned_users';

/** How a ban matches a writer (the API's `BannedUserMatchType`). */
export type BanMatchType = 'userId' | 'email' | 'email-wildcard' | 'IP';

/** A stored ban. */
export interface BanDoc extends Doc {
  tenantId: string;
  /** The banned user id, or the public anonymous id of a widget session (`anon-…`). */
  userId: string | null;
  /** Lower-cased; with `hasEmailWildcard`, `*@domain`. */
  email: string | null;
  username: string | null;
  ipHash: string | null;
  createdAt: string;
  bannedByUserId: string;
  bannedCommentText: string;
  /** `shadow` or `normal`. */
  banType: string;
  /** ISO date-time; null: forever. */
  bannedUntil: string | null;
  hasEmailWildcard: boolean;
  banReason?: string;
  /** Comments the ban changed, as they were before (what undoing it restores); never answered. */
  affected?: AffectedComment[];
}

/** A comment a ban marked (and perhaps removed), with the fields it had before. */
export interface AffectedComment {
  readonly id: string;
  readonly isBannedUser: boolean;
  readonly isDeleted: boolean;
  readonly approved: boolean;
}

/** Who is writing, as far as bans can tell. */
export interface Writer {
  readonly userId: string | null;
  readonly anonUserId: string | null;
  readonly email: string | null;
  readonly ipHash: string | null;
}

/** Whether the ban is still in force at `now` (an expired ban stops applying by itself). */
export function inForce(ban: BanDoc, now = clock.now()): boolean {
  return ban.bannedUntil === null || Date.parse(ban.bannedUntil) > now;
}

/** The domain of an email, lower-cased, or null. */
export function emailDomain(email: string | null): string | null {
  if (!email) return null;
  const at = email.lastIndexOf('@');
  return at < 0 ? null : email.slice(at + 1).trim().toLowerCase() || null;
}

/** How `ban` matches `writer`, if it does. */
export function matchOf(ban: BanDoc, writer: Writer): BanMatchType | null {
  if (ban.userId !== null && (ban.userId === writer.userId || ban.userId === writer.anonUserId)) return 'userId';
  const email = writer.email?.trim().toLowerCase() ?? null;
  if (ban.email !== null && email !== null) {
    if (ban.hasEmailWildcard) {
      if (ban.email === `*@${emailDomain(email)}`) return 'email-wildcard';
    } else if (ban.email === email) return 'email';
  }
  if (ban.ipHash !== null && ban.ipHash === writer.ipHash) return 'IP';
  return null;
}

/** The API shape of a ban (`APIBannedUser`). */
export function banView(ban: BanDoc): Record<string, unknown> {
  const { affected: _affected, ...view } = ban as BanDoc & Record<string, unknown>;
  if (view['banReason'] === undefined) delete view['banReason'];
  return view;
}
