/**
 * Notifications as stored and as the API shows them (`UserNotification`), their recipients,
 * ids and lifetimes. A notification is owned by its recipient's notifications actor
 * (`notifications:<tenantId>:<recipient>`); every other actor only reads it from storage.
 */
import { createHash } from 'node:crypto';
import type { Doc } from '../../storage/store.js';

/** Collections of notifications, counts, subscriptions and the work that makes them. */
export const NOTIFY_COLLECTIONS = {
  notifications: 'notifications',
  counts: 'notificationCounts',
  /** Emails owed for notifications, until they are in the outbox (one per notification). */
  emails: 'notificationEmails',
  /** A recipient's opt-out of notifications about one object (`optedOut` on a notification). */
  optOuts: 'notificationOptOuts',
  subscriptions: 'subscriptions',
  /** Comments whose notifications are still being made (fan-out jobs). */
  jobs: 'notificationJobs',
} as const;

/**
 * The API's `NotificationType` values this server knows the meaning of (the FastComments
 * documentation names them; the enum's other values, 8, 81, 82, 9 and 10, are unnamed there).
 */
export const NOTIFICATION_TYPES = {
  /** Someone replied to your comment. */
  repliedToMe: 0,
  /** Someone replied anywhere in a thread you commented in (not made by this server). */
  repliedTransientChild: 1,
  /** Your comment was up-voted. */
  votedMyComment: 2,
  /** A new top-level comment on a page you subscribed to. */
  subscriptionReplyRoot: 3,
  commentedOnProfile: 4,
  directMessage: 5,
  trialLimits: 6,
  /** You were @mentioned. */
  mentioned: 7,
} as const;

export type NotificationType = (typeof NOTIFICATION_TYPES)[keyof typeof NOTIFICATION_TYPES];

/** Every value of the API's `NotificationType` enum (accepted by the `type` filter). */
export const NOTIFICATION_TYPE_VALUES: readonly number[] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 81, 82, 9, 10];

/** The API's `NotificationObjectType`: what `relatedObjectId` names. */
export const OBJECT_TYPES = { comment: 0, profile: 1, tenant: 2 } as const;

/** Documents a deleted user's erasure removes per message (one commit). */
export const ERASE_ROUND = 500;

/** Notifications and counts live one year, then the sweeper removes them. */
export const NOTIFICATION_TTL_MS = 365 * 24 * 60 * 60 * 1000;

/** Who a notification is for: a user of the tenant, or an anonymous id (subscriptions may name one). */
export interface Recipient {
  readonly userId: string | null;
  readonly anonUserId: string | null;
}

/** `u:<userId>`, else `a:<anonUserId>`: the recipient's key in actor ids and documents. */
export function recipientKey(recipient: Recipient): string {
  if (recipient.userId) return `u:${recipient.userId}`;
  if (recipient.anonUserId) return `a:${recipient.anonUserId}`;
  throw new Error('a recipient needs a userId or an anonUserId');
}

/** The recipient a key names. */
export function recipientOf(key: string): Recipient {
  return key.startsWith('u:') ? { userId: key.slice(2), anonUserId: null } : { userId: null, anonUserId: key.slice(2) };
}

/** The id of a recipient's notifications (and subscriptions) actor. */
export function recipientActorId(tenantId: string, key: string): string {
  return `${tenantId}:${key}`;
}

/** Splits a recipient actor id into tenant and recipient key (tenant ids never hold `:`). */
export function splitRecipientActorId(id: string): { tenantId: string; recipient: string } {
  const colon = id.indexOf(':');
  return { tenantId: id.slice(0, colon), recipient: id.slice(colon + 1) };
}

/**
 * The id of the notification that `sourceId` (a comment) makes for one recipient, of one type.
 * The same inputs always give the same id, so a fan-out replayed after a crash finds what it
 * already made instead of making it twice.
 */
export function notificationId(tenantId: string, sourceId: string, type: number, recipient: string): string {
  return createHash('sha256').update(`${tenantId}\u0000${sourceId}\u0000${type}\u0000${recipient}`).digest('hex').slice(0, 24);
}

/** How the email of a notification is sent: alone, at once, or in an hourly or daily digest. */
export const EMAIL_KINDS = {
  /** Replies to the recipient's comments: one email per batch window (an hour) listing them. */
  replyDigest: 'reply-digest',
  mention: 'mention',
  /** A new comment on a subscribed page, emailed alone. */
  subscription: 'subscription',
  subscriptionHourly: 'subscription-hourly',
  subscriptionDaily: 'subscription-daily',
} as const;

export type EmailKind = (typeof EMAIL_KINDS)[keyof typeof EMAIL_KINDS];

/** A notification as stored. Dates the API shows are ISO strings; the lifetime is epoch ms. */
export interface NotificationDoc extends Doc {
  tenantId: string;
  /** `recipientKey` of the owner. */
  recipient: string;
  userId: string | null;
  anonUserId: string | null;
  urlId: string;
  url: string;
  pageTitle: string | null;
  relatedObjectType: number;
  relatedObjectId: string;
  viewed: boolean;
  /** True once an email about it is in the outbox. */
  sent: boolean;
  createdAt: string;
  type: number;
  fromCommentId: string | null;
  fromVoteId: string | null;
  fromUserName: string | null;
  fromUserId: string | null;
  fromUserAvatarSrc: string | null;
  optedOut: boolean;
  /** Votes: how many the notification stands for, by whom (newest last, at most `MAX_FROM`). */
  count?: number;
  fromUserIds?: string[];
  fromUserNames?: string[];
  relatedIds?: string[];
  /** The text of the comment it is about (cut to `CONTEXT_CHARS`), for emails; never shown by the API. */
  contextText: string | null;
  /** The locale of that comment, for emails. */
  locale: string | null;
  /** Epoch ms after which the sweeper removes it. */
  expireAt: number;
}

/** Longest comment text kept in a notification for its email. */
export const CONTEXT_CHARS = 500;

/** Most voters a vote notification names. */
export const MAX_FROM = 20;

/** What an email says of one notification (kept with the owed email, so sending reads nothing else). */
export interface EmailLine {
  readonly fromCommentId: string | null;
  readonly fromUserName: string | null;
  readonly contextText: string | null;
  readonly url: string;
  readonly urlId: string;
  readonly pageTitle: string | null;
  readonly createdAt: string;
  readonly locale: string | null;
}

/** The email line of a notification. */
export function emailLine(doc: NotificationDoc): EmailLine {
  const { fromCommentId, fromUserName, contextText, url, urlId, pageTitle, createdAt, locale } = doc;
  return { fromCommentId, fromUserName, contextText, url, urlId, pageTitle, createdAt, locale };
}

/** An email owed for a notification (same `_id`), until it is in the outbox. */
export interface NotificationEmailDoc extends Doc {
  tenantId: string;
  recipient: string;
  kind: EmailKind;
  /** Epoch ms when it is to be sent (digests: the end of their window). */
  dueAt: number;
  line: EmailLine;
}

/** A recipient's unread count, while it is above zero (`UserNotificationCount`). */
export interface NotificationCountDoc extends Doc {
  tenantId: string;
  recipient: string;
  count: number;
  createdAt: string;
  /** Epoch ms: a year after its last change. */
  expireAt: number;
}

/** The `_id` of a recipient's count. */
export function countId(tenantId: string, recipient: string): string {
  return `${tenantId}:${recipient}`;
}

/** The `_id` of a recipient's opt-out of notifications about one object. */
export function optOutId(tenantId: string, recipient: string, objectId: string): string {
  return `${tenantId}:${recipient}:${objectId}`;
}

/**
 * The API shape of a notification (`UserNotification`): its stored fields but the internal
 * ones. Optional fields are left out while unset (the schema allows no extra fields).
 */
export function notificationView(doc: NotificationDoc): Record<string, unknown> {
  const view: Record<string, unknown> = {
    _id: doc._id,
    tenantId: doc.tenantId,
    userId: doc.userId,
    anonUserId: doc.anonUserId,
    urlId: doc.urlId,
    url: doc.url,
    pageTitle: doc.pageTitle,
    relatedObjectType: doc.relatedObjectType,
    relatedObjectId: doc.relatedObjectId,
    viewed: doc.viewed,
    isUnreadMessage: false,
    sent: doc.sent,
    createdAt: doc.createdAt,
    type: doc.type,
    fromCommentId: doc.fromCommentId,
    fromVoteId: doc.fromVoteId,
    fromUserName: doc.fromUserName,
    fromUserId: doc.fromUserId,
    fromUserAvatarSrc: doc.fromUserAvatarSrc,
    optedOut: doc.optedOut,
  };
  if (doc.count !== undefined) view['count'] = doc.count;
  if (doc.relatedIds !== undefined) view['relatedIds'] = doc.relatedIds;
  if (doc.fromUserIds !== undefined) view['fromUserIds'] = doc.fromUserIds;
  if (doc.fromUserNames !== undefined) view['fromUserNames'] = doc.fromUserNames;
  return view;
}

/** The API shape of a count (`UserNotificationCount`): `_id` is the user id. */
export function countView(doc: NotificationCountDoc): Record<string, unknown> {
  return {
    _id: doc.recipient.slice(2),
    count: doc.count,
    createdAt: doc.createdAt,
    expireAt: new Date(doc.expireAt).toISOString(),
  };
}
