/**
 * What the emails about notifications say and when they go: who may get one (an address, and
 * the opt-in that applies), how long a digest waits, and the request handed to the outbox.
 * Pure functions; the notifications actor sends them (docs/notifications.md).
 */
import type { EmailRequest } from '../email/protocol.js';
import type { UserDoc } from '../user/protocol.js';
import { EMAIL_KINDS, type EmailKind, type EmailLine } from './notification-doc.js';

/** Email templates of notifications (definitions in email/definitions.ts). */
export const NOTIFY_TEMPLATES = {
  mention: 'comment-user-mention',
  replyDigest: 'comment-reply-digest',
  subscription: 'page-subscription-comment',
  subscriptionDigest: 'page-subscription-digest',
} as const;

/** Delay of an email sent "at once": a burst of mentions goes out together. */
export const IMMEDIATE_DELAY_MS = 1000;

/** Comments listed in one digest; the rest are counted. */
export const DIGEST_SHOWN = 50;

/** Whether emails of this kind are gathered into one per window. */
export function isDigest(kind: EmailKind): boolean {
  return kind === EMAIL_KINDS.replyDigest || kind === EMAIL_KINDS.subscriptionHourly || kind === EMAIL_KINDS.subscriptionDaily;
}

/**
 * How long after the first notification of a window its email waits: the batch window
 * (`NOTIFICATION_BATCH_MS`, an hour) for replies and hourly digests, 24 of them for daily
 * ones, a moment for the rest.
 */
export function emailDelay(kind: EmailKind, batchMs: number): number {
  if (kind === EMAIL_KINDS.subscriptionDaily) return batchMs * 24;
  return isDigest(kind) ? batchMs : IMMEDIATE_DELAY_MS;
}

/**
 * The address to email about notifications of this kind, or null: the user needs an email and
 * the opt-in that applies. Subscription emails follow `optedInSubscriptionNotifications` for
 * single sign-on users and `optedInNotifications` for the others; replies and mentions follow
 * `optedInNotifications`. SSO and tenant users, whose records the API shows with these flags
 * (unset shown as false), are emailed only once a flag is true; commenters (users made by a
 * comment's email, whom no API shows the flag) are opted in unless it is false.
 */
export function addressFor(user: UserDoc | null, kind: EmailKind): string | null {
  if (user === null || !user.email) return null;
  const subscription = kind !== EMAIL_KINDS.replyDigest && kind !== EMAIL_KINDS.mention;
  const optedIn = subscription && user.kind === 'sso' ? user.optedInSubscriptionNotifications : user.optedInNotifications;
  if (user.kind === 'commenter') return optedIn === false ? null : user.email;
  return optedIn === true ? user.email : null;
}

/** The link to a comment on its page (the widget scrolls to `fast-comments-jt`). */
export function commentLink(url: string, commentId: string | null): string {
  const base = url.split('#')[0]!;
  return commentId === null ? base : `${base}#fast-comments-jt=${encodeURIComponent(commentId)}`;
}

/** The site of a notification's page, which picks the template and the sender. */
function siteOf(url: string): string | null {
  try {
    return new URL(url).host.toLowerCase() || null;
  } catch {
    return null;
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A notification's comment as templates see it (`commentHTML` is the kept text, escaped). */
function commentOf(doc: EmailLine): Record<string, unknown> {
  const text = doc.contextText ?? '';
  return {
    commenterName: doc.fromUserName ?? '',
    comment: text,
    commentHTML: escapeHtml(text),
    date: Date.parse(doc.createdAt),
    pageTitle: doc.pageTitle,
    url: doc.url,
    viewCommentUrl: commentLink(doc.url, doc.fromCommentId),
  };
}

function nameOf(user: UserDoc): string {
  return user.displayName || user.username;
}

/**
 * The email for `docs` (one notification, or a digest's, oldest first) to `to`. `key` (the
 * first notification's id) makes the `dedupeKey` that keeps a batch sent again after a crash
 * from being queued twice while the first is still waiting.
 */
export function emailFor(kind: EmailKind, user: UserDoc, to: string, key: string, docs: readonly EmailLine[]): EmailRequest {
  const first = docs[0]!;
  const locale = first.locale;
  const name = nameOf(user);
  const base = { to, domain: siteOf(first.url), locale, dedupeKey: `notification:${kind}:${key}` };
  if (kind === EMAIL_KINDS.mention) {
    return {
      ...base,
      emailTemplateId: NOTIFY_TEMPLATES.mention,
      data: { comment: commentOf(first), username: name, INTRO: `Hey ${name},`, viewCommentUrl: commentLink(first.url, first.fromCommentId), canReplyByEmail: false, locale },
    };
  }
  if (kind === EMAIL_KINDS.subscription) {
    return {
      ...base,
      emailTemplateId: NOTIFY_TEMPLATES.subscription,
      data: { comment: commentOf(first), username: name, pageTitle: first.pageTitle, url: first.url, viewCommentUrl: commentLink(first.url, first.fromCommentId), locale },
    };
  }
  const comments = docs.slice(0, DIGEST_SHOWN).map(commentOf);
  const more = Math.max(0, docs.length - comments.length);
  if (kind === EMAIL_KINDS.replyDigest) {
    return { ...base, emailTemplateId: NOTIFY_TEMPLATES.replyDigest, data: { username: name, replyCount: docs.length, replies: comments, moreCount: more, locale } };
  }
  return {
    ...base,
    emailTemplateId: NOTIFY_TEMPLATES.subscriptionDigest,
    data: { username: name, commentCount: docs.length, comments, moreCount: more, daily: kind === EMAIL_KINDS.subscriptionDaily, locale },
  };
}
