/**
 * Live events: what actors publish on the bus once their writes are durable, and what the
 * `/sub` websocket channel forwards to widgets. The shape is the official client's `LiveEvent`.
 */

/** Bus topic of one page: every live event about it (comments, votes, reactions, polls). */
export function pageTopic(tenantId: string, urlId: string): string {
  return `page:${tenantId}:${urlId}`;
}

/** Bus topic of one user of a tenant: events addressed to that user (notifications, badges). */
export function userTopic(tenantId: string, userId: string): string {
  return `user:${tenantId}:${userId}`;
}

/**
 * Bus topic of one tenant's own changes, for the server itself (never sent to widgets nor
 * logged): `access-changed` when what decides who may read a page changed.
 */
export function tenantTopic(tenantId: string): string {
  return `tenant:${tenantId}`;
}

/**
 * Published on `tenantTopic` once a change to who may read pages is durable: the tenant's or a
 * page's widget configuration (`requireSSO`), a page's groups, or a user's groups.
 */
export interface AccessChanged {
  readonly type: 'access-changed';
  readonly tenantId: string;
  /** The page concerned, or null for every page of the tenant. */
  readonly urlId: string | null;
  /** The only reader concerned, if the change is one user's. */
  readonly userId?: string;
}

/** The `access-changed` event of a tenant, for one page (or all: null), or one user's readers. */
export function accessChanged(tenantId: string, urlId: string | null, userId?: string): AccessChanged {
  return userId === undefined ? { type: 'access-changed', tenantId, urlId } : { type: 'access-changed', tenantId, urlId, userId };
}

/** What a bus topic addresses: a page (`id` is its urlId) or a user (`id` is the user id) of a tenant. */
export interface TopicAddress {
  readonly kind: 'page' | 'user';
  readonly tenantId: string;
  readonly id: string;
}

/**
 * Reads a topic made by `pageTopic` or `userTopic`; undefined for any other topic. Tenant ids
 * never contain `:`, so everything after the second `:` is the urlId or user id, colons and all.
 */
export function parseTopic(topic: string): TopicAddress | undefined {
  const kind = topic.startsWith('page:') ? 'page' : topic.startsWith('user:') ? 'user' : undefined;
  if (kind === undefined) return undefined;
  const colon = topic.indexOf(':', 5);
  if (colon <= 5) return undefined;
  return { kind, tenantId: topic.slice(5, colon), id: topic.slice(colon + 1) };
}

/** Event types. The first block is the official client's; the rest are this server's, documented in docs/live.md. */
export const LIVE_EVENT_TYPES = {
  newComment: 'new-comment',
  updatedComment: 'updated-comment',
  deletedComment: 'deleted-comment',
  newVote: 'new-vote',
  deletedVote: 'deleted-vote',
  commentVoteCount: 'cvc',
  threadStateChange: 'thread-state-change',
  newConfig: 'new-config',
  notification: 'notification',
  notificationUpdate: 'notification-update',
  updateBadges: 'update-badges',
  presenceUpdate: 'p-u',
  newFeedPost: 'new-feed-post',
  updatedFeedPost: 'updated-feed-post',
  deletedFeedPost: 'deleted-feed-post',
  pollUpdate: 'poll-update',
  pageReact: 'page-react',
  questionResult: 'question-result',
  feedPostReact: 'fr',
  feedPostUnreact: 'dfr',
} as const;

export type LiveEventType = (typeof LIVE_EVENT_TYPES)[keyof typeof LIVE_EVENT_TYPES];

/** One live event; fields beyond `type` and `timestamp` depend on the type. */
export interface LiveEvent {
  readonly type: LiveEventType;
  /**
   * Milliseconds since the epoch, when the change became durable. The live fan-out sets it as it
   * publishes, never decreasing along a topic, whatever the publisher put here.
   */
  readonly timestamp: number;
  readonly ts?: number;
  readonly broadcastId?: string;
  readonly userId?: string | null;
  readonly comment?: Record<string, unknown>;
  readonly vote?: Record<string, unknown>;
  readonly poll?: Record<string, unknown>;
  readonly extraInfo?: Record<string, unknown>;
  readonly config?: Record<string, unknown>;
  readonly isClosed?: boolean;
  readonly changes?: Readonly<Record<string, number>>;
  readonly [field: string]: unknown;
}
