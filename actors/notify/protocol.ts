/**
 * The notification actors, as callers know them:
 * - `notifications:<tenantId>:<recipient>`: one recipient's notifications, unread count and
 *   owed emails; pushes each change live to the user's channel once it is durable;
 * - `subscriptions:<tenantId>:<recipient>`: one recipient's page subscriptions;
 * - `notify-job:<tenantId>:<commentId>`: makes the notifications of one new comment (reply,
 *   mentions, then the page's subscribers in bounded batches), resumable after a crash;
 * - `vote-notify:<tenantId>:<commentId>`: up-votes of one comment, gathered for its author;
 * - `mentions:<tenantId>`: finds the users a comment's `@names` mean;
 * - `notification-reads:<tenantId>`: tenant-wide reads of notifications and subscriptions;
 * - `notification-sweep:` (one): resumes jobs, wakes owed emails, removes expired notifications.
 *
 * Deadlock rules: a notifications actor asks user, email-outbox and page actors; jobs and
 * vote-notify actors ask notifications and user actors; none of those ever asks them. The
 * subscriptions, mentions, reads and sweep actors ask nobody (the sweep only tells).
 */
import { defineKind } from '../../engine/actor.js';
import type { CommentMention } from '../page/comment-doc.js';
import type { EmailKind, NotificationCountDoc, NotificationDoc } from './notification-doc.js';
import type { SubscriptionDoc } from './subscription-doc.js';

/** A notification to store, and how it is emailed (null: it is not). */
export interface Delivery {
  readonly doc: NotificationDoc;
  readonly email: EmailKind | null;
}

/** One voter of a batch of up-votes. */
export interface Voter {
  readonly voteId: string;
  readonly userId: string | null;
  readonly name: string | null;
  readonly avatarSrc: string | null;
}

/** Up-votes of one comment, for its author's one vote notification about it. */
export interface VoteMerge {
  readonly commentId: string;
  readonly urlId: string;
  readonly url: string;
  readonly pageTitle: string | null;
  readonly contextText: string | null;
  readonly locale: string | null;
  /** Oldest first. */
  readonly voters: readonly Voter[];
}

export type NotificationsProtocol = {
  /**
   * Stores notifications of this recipient that are not stored yet (with `check`, looked up in
   * storage first: a replayed fan-out), counts the unread ones, owes their emails, and pushes
   * them live once durable. Answers how many were new.
   */
  add: { in: { deliveries: readonly Delivery[]; check: boolean }; out: { added: number } };
  /** Counts up-votes into the recipient's one notification about that comment (made if none). */
  mergeVote: { in: VoteMerge; out: null };
  /** The unread count, or null when there is none. */
  getCount: { in: null; out: NotificationCountDoc | null };
  /** Clears the unread count (the widget's bell clears live). */
  clearCount: { in: null; out: null };
  /** Changes `viewed` and `optedOut` of one of the recipient's notifications; `not-found` otherwise. */
  patch: { in: { id: string; viewed?: boolean; optedOut?: boolean }; out: NotificationDoc };
  /** Sends the owed emails that are due (told by the actor's own timer and the sweep). */
  flushEmails: { in: null; out: null };
  /** Removes these notifications if they have expired (and the count, if it has). */
  expire: { in: { ids: readonly string[] }; out: null };
  /**
   * The recipient's user was deleted: removes a round of its notifications, owed emails and
   * opt-outs, and its count; `more` until nothing is left. Later `add`s are dropped while the
   * user has no record.
   */
  erase: { in: null; out: { more: boolean } };
  /**
   * A deleted user's mark on these notifications of the recipient (ones it caused): removed
   * (`remove`, its comments are gone) or left without its name, id and avatar.
   */
  forgetSender: { in: { userId: string; ids: readonly string[]; remove: boolean }; out: null };
  /**
   * Marks a round of the recipient's unread notifications viewed (the reader's "mark all
   * read") and clears the count once none is left; `more` until every one is viewed.
   */
  markAllViewed: { in: null; out: { modified: number; more: boolean } };
};

/** `notifications:<tenantId>:<recipient>` */
export const NotificationsKind = defineKind<NotificationsProtocol>('notifications');

/** What `POST /api/v1/subscriptions` takes (`CreateAPIUserSubscriptionData`). */
export interface SubscriptionInput {
  readonly urlId: string;
  readonly url: string | null;
  readonly pageTitle: string | null;
  readonly notificationFrequency: number | null;
}

export type SubscriptionsProtocol = {
  /** Subscribes the recipient to a page; `subscription-exists` when already subscribed to it. */
  create: { in: SubscriptionInput; out: SubscriptionDoc };
  update: { in: { id: string; notificationFrequency: number | null }; out: SubscriptionDoc };
  remove: { in: { id: string }; out: null };
  /** The recipient's user was deleted: removes a round of its subscriptions; `more` until none is left. */
  erase: { in: null; out: { more: boolean } };
};

/** `subscriptions:<tenantId>:<recipient>` */
export const SubscriptionsKind = defineKind<SubscriptionsProtocol>('subscriptions');

export type NotifyJobProtocol = {
  /**
   * Makes the next batch of the comment's notifications. `chain` null: a kick from outside
   * (after the comment was created, `fresh`, or by the sweep), ignored while a run is under way.
   */
  run: { in: { chain: number | null; fresh?: boolean }; out: null };
};

/** `notify-job:<tenantId>:<commentId>` */
export const NotifyJobKind = defineKind<NotifyJobProtocol>('notify-job');

export type VoteNotifyProtocol = {
  /** An up-vote of the comment, acknowledged and durable; its author is told in the background. */
  upvoted: { in: { voteId: string; userId: string | null }; out: null };
};

/** `vote-notify:<tenantId>:<commentId>` */
export const VoteNotifyKind = defineKind<VoteNotifyProtocol>('vote-notify');

export type MentionsProtocol = {
  /** The tenant's users that the `@names` of a comment's text mean. */
  resolve: { in: { text: string }; out: CommentMention[] };
};

/** `mentions:<tenantId>` */
export const MentionsKind = defineKind<MentionsProtocol>('mentions');

/** Filters of `GET /api/v1/notifications` and `/count`. */
export interface NotificationQuery {
  readonly recipient?: string;
  readonly urlId?: string;
  readonly fromCommentId?: string;
  readonly viewed?: boolean;
  readonly type?: number;
}

export type NotificationReadsProtocol = {
  /** Newest first. */
  listNotifications: { in: { query: NotificationQuery; skip: number; limit: number }; out: NotificationDoc[] };
  countNotifications: { in: { query: NotificationQuery }; out: number };
  /** The recipient key of a notification of this tenant, or null. */
  locateNotification: { in: { id: string }; out: string | null };
  /** Newest first; all of the tenant's, or one recipient's. */
  listSubscriptions: { in: { recipient: string | null; skip: number; limit: number }; out: SubscriptionDoc[] };
  getSubscription: { in: { id: string }; out: SubscriptionDoc | null };
};

/** `notification-reads:<tenantId>` */
export const NotificationReadsKind = defineKind<NotificationReadsProtocol>('notification-reads');

export type NotificationSweepProtocol = {
  /** Kicks unfinished jobs, wakes recipients with emails due, and expires what is a year old. */
  sweep: { in: null; out: { jobs: number; emails: number; expired: number } };
};

/** `notification-sweep:` */
export const NotificationSweepKind = defineKind<NotificationSweepProtocol>('notification-sweep');
