/**
 * The shapes of webhooks: subscriptions as the API shows them, the pending event a comment
 * change queues, the body a receiver gets, and the pending event as the API lists it. Pure
 * functions, shared by the page actors that queue events, the webhooks actor and the sender.
 */
import type { Filter } from '../../storage/store.js';
import { siteAllowed } from '../tenant/domain-configs.js';
import {
  EVENT_TYPE_OF,
  OUTBOUND_TYPE_WEBHOOK,
  PENDING_STATES,
  type PendingFilter,
  type PendingWebhookEventDoc,
  type WebhookDoc,
  type WebhookEvent,
  type WebhookTarget,
} from './protocol.js';

/** The subscription domain that matches every comment. */
export const ANY_DOMAIN = '*';

/** The API shape of a subscription. */
export function subscriptionView(doc: WebhookDoc): Record<string, unknown> {
  return { id: doc._id, url: doc.url, event: doc.event, domain: doc.domain, method: doc.method, source: doc.source, enabled: true, createdAt: doc.createdAt };
}

/** What page actors get of a subscription. */
export function targetOf(doc: WebhookDoc): WebhookTarget {
  return { id: doc._id, url: doc.url, method: doc.method, event: doc.event, domain: doc.domain };
}

/** The site of a comment: its `domain`, else its URL's host (with a non-default port), lower-cased. */
export function commentDomain(comment: { readonly domain?: unknown; readonly url?: unknown }): string | null {
  if (typeof comment.domain === 'string' && comment.domain !== '') return comment.domain.toLowerCase();
  if (typeof comment.url !== 'string') return null;
  try {
    return new URL(comment.url).host.toLowerCase() || null;
  } catch {
    return null;
  }
}

/**
 * Whether a subscription's domain covers a comment's site: `*` covers all; a domain covers
 * itself and its subdomains (any port unless it names one), `*.example.com` the subdomains
 * only, as domain configurations do.
 */
export function domainMatches(subscription: string, site: string | null): boolean {
  if (subscription === ANY_DOMAIN) return true;
  return site !== null && siteAllowed([subscription], site);
}

/** Fields of a stored comment that the API's `FComment` has (the pending event's `comment`). */
const FCOMMENT_FIELDS = [
  '_id', 'tenantId', 'urlId', 'url', 'pageTitle', 'userId', 'anonUserId', 'commenterEmail', 'commenterName', 'commenterLink',
  'comment', 'commentHTML', 'parentId', 'date', 'localDateString', 'localDateHours', 'votes', 'votesUp', 'votesDown',
  'expireAt', 'verified', 'verifiedDate', 'notificationSentForParent', 'reviewed', 'externalId', 'externalParentId',
  'avatarSrc', 'isSpam', 'permNotSpam', 'hasImages', 'hasLinks', 'hasCode', 'approved', 'locale', 'isDeleted',
  'isDeletedUser', 'isBannedUser', 'isByAdmin', 'isByModerator', 'isPinned', 'isLocked', 'flagCount', 'rating',
  'displayLabel', 'meta', 'mentions', 'hashTags', 'badges', 'domain', 'moderationGroupIds', 'feedbackIds',
] as const;

/** `FComment` fields that may not be null (left out instead). */
const NOT_NULL = new Set<string>(['externalId', 'mentions', 'hashTags', 'feedbackIds', 'commenterName', 'comment', 'commentHTML']);

/** A stored comment in the API's `FComment` shape (its state when the event happened). */
export function commentSnapshot(doc: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of FCOMMENT_FIELDS) {
    const value = doc[field];
    if (value === undefined || (value === null && NOT_NULL.has(field))) continue;
    out[field] = value;
  }
  return out;
}

/** The pending event one subscription gets for one change of a comment. */
export function pendingEvent(
  id: string,
  target: WebhookTarget,
  tenantId: string,
  snapshot: Record<string, unknown>,
  site: string | null,
  nowMs: number,
): PendingWebhookEventDoc {
  return {
    _id: id,
    tenantId,
    commentId: String(snapshot['_id']),
    comment: snapshot,
    externalId: typeof snapshot['externalId'] === 'string' ? snapshot['externalId'] : null,
    createdAt: nowMs,
    attemptCount: 0,
    nextAttemptAt: nowMs,
    eventType: EVENT_TYPE_OF[target.event],
    type: OUTBOUND_TYPE_WEBHOOK,
    domain: site ?? target.domain,
    lastError: {},
    webhookId: target.id,
    url: target.url,
    method: target.method,
    state: PENDING_STATES.pending,
  };
}

/** Order of delivery: oldest first (ids break ties; within a process they grow). */
export function compareEvents(a: PendingWebhookEventDoc, b: PendingWebhookEventDoc): number {
  return a.createdAt - b.createdAt || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);
}

/** Optional `WebhookComment` fields, left out while empty. */
const OPTIONAL_BODY_FIELDS = ['url', 'userId', 'commenterEmail', 'externalId', 'avatarSrc', 'mentions', 'domain', 'moderationGroupIds'] as const;

/**
 * What a receiver gets: the comment as FastComments' `WebhookComment` (`id`, `date` as an ISO
 * 8601 string, `verifiedDate` in ms). Built from an `FComment`-shaped comment (a pending
 * event's, or a comment as the API shows it); `site` is the domain the event matched, sent as
 * `domain` when the comment names none.
 */
export function deliveryBody(comment: Readonly<Record<string, unknown>>, site?: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    id: comment['_id'] ?? comment['id'],
    urlId: comment['urlId'],
    commenterName: comment['commenterName'],
    comment: comment['comment'],
    commentHTML: comment['commentHTML'],
    parentId: comment['parentId'] ?? null,
    date: isoDate(comment['date']),
    votes: comment['votes'] ?? 0,
    votesUp: comment['votesUp'] ?? 0,
    votesDown: comment['votesDown'] ?? 0,
    verified: comment['verified'] === true,
    reviewed: comment['reviewed'] === true,
    isSpam: comment['isSpam'] === true,
    hasImages: comment['hasImages'] === true,
    approved: comment['approved'] === true,
    locale: comment['locale'] ?? null,
  };
  for (const field of OPTIONAL_BODY_FIELDS) {
    const value = comment[field];
    if (value !== undefined && value !== null && value !== '') body[field] = value;
  }
  if (body['domain'] === undefined) {
    const domain = site ?? commentDomain(comment);
    if (domain !== null && domain !== ANY_DOMAIN) body['domain'] = domain;
  }
  const verifiedAt = typeof comment['verifiedDate'] === 'string' ? Date.parse(comment['verifiedDate']) : Number.NaN;
  if (!Number.isNaN(verifiedAt)) body['verifiedDate'] = verifiedAt;
  return body;
}

/** Dates as this server stores them: already ISO 8601 in UTC with milliseconds. */
const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

function isoDate(value: unknown): string | null {
  if (typeof value === 'number') return new Date(value).toISOString();
  if (typeof value !== 'string') return null;
  if (ISO_UTC.test(value)) return value;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? value : new Date(ms).toISOString();
}

/** The API shape of a pending event (`PendingCommentToSyncOutbound`). */
export function pendingEventView(doc: PendingWebhookEventDoc): Record<string, unknown> {
  return {
    _id: doc._id,
    commentId: doc.commentId,
    comment: doc.comment,
    externalId: doc.externalId,
    createdAt: new Date(doc.createdAt).toISOString(),
    tenantId: doc.tenantId,
    attemptCount: doc.attemptCount,
    nextAttemptAt: new Date(doc.nextAttemptAt).toISOString(),
    eventType: doc.eventType,
    type: doc.type,
    domain: doc.domain,
    lastError: doc.lastError,
    webhookId: doc.webhookId,
  };
}

/** The storage filter of a tenant's pending events under the API's filters. */
export function pendingFilter(tenantId: string, filter: PendingFilter): Filter {
  const out: Record<string, Filter[string]> = { tenantId };
  if (filter.commentId !== undefined) out['commentId'] = filter.commentId;
  if (filter.externalId !== undefined) out['externalId'] = filter.externalId;
  if (filter.eventType !== undefined) out['eventType'] = filter.eventType;
  if (filter.type !== undefined) out['type'] = filter.type;
  if (filter.domain !== undefined) out['domain'] = filter.domain.toLowerCase();
  if (filter.attemptCountGT !== undefined) out['attemptCount'] = { $gt: filter.attemptCountGT };
  return out;
}

/** Whether a subscription is for this url, event and domain (subscribing again answers it). */
export function sameSubscription(doc: WebhookDoc, url: string, event: WebhookEvent, domain: string): boolean {
  return doc.url === url && doc.event === event && doc.domain === domain;
}
