/**
 * The moderation log of comments (`ModerationAPICommentLog`), moderators' ban preferences and
 * manual trust factors: what the moderation actor stores besides bans.
 */
import type { CollectionSpec, Doc } from '../../storage/store.js';
import { SPENT_PROOFS } from './spent-proofs.js';
import { BANNED_USERS } from './ban-model.js';

/** One entry of a comment's moderation log. */
export const MODERATION_LOGS = 'moderation_logs';
/** Per moderator: the ban options last used. */
export const BAN_PREFERENCES = 'ban_preferences';
/** Per user: a trust factor set by hand. */
export const TRUST_FACTORS = 'trust_factors';
/** Moderators' export jobs. */
export const MODERATION_EXPORTS = 'moderation_exports';
/** Per tenant: its spam-defence settings (`_id` is the tenant id). */
export const MODERATION_SETTINGS = 'moderation_settings';
/** Per tenant: its spam classifier (`_id` is the tenant id). */
export const SPAM_MODELS = 'spam_models';

/** Actions the log records (the API's `actionName`). */
export const MODERATION_ACTIONS = {
  approved: 'approved',
  unapproved: 'unapproved',
  spam: 'marked-spam',
  notSpam: 'marked-not-spam',
  reviewed: 'marked-reviewed',
  unreviewed: 'marked-unreviewed',
  removed: 'removed',
  restored: 'restored',
  flagged: 'flagged',
  unflagged: 'un-flagged',
  edited: 'edited',
  votesAdjusted: 'votes-adjusted',
  voted: 'voted',
  banned: 'banned-user',
  banUndone: 'ban-undone',
  threadClosed: 'thread-closed',
  threadReopened: 'thread-reopened',
  badgeAwarded: 'badge-awarded',
  badgeRemoved: 'badge-removed',
} as const;

export type ModerationAction = (typeof MODERATION_ACTIONS)[keyof typeof MODERATION_ACTIONS];

export interface ModerationLogDoc extends Doc {
  tenantId: string;
  commentId: string;
  /** ISO date-time. */
  date: string;
  username: string;
  userId: string;
  actionName: ModerationAction;
  /** Escaped text: safe to show as HTML. */
  messageHTML: string;
}

export interface BanPreferenceDoc extends Doc {
  tenantId: string;
  userId: string;
  shouldBanEmail: boolean;
  shouldBanByIP: boolean;
  lastBanType: string;
  lastBanDuration: string;
}

export interface TrustFactorDoc extends Doc {
  tenantId: string;
  userId: string;
  /** 0 to 100. */
  trustFactor: number;
}

/** Collections of the moderation actor. */
export const moderationCollections: readonly CollectionSpec[] = [
  { name: BANNED_USERS, indexes: [{ name: 'by_tenant', fields: ['tenantId', 'createdAt'] }] },
  { name: MODERATION_LOGS, indexes: [{ name: 'by_comment', fields: ['tenantId', 'commentId', 'date'] }] },
  { name: BAN_PREFERENCES, indexes: [{ name: 'by_tenant', fields: ['tenantId', 'userId'] }] },
  { name: TRUST_FACTORS, indexes: [{ name: 'by_tenant', fields: ['tenantId', 'userId'] }] },
  { name: SPAM_MODELS, indexes: [{ name: 'by_tenant', fields: ['tenantId'] }] },
  { name: MODERATION_SETTINGS, indexes: [{ name: 'by_tenant', fields: ['tenantId'] }] },
  { name: MODERATION_EXPORTS, indexes: [{ name: 'by_tenant', fields: ['tenantId', 'createdAt'] }] },
  { name: SPENT_PROOFS, indexes: [{ name: 'by_tenant', fields: ['tenantId', 'expiresAt'] }] },
];

/** Text as HTML. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A tenant's spam-defence settings. */
export interface ModerationSettings {
  /** Anonymous commenters must send a proof of work with each comment. */
  readonly requireProofOfWork: boolean;
}

/** A moderator's export job: which comments, and how far it got. */
export interface ModerationExportDoc extends Doc {
  tenantId: string;
  moderatorUserId: string;
  /** The storage filter of the export (already limited to the moderator's groups). */
  filter: Record<string, unknown>;
  /** The text terms of the export (`ModerationFilter`). */
  text: Record<string, unknown>;
  /** `pending` until counted, then `done` (or `failed`). */
  jobStatus: 'pending' | 'done' | 'failed';
  recordCount: number;
  createdAt: string;
}
