/**
 * Moderators: people a tenant invites to moderate its comments (an email, a name, optionally
 * one of its users), and the count of what each did through the moderation actions. Pure
 * rules the moderators actor calls.
 */
import { checkEmail } from '../page/comment-rules.js';
import { ApiError } from '../../engine/errors.js';
import type { CollectionSpec, Doc } from '../../storage/store.js';

export const MODERATORS = 'moderators';

export const moderatorCollections: readonly CollectionSpec[] = [
  {
    name: MODERATORS,
    indexes: [
      { name: 'by_tenant', fields: ['tenantId', 'createdAt'] },
      // Opening an invitation finds its moderator by the link's hash.
      { name: 'by_invite', fields: ['inviteHash'] },
    ],
  },
];

/** What a moderator's actions count (the API's counters). */
export const MODERATOR_COUNTERS = [
  'markReviewedCount',
  'deletedCount',
  'markedSpamCount',
  'markedNotSpamCount',
  'approvedCount',
  'unApprovedCount',
  'editedCount',
  'bannedCount',
  'unFlaggedCount',
] as const;

export type ModeratorCounter = (typeof MODERATOR_COUNTERS)[number];
export type ModeratorCounts = Partial<Record<ModeratorCounter, number>>;

/** Fields only the server sets: refused in a create or change. */
export const MODERATOR_READ_ONLY = [...MODERATOR_COUNTERS, 'acceptedInvite', 'verificationId', 'createdAt'] as const;

/** How long an invitation may be accepted. */
export const INVITE_MS = 30 * 24 * 60 * 60 * 1000;

export interface ModeratorDoc extends Doc, Record<ModeratorCounter, number> {
  tenantId: string;
  name: string;
  /** Lower-cased; unique among the tenant's moderators. */
  email: string;
  userId: string | null;
  acceptedInvite: boolean;
  /** The id of the invitation last sent (never its secret). */
  verificationId: string | null;
  /** ISO date-time. */
  createdAt: string;
  moderationGroupIds: string[] | null;
  /** SHA-256 of the invitation link's secret, while one may be accepted. */
  inviteHash: string | null;
  /** ms since 1970. */
  inviteExpiresAt: number | null;
}

/** Refuses what only the server sets, and a change of tenant. */
export function checkModeratorInput(input: Readonly<Record<string, unknown>>, tenantId: string): void {
  for (const field of MODERATOR_READ_ONLY) if (input[field] !== undefined) throw new ApiError('unexpected-param', `${field} is set by the server.`);
  if (input['tenantId'] !== undefined && input['tenantId'] !== tenantId) throw new ApiError('tenant-id-immutable');
}

/** The moderator after a create (`current` null) or a change: name and email required and checked. */
export function writeModerator(current: ModeratorDoc | null, base: Pick<ModeratorDoc, '_id' | 'tenantId' | 'createdAt'>, input: Readonly<Record<string, unknown>>): ModeratorDoc {
  checkModeratorInput(input, base.tenantId);
  const next: ModeratorDoc = current !== null ? { ...current } : ({ ...base, name: '', email: '', userId: null, acceptedInvite: false, verificationId: null, moderationGroupIds: null, inviteHash: null, inviteExpiresAt: null } as ModeratorDoc);
  if (current === null) for (const counter of MODERATOR_COUNTERS) next[counter] = 0;
  if (current === null || input['name'] !== undefined) {
    const name = typeof input['name'] === 'string' ? input['name'].trim() : '';
    if (name === '') throw new ApiError('name-required', 'A moderator needs a name.');
    next.name = name;
  }
  if (current === null || input['email'] !== undefined) {
    const email = checkEmail(typeof input['email'] === 'string' ? input['email'] : null);
    if (email === null) throw new ApiError('email-required', 'A moderator needs an email.');
    next.email = email.toLowerCase();
  }
  if (input['userId'] !== undefined) next.userId = (input['userId'] as string | null) || null;
  if (input['moderationGroupIds'] !== undefined) next.moderationGroupIds = input['moderationGroupIds'] as string[] | null;
  return next;
}

/** The API shape (`Moderator`): never the invitation's hash. */
export function moderatorView(doc: ModeratorDoc): Record<string, unknown> {
  const { inviteHash: _hash, inviteExpiresAt: _expires, ...rest } = doc;
  return { ...rest, id: doc._id };
}
