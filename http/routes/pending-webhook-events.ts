import { PendingEventsKind, type PendingFilter, WebhooksKind } from '../../actors/webhook/protocol.js';
import { pendingEventView } from '../../actors/webhook/webhook-model.js';
import { route, type Schema } from '../route.js';
import { text } from './page-context.js';

/** Pending events per page of the list. */
export const PENDING_PAGE_SIZE = 100;

const FILTERS: Record<string, Schema> = {
  commentId: text(128, 1),
  externalId: text(256, 1),
  eventType: { type: 'integer', minimum: 0, maximum: 2 },
  type: { type: 'integer', minimum: 0, maximum: 1 },
  domain: text(253, 1),
  attemptCountGT: { type: 'number', minimum: -1, maximum: 1_000_000 },
};

const LIST_QUERY: Schema = { type: 'object', properties: { ...FILTERS, skip: { type: 'integer', minimum: 0, maximum: 100_000_000 } } };
const COUNT_QUERY: Schema = { type: 'object', properties: FILTERS };
const ID_PARAM: Schema = { type: 'object', properties: { id: text(128, 1) }, required: ['id'] };

/** The queue of webhook deliveries not yet made (given-up ones included). Rules in docs/webhooks.md. */
export const pendingWebhookEventRoutes = [
  route<PendingFilter & { skip?: number }, undefined>({
    method: 'GET',
    path: '/api/v1/pending-webhook-events',
    access: 'tenant',
    query: LIST_QUERY,
    handle: async ({ app, tenantId, query }) => {
      const { skip, ...filter } = query;
      const docs = await app.system.ask(PendingEventsKind, tenantId, 'list', { filter, skip: skip ?? 0, limit: PENDING_PAGE_SIZE });
      return { pendingWebhookEvents: docs.map(pendingEventView) };
    },
  }),
  route<PendingFilter, undefined>({
    method: 'GET',
    path: '/api/v1/pending-webhook-events/count',
    access: 'tenant',
    query: COUNT_QUERY,
    handle: async ({ app, tenantId, query }) => ({ count: await app.system.ask(PendingEventsKind, tenantId, 'count', { filter: query }) }),
  }),
  route<Record<string, unknown>, undefined>({
    method: 'DELETE',
    path: '/api/v1/pending-webhook-events/:id',
    access: 'tenant',
    params: ID_PARAM,
    handle: async ({ app, tenantId, params }) => {
      await app.system.ask(WebhooksKind, tenantId, 'removePending', { id: params['id']! });
      return {};
    },
  }),
];
