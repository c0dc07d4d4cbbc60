import { recipientActorId, recipientKey } from '../../actors/notify/notification-doc.js';
import { NotificationReadsKind, SubscriptionsKind } from '../../actors/notify/protocol.js';
import { type SubscriptionDoc, SUBSCRIPTION_FREQUENCIES, subscriptionView } from '../../actors/notify/subscription-doc.js';
import { ApiError } from '../../engine/errors.js';
import type { AppServices } from '../services.js';
import { route, type Schema } from '../route.js';
import { actorRef, link, requireUrlId, text, URL_ID, USER_ID } from './page-context.js';

/** Subscriptions a list answers (the API's page size). */
export const SUBSCRIPTIONS_PAGE = 30;

/** `notificationFrequency`: the values docs/notifications.md gives a meaning, or null (at once). */
const FREQUENCY: Schema = { type: ['integer', 'null'], enum: [...Object.values(SUBSCRIPTION_FREQUENCIES), null] };
const ID_PARAM: Schema = { type: 'object', properties: { id: text(128, 1) }, required: ['id'] };
const USER_QUERY: Schema = { type: 'object', properties: { userId: USER_ID } };

interface CreateBody {
  urlId: string;
  userId?: string;
  anonUserId?: string;
  url?: string;
  pageTitle?: string;
  notificationFrequency?: number | null;
}

/** The subscription `id` of the tenant (and of `userId`, when the caller names one), or `not-found`. */
async function ownSubscription(app: AppServices, tenantId: string, id: string, userId: string | undefined): Promise<SubscriptionDoc> {
  const doc = await app.system.ask(NotificationReadsKind, tenantId, 'getSubscription', { id });
  if (doc === null || (userId !== undefined && doc.userId !== userId)) throw new ApiError('not-found', `No subscription ${id}.`);
  return doc;
}

/** Page subscriptions: one per user per page; new top-level comments notify the subscribers. */
export const subscriptionRoutes = [
  route<{ userId?: string; skip?: number }, undefined>({
    method: 'GET',
    path: '/api/v1/subscriptions',
    access: 'tenant',
    query: { type: 'object', properties: { userId: USER_ID, skip: { type: 'integer', minimum: 0, maximum: 1_000_000 } } },
    handle: async ({ app, tenantId, query }) => {
      const recipient = query.userId === undefined ? null : recipientKey({ userId: query.userId, anonUserId: null });
      const docs = await app.system.ask(NotificationReadsKind, tenantId, 'listSubscriptions', { recipient, skip: query.skip ?? 0, limit: SUBSCRIPTIONS_PAGE });
      return { subscriptions: docs.map(subscriptionView) };
    },
  }),

  route<{ userId?: string }, undefined>({
    method: 'GET',
    path: '/api/v1/subscriptions/:id',
    access: 'tenant',
    params: ID_PARAM,
    query: USER_QUERY,
    handle: async ({ app, tenantId, params, query }) => ({ subscription: subscriptionView(await ownSubscription(app, tenantId, params['id']!, query.userId)) }),
  }),

  route<Record<string, unknown>, CreateBody>({
    method: 'POST',
    path: '/api/v1/subscriptions',
    access: 'tenant',
    body: {
      type: 'object',
      properties: {
        urlId: URL_ID,
        userId: USER_ID,
        anonUserId: USER_ID,
        url: link(4096),
        pageTitle: text(1000),
        notificationFrequency: FREQUENCY,
      },
      required: ['urlId'],
    },
    missingCodes: { urlId: 'missing-url-id' },
    handle: async ({ app, tenantId, body }) => {
      const urlId = requireUrlId(body.urlId);
      const recipient = recipientKey(actorRef(body));
      const doc = await app.system.ask(SubscriptionsKind, recipientActorId(tenantId, recipient), 'create', {
        urlId,
        url: body.url ?? null,
        pageTitle: body.pageTitle ?? null,
        notificationFrequency: body.notificationFrequency ?? null,
      });
      return { subscription: subscriptionView(doc) };
    },
  }),

  route<{ userId?: string }, { notificationFrequency?: number | null }>({
    method: 'PATCH',
    path: '/api/v1/subscriptions/:id',
    access: 'tenant',
    params: ID_PARAM,
    query: USER_QUERY,
    body: { type: 'object', properties: { notificationFrequency: FREQUENCY }, minProperties: 1 },
    handle: async ({ app, tenantId, params, query, body }) => {
      const doc = await ownSubscription(app, tenantId, params['id']!, query.userId);
      const next = await app.system.ask(SubscriptionsKind, recipientActorId(tenantId, doc.recipient), 'update', {
        id: doc._id,
        notificationFrequency: body.notificationFrequency ?? null,
      });
      return { subscription: subscriptionView(next) };
    },
  }),

  route<{ userId?: string }, undefined>({
    method: 'DELETE',
    path: '/api/v1/subscriptions/:id',
    access: 'tenant',
    params: ID_PARAM,
    query: USER_QUERY,
    handle: async ({ app, tenantId, params, query }) => {
      const doc = await ownSubscription(app, tenantId, params['id']!, query.userId);
      await app.system.ask(SubscriptionsKind, recipientActorId(tenantId, doc.recipient), 'remove', { id: doc._id });
      return {};
    },
  }),
];
