/** The moderation page's view of the moderation API's shapes (only the fields it reads). */

/** A comment as `ModerationAPIComment`. */
export interface ModComment {
  _id: string;
  urlId: string;
  url?: string | null;
  pageTitle?: string | null;
  userId?: string | null;
  anonUserId?: string | null;
  commenterName: string;
  commentHTML: string;
  parentId?: string | null;
  date: string | null;
  approved?: boolean;
  reviewed?: boolean;
  isSpam?: boolean;
  isDeleted?: boolean;
  isBannedUser?: boolean;
  isLocked?: boolean;
  flagCount?: number;
}

/** One entry of a comment's moderation log. */
export interface ModLog {
  date: string;
  username: string;
  actionName: string;
  messageHTML: string;
}

/** What the page was started with (the shell's data block). */
export interface PageConfig {
  tenantId: string;
  username: string;
  /** The moderation API's base path. */
  base: string;
  /** The live feed's path (a websocket). */
  live: string;
  strings: Record<string, string>;
}

/** The answer of `ban-user/from-comment`: what `ban-user/undo` takes back. */
export type BanChangelog = Record<string, unknown>;
