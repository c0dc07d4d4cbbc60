/**
 * The stored comment. Owned by the page actor of its `urlId`; other actors may read a comment
 * from storage (its durable state) but never write it.
 */
import type { Doc } from '../../storage/store.js';

export const COMMENTS = 'comments';

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
  votes: number;
  votesUp: number;
  votesDown: number;
  flagCount: number;
  reviewed: boolean;
  approved: boolean;
  isSpam: boolean;
  isLocked: boolean;
  isPinned: boolean;
  isDeleted: boolean;
  locale: string | null;
  verified: boolean;
  hashTags: string[];
  /** True when a poll is attached (stored in the polls collection under this comment's id). */
  hasPoll: boolean;
}
