import { checkTemplateDomain } from '../../actors/email/template-model.js';
import { SORT_DIRECTIONS } from '../../actors/page/listing.js';
import { SiteKind } from '../../actors/site/protocol.js';
import { TenantKind } from '../../actors/tenant/tenant-actor.js';
import { WEBHOOK_EVENTS, WEBHOOK_METHODS, type WebhookEvent, type WebhookMethod, WebhooksKind } from '../../actors/webhook/protocol.js';
import { ANY_DOMAIN, deliveryBody, subscriptionView } from '../../actors/webhook/webhook-model.js';
import { checkWebhookUrl } from '../../webhooks/address-policy.js';
import { route, type Schema } from '../route.js';
import { resolveQuery } from './comments.js';
import { link, text } from './page-context.js';

const EVENT: Schema = { type: 'string', enum: Object.values(WEBHOOK_EVENTS) };

interface SubscribeBody {
  url: string;
  event: WebhookEvent;
  domain?: string;
  method?: WebhookMethod;
}

const SUBSCRIBE_BODY: Schema = {
  type: 'object',
  properties: { url: link(2048), event: EVENT, domain: text(253, 1), method: { type: 'string', enum: [...WEBHOOK_METHODS] } },
  required: ['url', 'event'],
};

interface ListQuery {
  event?: string;
  domain?: string;
  source?: string;
}

const LIST_QUERY: Schema = { type: 'object', properties: { event: EVENT, domain: text(253, 1), source: { type: 'string', enum: ['api'] } } };
const ID_PARAM: Schema = { type: 'object', properties: { id: text(128, 1) }, required: ['id'] };
const SAMPLE_QUERY: Schema = { type: 'object', properties: { event: EVENT, limit: { type: 'integer', minimum: 1, maximum: 10 } } };

/** Webhook subscriptions (REST Hooks style) and sample payloads. Rules in docs/webhooks.md. */
export const webhookRoutes = [
  route<Record<string, unknown>, SubscribeBody>({
    method: 'POST',
    path: '/api/v1/webhooks',
    access: 'tenant',
    body: SUBSCRIBE_BODY,
    handle: async ({ app, tenantId, body }) => {
      const url = await checkWebhookUrl(body.url, app.config.webhookAllowPrivate);
      const configs = await app.system.ask(TenantKind, tenantId, 'listDomainConfigs', null);
      const domain = checkTemplateDomain(body.domain ?? ANY_DOMAIN, configs) ?? ANY_DOMAIN;
      const { webhook } = await app.system.ask(WebhooksKind, tenantId, 'subscribe', { url: url.href, event: body.event, domain, method: body.method ?? 'POST' });
      return { webhook: subscriptionView(webhook) };
    },
  }),
  route<ListQuery, undefined>({
    method: 'GET',
    path: '/api/v1/webhooks',
    access: 'tenant',
    query: LIST_QUERY,
    handle: async ({ app, tenantId, query }) => {
      const docs = await app.system.ask(WebhooksKind, tenantId, 'list', query);
      return { webhooks: docs.map(subscriptionView) };
    },
  }),
  route<{ event?: string; limit?: number }, undefined>({
    method: 'GET',
    path: '/api/v1/webhooks/sample-payloads',
    access: 'tenant',
    query: SAMPLE_QUERY,
    credits: 2,
    handle: async ({ app, tenantId, query }) => {
      const comments = await app.system.ask(SiteKind, tenantId, 'searchComments', {
        query: resolveQuery({ direction: SORT_DIRECTIONS.newestFirst, limit: query.limit ?? 3 }, null, null),
        voterKey: null,
        blocked: [],
      });
      return { payloads: comments.map((c) => deliveryBody(c)) };
    },
  }),
  route<Record<string, unknown>, undefined>({
    method: 'DELETE',
    path: '/api/v1/webhooks/:id',
    access: 'tenant',
    params: ID_PARAM,
    handle: async ({ app, tenantId, params }) => {
      await app.system.ask(WebhooksKind, tenantId, 'unsubscribe', { id: params['id']! });
      return {};
    },
  }),
];
