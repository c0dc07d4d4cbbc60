/** Flags on comments, one per user (or anonymous session) per comment; owned by the page actor. */
import type { Doc } from '../../storage/store.js';

/** Collection of flags. */
export const COMMENT_FLAGS = 'commentFlags';

/** One user's (or anonymous session's) flag on one comment. */
export interface FlagDoc extends Doc {
  tenantId: string;
  urlId: string;
  commentId: string;
  userId: string | null;
  anonUserId: string | null;
  createdAt: string;
}

/** One flag per voter per comment: the id says which. */
export function flagId(commentId: string, voterKey: string): string {
  return `${commentId}:${voterKey}`;
}
