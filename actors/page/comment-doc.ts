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
  commenterName: string;
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
  mentions: CommentMention[];
  hashTags: CommentHashTag[];
  /** Normalised tags (`hashTagKey`), indexed for tenant-wide hashtag search. */
  hashTagKeys: string[];
  /** Who wrote it, for blocks: `u:<userId>`, else `e:<email>`, else null (cannot be blocked). */
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
}

/** Fields a reader never sees: derived for indexes only. */
const INTERNAL_FIELDS = new Set(['hashTagKeys', 'authorKey']);

/** Fields every comment object carries, whatever their value (the API's required ones, and the counts). */
const ALWAYS = new Set(['tenantId', 'urlId', 'url', 'parentId', 'comment', 'commentHTML', 'commenterName', 'date', 'approved', 'locale', 'verified', 'votes', 'votesUp', 'votesDown', 'flagCount']);

/** Comments readers see: approved and not spam. */
export function isVisible(doc: CommentDoc): boolean {
  return doc.approved && !doc.isSpam;
}

/**
 * The API shape of a comment: the stored fields but the internal ones, with both `_id` (the
 * schema-style and live-event name) and `id` (what API clients read), and the attached poll.
 * Optional fields are left out while they are null, false or empty (a page of comments is a
 * third of the size this way); the required fields and the counts are always there.
 */
export function commentView(doc: CommentDoc, poll: unknown): Record<string, unknown> {
  const view: Record<string, unknown> = { _id: doc._id, id: doc._id };
  for (const key in doc) {
    if (key === '_id' || INTERNAL_FIELDS.has(key)) continue;
    const value = doc[key];
    if (!ALWAYS.has(key) && (value === null || value === undefined || value === false || (Array.isArray(value) && value.length === 0))) continue;
    view[key] = value;
  }
  if (doc.hasPoll && poll !== undefined) view['poll'] = poll;
  return view;
}

/** The author key of a comment (see `CommentDoc.authorKey`). */
export function authorKeyOf(userId: string | null, email: string | null): string | null {
  if (userId) return `u:${userId}`;
  if (email) return `e:${email.trim().toLowerCase()}`;
  return null;
}
