/**
 * Outbound webhooks, as callers know them:
 * - `webhooks:<tenantId>`: a tenant's subscriptions and the queue of its pending deliveries
 *   (the events themselves are written by page actors, in the batch of the comment change);
 * - `pending-webhook-events:<tenantId>`: reads of the pending events (list, count);
 * - `webhooks-sweep:` (one): after a start and every minute, wakes the tenants with deliveries
 *   due; every hour, has tenants drop their events older than a year.
 *
 * Deadlock rules: a webhooks actor may ask tenant actors and tell itself; the sweep asks
 * webhooks actors; the reader asks nothing. Nothing asks the sweep, and no webhooks actor asks a page actor: routes (and
 * other callers) ask it for its targets and pass them to the page actor.
 */
import { defineKind } from '../../engine/actor.js';
import type { ActorSystem } from '../../engine/actor-system.js';
import type { Doc } from '../../storage/store.js';

/** Collections of webhook data. */
export const WEBHOOK_COLLECTIONS = {
  subscriptions: 'webhooks',
  pending: 'pendingWebhookEvents',
} as const;

/** The events a subscription may name. */
export const WEBHOOK_EVENTS = {
  created: 'comment-created',
  updated: 'comment-updated',
  deleted: 'comment-deleted',
} as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[keyof typeof WEBHOOK_EVENTS];

/** HTTP methods a subscription may use. */
export const WEBHOOK_METHODS = ['POST', 'PUT', 'DELETE'] as const;
export type WebhookMethod = (typeof WEBHOOK_METHODS)[number];

/** `OutboundSyncEventType` of a pending event. */
export const OUTBOUND_EVENT_TYPES = { create: 0, delete: 1, update: 2 } as const;
/** `OutboundSyncType` of webhook deliveries (0 is WordPress sync, which this server has not). */
export const OUTBOUND_TYPE_WEBHOOK = 1;

/** The `OutboundSyncEventType` of each subscription event. */
export const EVENT_TYPE_OF: Readonly<Record<WebhookEvent, number>> = {
  'comment-created': OUTBOUND_EVENT_TYPES.create,
  'comment-updated': OUTBOUND_EVENT_TYPES.update,
  'comment-deleted': OUTBOUND_EVENT_TYPES.delete,
};

/** Subscriptions made through the API a tenant may have. */
export const MAX_API_SUBSCRIPTIONS = 50;

/** A subscription as stored. `domain` is `*` (every domain) or one of the tenant's domains. */
export interface WebhookDoc extends Doc {
  tenantId: string;
  url: string;
  event: WebhookEvent;
  domain: string;
  method: WebhookMethod;
  source: 'api';
  createdAt: string;
}

/** What a page actor needs of a subscription to queue events for it. */
export interface WebhookTarget {
  readonly id: string;
  readonly url: string;
  readonly method: WebhookMethod;
  readonly event: WebhookEvent;
  readonly domain: string;
}

/** States of a pending event: still tried, or given up after the last attempt (kept, listed). */
export const PENDING_STATES = { pending: 'pending', givenUp: 'given-up' } as const;
export type PendingState = (typeof PENDING_STATES)[keyof typeof PENDING_STATES];

/** A queued delivery (`PendingWebhookEvent`) as stored. Times are epoch ms. */
export interface PendingWebhookEventDoc extends Doc {
  tenantId: string;
  commentId: string;
  /** The comment when the event happened, in the API's `FComment` shape. */
  comment: Record<string, unknown>;
  externalId: string | null;
  createdAt: number;
  attemptCount: number;
  nextAttemptAt: number;
  eventType: number;
  type: number;
  /** The comment's domain (else the subscription's, `*`). */
  domain: string;
  /** `{}` until an attempt fails; then `{statusCode, body, headers}` or `{error}`. */
  lastError: Record<string, unknown>;
  webhookId: string;
  url: string;
  method: WebhookMethod;
  state: PendingState;
}

/** How one delivery attempt ended. */
export type DeliveryResult =
  | { readonly outcome: 'delivered' }
  /** The receiver answered 410 Gone: the subscription is removed with its events. */
  | { readonly outcome: 'gone'; readonly error: Record<string, unknown> }
  | { readonly outcome: 'failed'; readonly error: Record<string, unknown> };

/** Filters of the pending-events list and count (the API's query names). */
export interface PendingFilter {
  readonly commentId?: string;
  readonly externalId?: string;
  readonly eventType?: number;
  readonly type?: number;
  readonly domain?: string;
  readonly attemptCountGT?: number;
}

/** What `subscribe` takes, as validated by the route (the URL's address already checked). */
export interface SubscribeRequest {
  readonly url: string;
  readonly event: WebhookEvent;
  readonly domain: string;
  readonly method: WebhookMethod;
}

/** Every message of a tenant's webhooks actor. */
export type WebhooksProtocol = {
  /** The subscriptions, for page writes to queue events by (answered without waiting on writes). */
  targets: { in: null; out: WebhookTarget[] };
  /** Adds a subscription, or answers the one with the same url, event and domain. */
  subscribe: { in: SubscribeRequest; out: { webhook: WebhookDoc; created: boolean } };
  list: { in: { event?: string; domain?: string; source?: string }; out: WebhookDoc[] };
  /** Removes a subscription and its queued events. */
  unsubscribe: { in: { id: string }; out: null };
  /** Removes queued events of a removed subscription, some at a time (told by the actor itself). */
  dropEvents: { in: { webhookId: string }; out: null };
  /** Events page actors made durable (told once their batch is durable). */
  enqueued: { in: { events: readonly PendingWebhookEventDoc[] }; out: null };
  /** Starts the deliveries that are due (its own timer, the sweep). */
  pump: { in: null; out: null };
  /** Records how an attempt ended. */
  attempted: { in: { id: string; result: DeliveryResult }; out: null };
  /** Removes one pending event; `not-found` when the tenant has none with this id. */
  removePending: { in: { id: string }; out: null };
  /** Drops events created before `cutoff` (epoch ms); answers how many. */
  expire: { in: { cutoff: number }; out: number };
};

export const WebhooksKind = defineKind<WebhooksProtocol>('webhooks');

/** The tenant's subscriptions, for a message that changes comments to carry to the page. */
export function webhookTargets(system: ActorSystem, tenantId: string): Promise<WebhookTarget[]> {
  return system.ask(WebhooksKind, tenantId, 'targets', null);
}

/**
 * Reads of a tenant's pending events (`pending-webhook-events:<tenantId>`): durable documents,
 * read apart from the webhooks actor so that a slow query never holds up its deliveries.
 */
export type PendingEventsProtocol = {
  /** Pending events, newest first: `limit` after `skip`. */
  list: { in: { filter: PendingFilter; skip: number; limit: number }; out: PendingWebhookEventDoc[] };
  count: { in: { filter: PendingFilter }; out: number };
};

export const PendingEventsKind = defineKind<PendingEventsProtocol>('pending-webhook-events');

export type WebhooksSweepProtocol = {
  /** Tells every tenant with deliveries due to pump. */
  wake: { in: null; out: { tenants: number } };
  /** Has every tenant with events older than `cutoff` drop them. */
  expire: { in: { cutoff: number }; out: { tenants: number } };
};

export const WebhooksSweepKind = defineKind<WebhooksSweepProtocol>('webhooks-sweep');

/**
 * Bus topic on which a page actor announces the events it queued, once they are durable. Heard
 * by this process only (the cluster relay carries page, user and tenant topics alone): the
 * listener tells the tenant's webhooks actor, wherever it lives.
 */
export function webhooksTopic(tenantId: string): string {
  return `webhooks:${tenantId}`;
}
