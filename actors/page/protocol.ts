/**
 * How other actors and routes reach a page actor (`page:<tenantId>:<urlId>`): everything that
 * happens on one page (comments, votes, flags, reactions, the page record) is serialised here.
 *
 * Deadlock rules: a page actor may ask poll, username-claim, user and tenant actors; none of
 * them ever asks a page actor (poll actors only `tell` it `pollChanged`). A page actor never
 * asks another page actor: moving comments between pages is driven by the route.
 */
import { defineKind } from '../../engine/actor.js';
import type { PollInput, PollView } from '../poll/poll-model.js';
import type { Settings } from '../tenant/widget-config.js';
import type { CommentDoc, CommentHashTag, CommentMention } from './comment-doc.js';
import type { ListQuery, SortDirection } from './listing.js';
import type { PublicListQuery, PublicReader } from './public-listing.js';
import type { PageDoc } from './page-doc.js';
import type { ReactKind } from './react-doc.js';
import type { VoteDirection, VoteDoc, VoteKind } from './vote-doc.js';
import type { WebhookTarget } from '../webhook/protocol.js';

/**
 * The tenant's webhook subscriptions (its webhooks actor's `targets`), passed by the caller of
 * every message that changes comments: the page queues one event per matching subscription in
 * the batch of the change.
 */
export type WebhookTargets = readonly WebhookTarget[];

/** Who acts: a user id or an anonymous id (at least one; the user id wins). */
export interface ActorRef {
  readonly userId: string | null;
  readonly anonUserId: string | null;
}

/** The fields of a new comment (`CreateCommentParams`), as validated by the route. */
export interface NewCommentInput {
  readonly url: string;
  readonly commenterName: string;
  readonly commenterEmail: string | null;
  readonly commenterLink: string | null;
  readonly comment: string;
  readonly userId: string | null;
  readonly avatarSrc: string | null;
  readonly parentId: string | null;
  readonly pageTitle: string | null;
  /** ms since the epoch or an ISO date-time; the server's time when not given. */
  readonly date: number | string | null;
  readonly localDateString: string | null;
  readonly localDateHours: number | null;
  readonly locale: string;
  readonly mentions: readonly CommentMention[];
  readonly hashTags: readonly Omit<CommentHashTag, 'id'>[];
  readonly approved: boolean | null;
  readonly reviewed: boolean | null;
  readonly verified: boolean | null;
  readonly isPinned: boolean | null;
  readonly meta: Record<string, unknown> | null;
  readonly moderationGroupIds: readonly string[] | null;
  readonly feedbackIds: readonly string[];
  readonly rating: number | null;
  readonly domain: string | null;
  readonly poll: PollInput | null;
  /** The anonymous id of the widget session that wrote it (widget API only). */
  readonly anonUserId?: string | null;
  /** The writer is banned (a shadow ban lets them post, held from everyone else). */
  readonly isBannedUser?: boolean;
  /** The tenant's spam classifier suspects it: stored as spam (in the moderation queue) unless a `not-spam` rule matched. */
  readonly suspectedSpam?: boolean;
  /** The tenant's keyed hash of the writer's address (never the address itself). */
  readonly ipHash?: string | null;
}

/** `createComment`: the input, the page's settings and the request's options. */
export interface CreateCommentRequest {
  readonly input: NewCommentInput;
  readonly settings: Settings;
  readonly isLive: boolean;
  readonly doSpamCheck: boolean;
  /** False: the comment notifies no one (`populateNotifications=false`). Default true. */
  readonly notify?: boolean;
  readonly webhooks: WebhookTargets;
}

/** The API's `UserSessionInfo` of the commenter, when the comment has a user. */
export interface SessionUser {
  readonly id: string;
  readonly username: string;
  readonly email: string | null;
  readonly avatarSrc: string | null;
  readonly authorized: boolean;
  readonly isAnonSession: boolean;
}

/** What `POST /api/v1/comments` answers. */
export interface CreatedComment {
  readonly comment: Record<string, unknown>;
  readonly user: SessionUser | null;
  /** True when a notification job was written with the comment: the caller starts it (`NotifyJobKind`). */
  readonly notifyJob?: boolean;
}

/** `UpdatableCommentParams` as validated by the route (only the fields given). */
export type CommentChanges = Readonly<Record<string, unknown>>;

/** `patchComment`: the changes, with what the route resolved for them. */
export interface PatchCommentRequest {
  readonly commentId: string;
  readonly changes: CommentChanges;
  readonly settings: Settings;
  readonly isLive: boolean;
  /** When `commenterEmail` changes without `userId`: the tenant's user with that email. */
  readonly userIdForEmail: string | null;
  readonly webhooks: WebhookTargets;
}

/** The updated comment, and where it went if it moved. */
export interface PatchedComment {
  readonly comment: Record<string, unknown>;
  /** Set when the comment moved: the ids now on `movedTo`'s page, to be adopted there. */
  readonly moved: { readonly urlId: string; readonly commentIds: readonly string[] } | null;
}

/** The API's three vote lists (`GetVotesResponse`). */
export interface VoteLists {
  readonly appliedAuthorizedVotes: Record<string, unknown>[];
  readonly appliedAnonymousVotes: Record<string, unknown>[];
  readonly pendingVotes: Record<string, unknown>[];
}

/** Who reacts: a signed-in user or an anonymous session. */
export interface ReactUser {
  /** `u:<userId>` or `a:<anonymous id>`. */
  readonly key: string;
  readonly userId: string | null;
}

/** The limits of a widget's like or reaction, resolved by the route from settings and configuration. */
export interface ReactRules {
  /** Distinct reaction ids the page may have (`maxReactionIdsPerPage`). */
  readonly maxReactionIds: number;
  /** Pages a tenant's widgets may create per hour (`ANON_PAGES_PER_HOUR`); the tenant actor counts them. */
  readonly pagesPerHour: number;
  /**
   * On pages that require single sign-on: the groups of the signed-on reader, who must share
   * one with the page when the page has groups. Null when the page does not require it.
   */
  readonly readerGroups: readonly string[] | null;
}

/** What a reaction read returns. */
export interface ReactState {
  readonly likeCount: number;
  readonly didLike: boolean;
  readonly counts: Record<string, number>;
  readonly reactedIds: string[];
  readonly commentCount: number;
  readonly pageExists: boolean;
  readonly accessibleByGroupIds: readonly string[];
  /** Most recent first, at most the number asked for: user ids of signed-in reactors. */
  readonly recent: readonly { readonly userId: string; readonly reactId: string }[];
}

/** The request's identity for `list`: what the page tags and leaves out. */
export interface ListViewer {
  /** `u:<userId>` or `a:<anonUserId>`: tags the reader's votes. */
  readonly voterKey: string | null;
  /** Author keys the reader blocked. */
  readonly blocked: readonly string[];
}

/** Every message a page actor takes. */
export type PageProtocol = {
  /**
   * Told (never asked) by a poll actor after a poll change is durable, so the comment objects
   * the page serves embed the current poll. `poll` null: the poll was removed.
   */
  pollChanged: { in: { commentId: string; poll: PollView | null }; out: null };
  /** Told by the page itself: writes the vote counts that changed since the last flush. */
  flushCounts: { in: null; out: null };
  /**
   * A page of comments as a complete JSON response body (UTF-8): `{"status":"success","comments":[...]`,
   * then `tail` (more fields, each starting with a comma), then `}`. Answers with the same `key`
   * are served from memory, already encoded, until the page next changes.
   */
  list: { in: { key: string; query: ListQuery; viewer: ListViewer | null; tail: string }; out: Buffer };
  getComment: { in: { commentId: string }; out: Record<string, unknown> };
  createComment: { in: CreateCommentRequest & Broadcast; out: CreatedComment };
  patchComment: { in: PatchCommentRequest & Broadcast; out: PatchedComment };
  /**
   * Marks replies `notificationSentForParent` (their parent's author was emailed about them);
   * answers the ids this page does not hold.
   */
  markParentNotified: { in: { commentIds: readonly string[] }; out: { missing: string[] } };
  /** Of these replies, those this page holds that are not yet `notificationSentForParent`, and those it does not hold. */
  unnotifiedReplies: { in: { commentIds: readonly string[] }; out: { owed: string[]; missing: string[] } };
  /** Removes the comment and every reply under it. */
  deleteComment: { in: { commentId: string; isLive: boolean; webhooks: WebhookTargets } & Broadcast; out: { deletedCount: number } };
  /**
   * A deleted user's comments (those named that are on this page and still the user's):
   * anonymized or removed, replies following the page's thread deletion mode (page-erase.ts).
   */
  eraseUserComments: { in: EraseRequest; out: { changed: number } };
  /** Takes on comments another page moved here (already durable with this urlId). */
  adopt: { in: { commentIds: readonly string[]; isLive: boolean }; out: null };
  flag: { in: { commentId: string; by: ActorRef; settings: Settings; webhooks: WebhookTargets } & Broadcast; out: { wasUnapproved: boolean } };
  unflag: { in: { commentId: string; by: ActorRef }; out: null };
  /** The author key of a comment (`authorKey`): null when it has neither user id nor email. */
  author: { in: { commentId: string }; out: string | null };
  vote: { in: { commentId: string; by: ActorRef; direction: VoteDirection; kind?: VoteKind; broadcastId?: string }; out: { voteId: string } };
  deleteVote: { in: { voteId: string } & Broadcast; out: { wasPendingVote: boolean } };
  /** Votes of the page, all or one voter's (`u:`/`a:` key). */
  listVotes: { in: { voterKey: string | null }; out: VoteLists };
  getPage: { in: null; out: PageDoc | null };
  createPage: { in: { url: string | null; title: string; accessibleByGroupIds: readonly string[] | null; isClosed: boolean | null }; out: PageDoc };
  patchPage: {
    in: { pageId: string; changes: { url?: string; title?: string; isClosed?: boolean; accessibleByGroupIds?: readonly string[] }; webhooks: WebhookTargets };
    out: { page: PageDoc; commentsUpdated: number };
  };
  deletePage: { in: { pageId: string }; out: null };
  /**
   * Moves the whole page (record, comments, votes, flags, reactions) to another urlId in one
   * durable batch; the caller then has the page at `urlId` adopt it. `page-exists` when that
   * urlId already has a page record.
   */
  renamePage: { in: { pageId: string; urlId: string; webhooks: WebhookTargets }; out: { commentIds: string[] } };
  /**
   * Adds (or with `remove`, removes) one like or reaction from a widget; `code` names a change
   * that did not happen. `rules` are the page's limits for widget writes (see `ReactRules`).
   */
  react: {
    in: { kind: ReactKind; reactId: string; user: ReactUser; remove: boolean; title: string | null; url: string | null; rules: ReactRules };
    out: { code: 'already-liked' | 'not-liked' | 'already-reacted' | 'no-react' | null };
  };
  reactState: { in: { userKey: string | null; kind: ReactKind; reactId: string | null; recent: number }; out: ReactState };
  /**
   * Imported comments (and their votes) for this page, as prepared by an import: those it
   * already holds are left alone (page-import.ts). `page` creates the page record if missing.
   */
  importComments: {
    in: { page: { url: string | null; title: string | null; isClosed: boolean }; comments: readonly CommentDoc[]; votes: readonly VoteDoc[] };
    out: { created: string[]; existing: string[] };
  };
  /** Ends an import on this page: imported replies whose parent never came become top-level (their `externalId`s). */
  finishImport: { in: null; out: { orphans: string[] } };
  /** Told by a user's badge actor once their badges changed durably: the badges their comments here show. */
  setUserBadges: { in: { userId: string; badges: readonly Record<string, unknown>[] }; out: null };
  /**
   * The widget API's read (`GET /comments/{tenantId}`) as a complete JSON body ending with
   * `tail` and `}`. Without a reader it is the anonymous answer, kept (with its gzip and brotli
   * encodings) under `key` and published in the `publicAnswers` view until the page changes.
   */
  publicList: { in: { key: string; query: PublicListQuery; reader: PublicReader | null; tail: string }; out: Buffer };
  /** Visible and held replies directly under a comment (a widget delete keeps a placeholder when there are any). */
  replyCount: { in: { commentId: string }; out: number };
  /** Who cast a vote of this page and on which comment (a widget un-vote checks its owner first). */
  voteOwner: { in: { voteId: string }; out: { commentId: string; voterKey: string; anonUserId: string | null } };
  /** Where a root comment now sits in each order: the root comments before and after it. */
  commentPositions: { in: { commentId: string }; out: Record<SortDirection, { before: string | null; after: string | null }> };
  /** A moderator's hand adjustment of a comment's votes (page-vote-adjust.ts): the comment after, and its new `votes`. */
  adjustVotes: { in: { commentId: string; amount: number; isLive: boolean } & Broadcast; out: { comment: Record<string, unknown>; votes: number } };
};

/** Messages that carry the `broadcastId` of the widget write that caused them (copied into its live events). */
export interface Broadcast {
  readonly broadcastId?: string;
  /**
   * A pin or unpin from the widget: the `updated-comment` event carries the comment's new place
   * (`extraInfo.commentPositions`), which moves it in every reader's list.
   */
  readonly withPositions?: boolean;
}

/** `page:<tenantId>:<urlId>` */
export const PageKind = defineKind<PageProtocol>('page');

/** Views the page actor publishes (read with `system.peek`). */
export const PAGE_VIEWS = {
  /** Serialised list answers (Buffer), keyed like the `list` message's `key`. */
  answers: 'answers',
  /** Anonymous widget answers (`PublicAnswer`), keyed like the `publicList` message's `key`. */
  publicAnswers: 'publicAnswers',
} as const;

/** The id of a page actor (its key without the `page:` prefix). */
export function pageActorId(tenantId: string, urlId: string): string {
  return `${tenantId}:${urlId}`;
}

/** How a user's comments go: removed (`commentDeleteMode` 0, the default) or anonymized (1). */
export type EraseMode = 'remove' | 'anonymize';

/** A user's comments on this page to erase (page-erase.ts). */
export interface EraseRequest {
  readonly userId: string;
  readonly commentIds: readonly string[];
  readonly mode: EraseMode;
  /** The page's `commentThreadDeleteMode` (null: unset). */
  readonly threadMode: number | null;
  readonly isLive: boolean;
  /** The tenant's webhook subscriptions: each erased comment is an update or a deletion to them. */
  readonly webhooks: readonly WebhookTarget[];
}

/**
 * Thrown by a page actor asked about a comment, vote or page record it does not hold (it
 * moved, or never was here). Callers look the id up again and retry; it never reaches clients.
 */
export class NotOnThisPage extends Error {
  override readonly name = 'NotOnThisPage';
}

/** The voter key of an actor: `u:<userId>`, else `a:<anonUserId>`. */
export function actorKey(by: ActorRef): string {
  if (by.userId) return `u:${by.userId}`;
  if (by.anonUserId) return `a:${by.anonUserId}`;
  throw new Error('actorKey needs a userId or an anonUserId');
}
