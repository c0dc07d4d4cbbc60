/**
 * The stored comment. Owned by the page actor of its `urlId`; other actors may read a comment
 * from storage (its durable state) but never write it.
 */
import type { Doc } from '../../storage/store.js';

/** Collection of comments. */
export const COMMENTS = 'comments';

/** A hashtag entry of a comment (the API's `CommentUserHashTagInfo`). */
export interface CommentHashTag {
  readonly id: string;
  readonly tag: string;
  readonly url: string | null;
  /** Kept on edits even when the text no longer names it (added by hand for querying). */
  readonly retain?: boolean;
}

/** A mention entry, stored as given (`CommentUserMentionInfo`). */
export interface CommentMention {
  readonly id: string;
  readonly tag: string;
  readonly rawTag?: string;
  readonly type?: 'user' | 'sso';
  readonly sent?: boolean;
}

/** A comment as stored. */
export interface CommentDoc extends Doc {
  tenantId: string;
  urlId: string;
  url: string;
  pageTitle: string | null;
  parentId: string | null;
  comment: string;
  commentHTML: string;
  /** Null once its user was deleted with `commentDeleteMode` anonymize (answered as ""). */
  commenterName: string | null;
  commenterEmail: string | null;
  commenterLink: string | null;
  userId: string | null;
  anonUserId: string | null;
  avatarSrc: string | null;
  /** ISO date-time. */
  date: string;
  localDateString: string | null;
  localDateHours: number | null;
  votes: number;
  votesUp: number;
  votesDown: number;
  flagCount: number;
  reviewed: boolean;
  approved: boolean;
  isSpam: boolean;
  permNotSpam: boolean;
  isLocked: boolean;
  isPinned: boolean;
  isByAdmin: boolean;
  isByModerator: boolean;
  isBannedUser: boolean;
  isDeleted: boolean;
  isDeletedUser: boolean;
  locale: string | null;
  verified: boolean;
  verifiedDate: string | null;
  displayLabel: string | null;
  hasLinks: boolean;
  hasCode: boolean;
  hasImages: boolean;
  badges: unknown[] | null;
  /** Null once its user was deleted with `commentDeleteMode` anonymize. */
  mentions: CommentMention[] | null;
  hashTags: CommentHashTag[];
  /** Normalised tags (`hashTagKey`), indexed for tenant-wide hashtag search. */
  hashTagKeys: string[];
  /** Who wrote it, for blocks: `u:<userId>`, else `e:<email>`, else `a:<anonUserId>` (a widget session), else null (cannot be blocked). */
  authorKey: string | null;
  notificationSentForParent: boolean;
  expireAt: string | null;
  meta: Record<string, unknown> | null;
  moderationGroupIds: string[] | null;
  feedbackIds: string[];
  externalId: string | null;
  externalParentId: string | null;
  rating: number | null;
  domain: string | null;
  /** True when a poll is attached (stored in the polls collection under this comment's id). */
  hasPoll: boolean;
  /** The tenant's keyed hash of the writer's address (http/moderation/ip-hash.ts); moderators only. */
  ipHash?: string | null;
  /** Net votes a moderator added by hand (`adjust-comment-votes`): counted on top of the votes. */
  voteAdjustment?: number;
}

/**
 * A copy of a comment, to change without touching the one readers and pending writes may hold.
 * Written out field by field: V8 copies an object of this size with `{ ...doc }` forty times
 * slower, and every vote copies one. The compiler keeps the list complete (every field of
 * `CommentDoc` is required); a unit test checks that nothing is left out at run time.
 */
export function copyComment(doc: CommentDoc): CommentDoc {
  return {
    _id: doc._id,
    tenantId: doc.tenantId,
    urlId: doc.urlId,
    url: doc.url,
    pageTitle: doc.pageTitle,
    parentId: doc.parentId,
    comment: doc.comment,
    commentHTML: doc.commentHTML,
    commenterName: doc.commenterName,
    commenterEmail: doc.commenterEmail,
    commenterLink: doc.commenterLink,
    userId: doc.userId,
    anonUserId: doc.anonUserId,
    avatarSrc: doc.avatarSrc,
    date: doc.date,
    localDateString: doc.localDateString,
    localDateHours: doc.localDateHours,
    votes: doc.votes,
    votesUp: doc.votesUp,
    votesDown: doc.votesDown,
    flagCount: doc.flagCount,
    reviewed: doc.reviewed,
    approved: doc.approved,
    isSpam: doc.isSpam,
    permNotSpam: doc.permNotSpam,
    isLocked: doc.isLocked,
    isPinned: doc.isPinned,
    isByAdmin: doc.isByAdmin,
    isByModerator: doc.isByModerator,
    isBannedUser: doc.isBannedUser,
    isDeleted: doc.isDeleted,
    isDeletedUser: doc.isDeletedUser,
    locale: doc.locale,
    verified: doc.verified,
    verifiedDate: doc.verifiedDate,
    displayLabel: doc.displayLabel,
    hasLinks: doc.hasLinks,
    hasCode: doc.hasCode,
    hasImages: doc.hasImages,
    badges: doc.badges,
    mentions: doc.mentions,
    hashTags: doc.hashTags,
    hashTagKeys: doc.hashTagKeys,
    authorKey: doc.authorKey,
    notificationSentForParent: doc.notificationSentForParent,
    expireAt: doc.expireAt,
    meta: doc.meta,
    moderationGroupIds: doc.moderationGroupIds,
    feedbackIds: doc.feedbackIds,
    externalId: doc.externalId,
    externalParentId: doc.externalParentId,
    rating: doc.rating,
    domain: doc.domain,
    hasPoll: doc.hasPoll,
    ipHash: doc.ipHash ?? null,
    voteAdjustment: doc.voteAdjustment ?? 0,
  };
}

/** A copy of `doc` with `changes` made. */
export function changedComment(doc: CommentDoc, changes: Partial<CommentDoc>): CommentDoc {
  return Object.assign(copyComment(doc), changes);
}

/** Fields no API answer carries: derived for indexes, or kept for moderators only. */
const INTERNAL_FIELDS = new Set(['hashTagKeys', 'authorKey', 'ipHash', 'voteAdjustment']);

/** Fields every comment object carries, whatever their value (the API's required ones, and the counts). */
const ALWAYS = new Set(['tenantId', 'urlId', 'url', 'parentId', 'comment', 'commentHTML', 'commenterName', 'date', 'approved', 'locale', 'verified', 'votes', 'votesUp', 'votesDown', 'flagCount']);

/** Comments readers see: approved and not spam. */
export function isVisible(doc: CommentDoc): boolean {
  return doc.approved && !doc.isSpam;
}

/**
 * The API shape of a comment (`APIComment`): the stored fields but the internal ones, with both
 * `_id` (the schema-style and live-event name) and `id` (what API clients read), and the
 * attached poll. `date` is epoch milliseconds, as `APIComment` has it (stored, it is an ISO
 * string; live events turn it back, see `publicComment`). Optional fields are left out while
 * they are null, false or empty (a page of comments is a third of the size this way); the
 * required fields and the counts are always there.
 */
export function commentView(doc: CommentDoc, poll: unknown): Record<string, unknown> {
  const view: Record<string, unknown> = { _id: doc._id, id: doc._id };
  for (const key in doc) {
    if (key === '_id' || INTERNAL_FIELDS.has(key)) continue;
    const value = doc[key];
    if (!ALWAYS.has(key) && (value === null || value === undefined || value === false || (Array.isArray(value) && value.length === 0))) continue;
    view[key] = key === 'date' ? dateMs(value as string | null) : value;
  }
  if (doc.hasPoll && poll !== undefined) view['poll'] = poll;
  // Required text in the API's comment shapes: an anonymized author's name is sent as "".
  if (view['commenterName'] === null) view['commenterName'] = '';
  return view;
}

/** A stored ISO date-time as epoch milliseconds (null stays null). */
export function dateMs(iso: string | null): number | null {
  if (iso === null) return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
}

/**
 * The author key of a comment (see `CommentDoc.authorKey`): its user, else its email, else
 * the widget session that wrote it (`a:<anonUserId>`).
 */
export function authorKeyOf(userId: string | null, email: string | null, anonUserId: string | null = null): string | null {
  if (userId) return `u:${userId}`;
  if (email) return `e:${email.trim().toLowerCase()}`;
  if (anonUserId) return `a:${anonUserId}`;
  return null;
}
