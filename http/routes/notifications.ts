import { countView, NOTIFICATION_TYPE_VALUES, notificationView, recipientActorId, recipientKey } from '../../actors/notify/notification-doc.js';
import { NotificationReadsKind, NotificationsKind, type NotificationQuery } from '../../actors/notify/protocol.js';
import { ApiError } from '../../engine/errors.js';
import { route, type Schema } from '../route.js';
import { text, URL_ID, USER_ID } from './page-context.js';

/** Notifications a list answers (the API's page size). */
export const NOTIFICATIONS_PAGE = 30;

interface Filters {
  userId?: string;
  urlId?: string;
  fromCommentId?: string;
  viewed?: boolean;
  type?: number;
  skip?: number;
}

const FILTERS: Record<string, Schema> = {
  userId: USER_ID,
  urlId: URL_ID,
  fromCommentId: text(128, 1),
  viewed: { type: 'boolean' },
  // The API types it as a string; its values are those of `NotificationType`.
  type: { type: 'integer', enum: NOTIFICATION_TYPE_VALUES },
};

const USER_PARAM: Schema = { type: 'object', properties: { user_id: USER_ID }, required: ['user_id'] };
const ID_PARAM: Schema = { type: 'object', properties: { id: text(128, 1) }, required: ['id'] };

function queryOf(filters: Filters): NotificationQuery {
  return {
    ...(filters.userId !== undefined ? { recipient: recipientKey({ userId: filters.userId, anonUserId: null }) } : {}),
    ...(filters.urlId !== undefined ? { urlId: filters.urlId } : {}),
    ...(filters.fromCommentId !== undefined ? { fromCommentId: filters.fromCommentId } : {}),
    ...(filters.viewed !== undefined ? { viewed: filters.viewed } : {}),
    ...(filters.type !== undefined ? { type: filters.type } : {}),
  };
}

/** The notifications actor of a user of the tenant. */
function userActor(tenantId: string, userId: string): string {
  return recipientActorId(tenantId, recipientKey({ userId, anonUserId: null }));
}

/**
 * Notifications and unread counts. They are made by the server (docs/notifications.md), never
 * through the API: it reads them, changes `viewed` and `optedOut`, and clears counts.
 */
export const notificationRoutes = [
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/api/v1/notification-count/:user_id',
    access: 'tenant',
    params: USER_PARAM,
    handle: async ({ app, tenantId, params }) => {
      const userId = params['user_id']!;
      const count = await app.system.ask(NotificationsKind, userActor(tenantId, userId), 'getCount', null);
      if (count === null) throw new ApiError('not-found', `User ${userId} has no unread notifications.`);
      return { data: countView(count) };
    },
  }),

  route<Record<string, unknown>, undefined>({
    method: 'DELETE',
    path: '/api/v1/notification-count/:user_id',
    access: 'tenant',
    params: USER_PARAM,
    handle: async ({ app, tenantId, params }) => {
      await app.system.ask(NotificationsKind, userActor(tenantId, params['user_id']!), 'clearCount', null);
      return {};
    },
  }),

  route<Filters, undefined>({
    method: 'GET',
    path: '/api/v1/notifications',
    access: 'tenant',
    query: { type: 'object', properties: { ...FILTERS, skip: { type: 'integer', minimum: 0, maximum: 1_000_000 } } },
    handle: async ({ app, tenantId, query }) => {
      const docs = await app.system.ask(NotificationReadsKind, tenantId, 'listNotifications', { query: queryOf(query), skip: query.skip ?? 0, limit: NOTIFICATIONS_PAGE });
      return { notifications: docs.map(notificationView) };
    },
  }),

  route<Filters, undefined>({
    method: 'GET',
    path: '/api/v1/notifications/count',
    access: 'tenant',
    query: { type: 'object', properties: FILTERS },
    // Twice the unread count's cost: it counts in storage, with filters.
    credits: 2,
    handle: async ({ app, tenantId, query }) => ({ count: await app.system.ask(NotificationReadsKind, tenantId, 'countNotifications', { query: queryOf(query) }) }),
  }),

  route<{ userId?: string }, { viewed?: boolean; optedOut?: boolean }>({
    method: 'PATCH',
    path: '/api/v1/notifications/:id',
    access: 'tenant',
    params: ID_PARAM,
    query: { type: 'object', properties: { userId: USER_ID } },
    // Only these two may change; any other field is refused (`unexpected-param`) and nothing changes.
    body: { type: 'object', properties: { viewed: { type: 'boolean' }, optedOut: { type: 'boolean' } }, minProperties: 1 },
    handle: async ({ app, tenantId, params, query, body }) => {
      const id = params['id']!;
      const missing = () => new ApiError('not-found', `No notification ${id}.`);
      const recipient = await app.system.ask(NotificationReadsKind, tenantId, 'locateNotification', { id });
      if (recipient === null) throw missing();
      if (query.userId !== undefined && recipient !== recipientKey({ userId: query.userId, anonUserId: null })) throw missing();
      const changes: { id: string; viewed?: boolean; optedOut?: boolean } = { id };
      if (body.viewed !== undefined) changes.viewed = body.viewed;
      if (body.optedOut !== undefined) changes.optedOut = body.optedOut;
      await app.system.ask(NotificationsKind, recipientActorId(tenantId, recipient), 'patch', changes);
      return {};
    },
  }),
];
