/**
 * The public projections: what a widget may show of an object, and the only thing the public
 * outputs (`/sub`, the event log) serialise. Anyone can open a page's channel or read its log,
 * so nothing private may pass: a commenter's email, a comment's `meta` and moderation groups,
 * user ids (a site's single sign-on ids are often its own account ids or emails) and anonymous
 * ids (which act as the anonymous reader's credential). The fields kept are those of the
 * API description's public shapes (`PubSubComment`, `PubSubVote`), by allow-list, so that a
 * field added to a stored object later stays private until it is added here.
 */
import type { LiveEvent } from './live-events.js';

/** `PubSubComment` fields a widget shows (user ids, emails, meta, moderation data left out). */
const COMMENT_FIELDS = [
  '_id',
  'tenantId',
  'urlId',
  'url',
  'pageTitle',
  'parentId',
  'comment',
  'commentHTML',
  'commenterName',
  'commenterLink',
  'avatarSrc',
  'date',
  'votes',
  'votesUp',
  'votesDown',
  'verified',
  'approved',
  'locale',
  'hasImages',
  'hasLinks',
  'hasCode',
  'isByAdmin',
  'isByModerator',
  'isPinned',
  'isLocked',
  'isDeleted',
  'isDeletedUser',
  'isSpam',
  'isBannedUser',
  'displayLabel',
  'rating',
  'badges',
  'domain',
  'hidden',
  'isLive',
] as const;

/**
 * The comment as every reader of its page may see it. `date` is an ISO date-time, as
 * `PubSubComment` has it: the API view carries epoch milliseconds (`APIComment`), entries
 * logged before that change carry the ISO string already.
 */
export function publicComment(comment: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of COMMENT_FIELDS) {
    const value = comment[field];
    if (value !== undefined) out[field] = value;
  }
  if (typeof out['date'] === 'number') out['date'] = new Date(out['date']).toISOString();
  const poll = comment['poll'];
  if (poll !== undefined && poll !== null) out['poll'] = publicPoll(poll as Record<string, unknown>);
  return out;
}

/**
 * A poll as every reader may see it: without counts when a vote is required to see them (the
 * channel cannot tell voters from the rest; widgets fetch counts once their reader has voted).
 */
export function publicPoll(poll: Readonly<Record<string, unknown>>): Record<string, unknown> {
  if (poll['requireVoteToSeeResults'] !== true) return { ...poll, resultsHidden: false };
  const { totalVotes: _hidden, options, ...rest } = poll;
  return { ...rest, options: (options as { id: string; label: string }[]).map((o) => ({ id: o.id, label: o.label })), resultsHidden: true };
}

/** `PubSubVote`, with no voter: the user or anonymous id stays with the server. */
export function publicVote(vote: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return {
    _id: vote['_id'],
    tenantId: vote['tenantId'],
    urlId: vote['urlId'],
    urlIdRaw: vote['urlIdRaw'],
    commentId: vote['commentId'],
    userId: null,
    direction: vote['direction'],
    createdAt: vote['createdAt'],
    verificationId: vote['verificationId'] ?? null,
  };
}

/** `UserNotification` fields a notification event carries (user ids left out: they stay with the server). */
const NOTIFICATION_FIELDS = [
  '_id',
  'tenantId',
  'urlId',
  'url',
  'pageTitle',
  'relatedObjectType',
  'relatedObjectId',
  'viewed',
  'isUnreadMessage',
  'sent',
  'createdAt',
  'type',
  'fromCommentId',
  'fromVoteId',
  'fromUserName',
  'fromUserAvatarSrc',
  'optedOut',
  'count',
  'relatedIds',
  'fromUserNames',
] as const;

/**
 * A notification as its recipient's widget may see it. It travels only on the recipient's own
 * channel (`userIdWS`), but ids of users (the recipient's and the actors') are left out all
 * the same: a site's single sign-on ids are often its own account ids or emails.
 */
export function publicNotification(notification: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of NOTIFICATION_FIELDS) {
    const value = notification[field];
    if (value !== undefined) out[field] = value;
  }
  return out;
}

/**
 * The event as public outputs may carry it: its comment, vote and notification projected, and
 * no top-level `userId`. Other fields are the server's own (types, counts, ids of the page's
 * objects).
 */
export function publicEvent(event: LiveEvent): LiveEvent {
  if (event.comment === undefined && event.vote === undefined && event.userId === undefined && event['notification'] === undefined) return event;
  const { userId: _private, ...out } = event as LiveEvent & Record<string, unknown>;
  if (event.comment !== undefined) out['comment'] = publicComment(event.comment);
  if (event.vote !== undefined) out['vote'] = publicVote(event.vote);
  if (event['notification'] !== undefined) out['notification'] = publicNotification(event['notification'] as Record<string, unknown>);
  return out as LiveEvent;
}
