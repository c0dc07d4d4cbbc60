/**
 * Badges (docs/badges.md): a tenant's catalog (`TenantBadge`), the badges its users hold
 * (`UserBadge`), their progress toward automatic ones (`UserBadgeProgress`), and the progress
 * events page actors write with the comments and votes that cause them. Pure data and rules.
 */
import type { CollectionSpec, Doc } from '../../storage/store.js';

/** Collections of badges. */
export const BADGE_COLLECTIONS = {
  catalog: 'tenantBadges',
  userBadges: 'userBadges',
  progress: 'userBadgeProgress',
  /** Progress events owed to users, written by page actors (an outbox). */
  events: 'badgeProgressEvents',
} as const;

/** Badge types. 0 to 2 are the specification's; 3 (veteran) is this server's name for the veteran threshold. */
export const BADGE_TYPES = {
  commentCount: 0,
  commentUpVotes: 1,
  commentReplies: 2,
  veteran: 3,
  manual: 4,
} as const;

/** Types that progress counts feed (the key of `progress` is the type as text). */
export const COUNTED_TYPES: readonly number[] = [BADGE_TYPES.commentCount, BADGE_TYPES.commentUpVotes, BADGE_TYPES.commentReplies];

/** Most badges a tenant's catalog holds. */
export const MAX_CATALOG = 500;
/** Badges an SSO user's `badgeConfig` may name (global). */
export const MAX_SSO_BADGES = 30;

/** How a badge is earned; a user's badge keeps the rule it was awarded by. */
export interface BadgeRule {
  type: number;
  threshold: number;
  veteranUserThresholdMillis: number;
}

/** How a badge looks: the catalog badge's, copied to every user's badge made from it. */
export interface BadgeLook {
  description: string;
  displayLabel: string;
  displaySrc: string | null;
  backgroundColor: string | null;
  borderColor: string | null;
  textColor: string | null;
  cssClass: string | null;
}

/** The look of `badge` alone (no other field of it). */
export function lookOf(badge: BadgeLook): BadgeLook {
  return {
    description: badge.description,
    displayLabel: badge.displayLabel,
    displaySrc: badge.displaySrc,
    backgroundColor: badge.backgroundColor,
    borderColor: badge.borderColor,
    textColor: badge.textColor,
    cssClass: badge.cssClass,
  };
}

/** A badge of a tenant's catalog. */
export interface TenantBadgeDoc extends Doc, BadgeRule, BadgeLook {
  tenantId: string;
  createdByUserId: string | null;
  createdAt: string;
  enabled: boolean;
  urlId: string | null;
  uses: number;
  name: string;
  isAwaitingReprocess: boolean;
  isAwaitingDeletion: boolean;
  replacesBadgeId: string | null;
}

/** A badge a user holds. */
export interface UserBadgeDoc extends Doc, BadgeRule, BadgeLook {
  tenantId: string;
  userId: string;
  badgeId: string;
  createdAt: string;
  receivedAt: string;
  displayedOnComments: boolean;
  order: number;
  urlId: string | null;
}

/** A user's progress: counts per badge type (`"0"`, `"1"`, `"2"`). */
export interface ProgressDoc extends Doc {
  tenantId: string;
  userId: string;
  firstCommentId: string;
  firstCommentDate: string;
  progress: Record<string, number>;
}

/** One step of a user's progress, owed until their badge actor applies it. */
export interface BadgeEventDoc extends Doc {
  tenantId: string;
  userId: string;
  type: number;
  delta: number;
  /** The comment behind it (for a first comment, the user's first comment). */
  commentId: string;
  /** Epoch ms when it was written. */
  at: number;
}

/** Storage of badges: every index starts with the tenant, so a tenant's deletion finds them. */
export const badgeCollections: readonly CollectionSpec[] = [
  { name: BADGE_COLLECTIONS.catalog, indexes: [{ name: 'by_tenant', fields: ['tenantId'] }] },
  {
    name: BADGE_COLLECTIONS.userBadges,
    indexes: [
      { name: 'by_tenant_user', fields: ['tenantId', 'userId'] },
      // One badge of the catalog per user: a second award is refused by storage too.
      { name: 'by_tenant_user_badge', fields: ['tenantId', 'userId', 'badgeId'], unique: true },
      { name: 'by_tenant_badge', fields: ['tenantId', 'badgeId'] },
    ],
  },
  { name: BADGE_COLLECTIONS.progress, indexes: [{ name: 'by_tenant_user', fields: ['tenantId', 'userId'], unique: true }] },
  // An outbox: written with every counted vote and comment, deleted moments later, so it stays
  // small and carries no index (each would cost every vote two more writes). The sweep reads it
  // by `_id`, which sorts by time; the rare reads by user or tenant scan it.
  { name: BADGE_COLLECTIONS.events, indexes: [], tenantData: { field: 'tenantId' } },
];

/** The API shape of a catalog badge (`TenantBadge`). */
export function tenantBadgeView(doc: TenantBadgeDoc): Record<string, unknown> {
  const { _id, ...rest } = doc;
  return { _id, id: _id, ...rest };
}

/** The API shape of a user's badge (`UserBadge`). */
export function userBadgeView(doc: UserBadgeDoc): Record<string, unknown> {
  const view: Record<string, unknown> = {
    _id: doc._id,
    userId: doc.userId,
    badgeId: doc.badgeId,
    fromTenantId: doc.tenantId,
    createdAt: doc.createdAt,
    type: doc.type,
    threshold: doc.threshold,
    ...lookOf(doc),
    veteranUserThresholdMillis: doc.veteranUserThresholdMillis,
    displayedOnComments: doc.displayedOnComments,
    receivedAt: doc.receivedAt,
    order: doc.order,
    urlId: doc.urlId,
  };
  return view;
}

/** The API shape of progress (`UserBadgeProgress`). */
export function progressView(doc: ProgressDoc): Record<string, unknown> {
  return { _id: doc._id, tenantId: doc.tenantId, userId: doc.userId, firstCommentId: doc.firstCommentId, firstCommentDate: doc.firstCommentDate, progress: { ...doc.progress } };
}

/** The badge as comments show it (`CommentUserBadgeInfo`): public fields only. */
export function commentBadgeInfo(doc: UserBadgeDoc): Record<string, unknown> {
  return { id: doc.badgeId, type: doc.type, ...lookOf(doc) };
}

/** A user's badge made from a catalog badge. */
export function awardOf(id: string, badge: TenantBadgeDoc, userId: string, nowIso: string, displayedOnComments: boolean): UserBadgeDoc {
  return {
    _id: id,
    tenantId: badge.tenantId,
    userId,
    badgeId: badge._id,
    createdAt: nowIso,
    receivedAt: nowIso,
    type: badge.type,
    threshold: badge.threshold,
    ...lookOf(badge),
    veteranUserThresholdMillis: badge.veteranUserThresholdMillis,
    displayedOnComments,
    order: 0,
    urlId: badge.urlId,
  };
}

/** The user's badge with the display fields of its catalog badge as they are now. */
export function refreshed(held: UserBadgeDoc, badge: TenantBadgeDoc): UserBadgeDoc {
  return { ...held, ...lookOf(badge) };
}

/**
 * Whether progress earns a badge automatically: an enabled counted badge whose threshold the
 * user's count reached, or an enabled veteran badge once the user's first comment is older than
 * its `veteranUserThresholdMillis`.
 */
export function earns(badge: TenantBadgeDoc, progress: ProgressDoc, nowMs: number): boolean {
  if (!badge.enabled || badge.isAwaitingDeletion) return false;
  if (badge.type === BADGE_TYPES.veteran) {
    const first = Date.parse(progress.firstCommentDate);
    return Number.isFinite(first) && badge.veteranUserThresholdMillis > 0 && nowMs - first >= badge.veteranUserThresholdMillis;
  }
  if (!COUNTED_TYPES.includes(badge.type)) return false;
  return (progress.progress[String(badge.type)] ?? 0) >= Math.max(1, badge.threshold);
}

/** The badge actor of a user of a tenant: `<tenantId>:<userId>` (user ids may hold colons). */
export function badgeUserActorId(tenantId: string, userId: string): string {
  return `${tenantId}:${userId}`;
}
