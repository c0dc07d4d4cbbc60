/** The widget's view of the public API's shapes (only the fields it reads). */

/** A comment as the public API answers it (PublicComment) or a live frame carries it. */
export interface WidgetComment {
  _id: string;
  parentId?: string | null;
  commenterName?: string;
  commenterLink?: string | null;
  commentHTML: string;
  date?: string | number;
  votes?: number;
  votesUp?: number;
  votesDown?: number;
  avatarSrc?: string | null;
  userId?: string | null;
  anonUserId?: string | null;
  isDeleted?: boolean;
  isByAdmin?: boolean;
  isByModerator?: boolean;
  isPinned?: boolean;
  isLocked?: boolean;
  approved?: boolean;
  displayLabel?: string | null;
  isVotedUp?: boolean;
  isVotedDown?: boolean;
  myVoteId?: string | null;
  isFlagged?: boolean;
  isBlocked?: boolean;
  editKey?: string;
  /** An attached poll, as every reader may see it (web/widget/polls.ts). */
  poll?: WidgetPoll;
  /** Shown to moderators (and to the author in the session that posted). */
  isSpam?: boolean;
  /** Set on a banned author's comments (moderators see it). */
  isBannedUser?: boolean;
  /** The author's badges shown on the comment (CommentUserBadgeInfo). */
  badges?: CommentBadge[] | null;
}

/** A poll as the public API answers it (counts absent while `resultsHidden`). */
export interface WidgetPoll {
  question: string;
  options: { id: string; label: string; votes?: number }[];
  totalVotes?: number;
  closesAt?: string | null;
  privacy?: number;
  requireVoteToSeeResults?: boolean;
  resultsHidden?: boolean;
}

/** A badge on a comment, as the public comment carries it (CommentUserBadgeInfo). */
export interface CommentBadge {
  id: string;
  type: number;
  description: string;
  displayLabel?: string | null;
  displaySrc?: string | null;
  backgroundColor?: string | null;
  borderColor?: string | null;
  textColor?: string | null;
  cssClass?: string | null;
}

/** The reader's session (UserSessionInfo). */
export interface WidgetUser {
  id?: string;
  username?: string;
  displayName?: string;
  email?: string;
  avatarSrc?: string;
  authorized?: boolean;
  isAnonSession?: boolean;
  sessionId?: string;
  hasBlockedUsers?: boolean;
}

/** The embed's configuration (the keys this widget reads; the rest are kept and passed along). */
export interface WidgetConfig {
  tenantId: string;
  urlId?: string;
  url?: string;
  pageTitle?: string;
  locale?: string;
  apiHost?: string;
  wsHost?: string;
  sso?: Record<string, unknown>;
  simpleSSO?: Record<string, unknown>;
  readonly?: boolean;
  hasDarkBackground?: boolean;
  defaultSortDirection?: SortDirection;
  disableLiveCommenting?: boolean;
  showLiveRightAway?: boolean;
  usePolling?: boolean;
  translations?: Record<string, string>;
  customCSS?: string;
  allowAnon?: boolean;
  maxCommentCharacterLength?: number;
  noNewRootComments?: boolean;
  /** FastComments: the replies of root comments start collapsed behind "Show N replies". */
  collapseReplies?: boolean;
  /** This server's: replies of comments at this depth and deeper start collapsed (default 3; roots are 0). */
  collapseRepliesDepth?: number;
  /** FastComments: no reply button on comments at this depth and deeper. */
  maxReplyDepth?: number;
  hideAvatars?: boolean;
  defaultAvatarSrc?: string | null;
  onInit?: () => void;
  onRender?: () => void;
  onReplySuccess?: (comment: WidgetComment) => void;
  onVoteSuccess?: (comment: WidgetComment, voteId: string, direction: string, status: string) => void;
  onCommentsRendered?: (comments: WidgetComment[]) => void;
  commentCountUpdated?: (count: number) => void;
  onAuthenticationChange?: (event: string, data: unknown) => void;
  onOpenProfile?: (ctx: unknown) => boolean | void;
  [key: string]: unknown;
}

export type SortDirection = 'MR' | 'NF' | 'OF';

/** What the app bundle exposes to the loader. */
export interface AppModule {
  mount(element: HTMLElement, config: WidgetConfig, origin: string): WidgetHandle;
}

/** The handle `FastCommentsUI` returns. */
export interface WidgetHandle {
  destroy(): void;
  update(config: WidgetConfig): void;
  updateUser(sso: Record<string, unknown> | null): void;
  openProfile(ctx: { userId?: string } | string): void;
}
