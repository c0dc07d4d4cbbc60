/**
 * The reader's notifications and page subscriptions, as the widget's bell uses them: the seven
 * `/user-notifications` operations. Public (no API key, no credits), limited per client as
 * every public route is, and only ever about the calling reader (`http/public-reader.ts`):
 * another reader's notification is `not-found`. A reader without identity has none.
 */
import { type NotificationDoc, NOTIFICATION_TYPES, recipientActorId } from '../../actors/notify/notification-doc.js';
import { NotificationsKind, SubscriptionsKind } from '../../actors/notify/protocol.js';
import { ReaderReadsKind } from '../../actors/reader/reader-reads-actor.js';
import { ApiError } from '../../engine/errors.js';
import { componentStrings } from '../../translations/index.js';
import { admitTenant, publicReader, readerRecipient, type PublicReader } from '../public-reader.js';
import { route, type RouteRequest, type Schema } from '../route.js';
import { text, URL_ID } from './page-context.js';

/** Notifications one list answers by default, and at most. */
export const NOTIFICATION_PAGE = { default: 20, max: 100 } as const;

interface AccountQuery {
  tenantId: string;
  sso?: string;
  sessionId?: string;
  urlId?: string;
  url?: string;
  pageTitle?: string;
  pageSize?: number;
  afterId?: string;
  afterCreatedAt?: number;
  unreadOnly?: boolean;
  dmOnly?: boolean;
  noDm?: boolean;
  includeContext?: boolean;
  includeTranslations?: boolean;
  includeTenantNotifications?: boolean;
  commentId?: string;
  locale?: string;
}

const TENANT_ID: Schema = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' };
const IDENTITY = { tenantId: TENANT_ID, sso: text(16_384), sessionId: text(64) };
const FLAGS = { unreadOnly: { type: 'boolean' }, dmOnly: { type: 'boolean' }, noDm: { type: 'boolean' } };
const CURSOR = { afterId: text(128), afterCreatedAt: { type: 'integer', minimum: 0, maximum: 8.64e15 } };
const missingCodes = { tenantId: 'missing-tenant-id', urlId: 'missing-url-id' } as const;

function query(properties: Record<string, Schema>, required: string[] = []): Schema {
  return { type: 'object', properties: { ...IDENTITY, ...properties }, required: ['tenantId', ...required] };
}

/** `viewed` and `sent` as `RenderableUserNotification` types them (strings): `"true"`, or `""` (falsy) when not. */
function flagText(value: boolean): string {
  return value ? 'true' : '';
}

/** A notification as its reader's list shows it (`RenderableUserNotification`): no recipient ids, no stored email text. */
export function renderableNotification(doc: NotificationDoc): Record<string, unknown> {
  const out: Record<string, unknown> = {
    _id: doc._id,
    urlId: doc.urlId,
    url: doc.url,
    pageTitle: doc.pageTitle,
    relatedObjectType: doc.relatedObjectType,
    relatedObjectId: doc.relatedObjectId,
    viewed: flagText(doc.viewed),
    sent: flagText(doc.sent),
    createdAt: doc.createdAt,
    type: doc.type,
    fromCommentId: doc.fromCommentId,
    fromUserName: doc.fromUserName,
    fromUserId: doc.fromUserId,
    fromUserAvatarSrc: doc.fromUserAvatarSrc,
    optedOut: doc.optedOut,
  };
  if (doc.count !== undefined) out['count'] = doc.count;
  if (doc.relatedIds !== undefined) out['relatedIds'] = doc.relatedIds;
  if (doc.fromUserIds !== undefined) out['fromUserIds'] = doc.fromUserIds;
  if (doc.fromUserNames !== undefined) out['fromUserNames'] = doc.fromUserNames;
  return out;
}

async function readerOf(req: RouteRequest<AccountQuery, undefined>, start = false): Promise<{ reader: PublicReader; recipient: string | null }> {
  await admitTenant(req, req.query.tenantId);
  const reader = await publicReader(req, req.query.tenantId, { start });
  return { reader, recipient: readerRecipient(reader) };
}

/** The reader's own notification `id`, or `not-found` (another reader's, another tenant's, none). */
async function ownNotification(req: RouteRequest<AccountQuery, undefined>, recipient: string | null): Promise<NotificationDoc> {
  const id = req.params['notificationId']!;
  const doc = recipient === null ? null : await req.app.system.ask(ReaderReadsKind, req.query.tenantId, 'notification', { id });
  if (doc === null || doc.recipient !== recipient) throw new ApiError('not-found', `You have no notification ${id}.`);
  return doc;
}

const write = (matched: number, modified: number) => ({ matchedCount: matched, modifiedCount: modified });

export const publicAccountRoutes = [
  route<AccountQuery, undefined>({
    method: 'GET',
    path: '/user-notifications',
    access: 'public',
    query: query({
      ...FLAGS,
      ...CURSOR,
      urlId: URL_ID,
      pageSize: { type: 'integer', minimum: 1, maximum: NOTIFICATION_PAGE.max },
      includeContext: { type: 'boolean' },
      includeTranslations: { type: 'boolean' },
      includeTenantNotifications: { type: 'boolean' },
      locale: text(32),
    }),
    missingCodes,
    handle: async (req) => {
      const q = req.query;
      const { recipient } = await readerOf(req);
      const limit = q.pageSize ?? NOTIFICATION_PAGE.default;
      let docs: NotificationDoc[] = [];
      // Direct messages are never made by this server: asking only for them finds none.
      if (recipient !== null && q.dmOnly !== true) {
        docs = await req.app.system.ask(ReaderReadsKind, q.tenantId, 'notifications', {
          recipient,
          unreadOnly: q.unreadOnly === true,
          afterId: q.afterId || null,
          afterCreatedAt: q.afterCreatedAt ?? null,
          excludeTypes: q.noDm === true ? [NOTIFICATION_TYPES.directMessage] : [],
          limit: limit + 1,
        });
      }
      const subscribed = recipient !== null && q.urlId ? (await req.app.system.ask(ReaderReadsKind, q.tenantId, 'subscription', { recipient, urlId: q.urlId })) !== null : false;
      const answer: Record<string, unknown> = { notifications: docs.slice(0, limit).map(renderableNotification), hasMore: docs.length > limit, isSubscribed: subscribed };
      if (q.includeTranslations === true) answer['translations'] = componentStrings('comment-ui-notifications-list', q.locale);
      return answer;
    },
  }),

  route<AccountQuery, undefined>({
    method: 'GET',
    path: '/user-notifications/get-count',
    access: 'public',
    query: query({}),
    missingCodes,
    handle: async (req) => {
      const { recipient } = await readerOf(req);
      if (recipient === null) return { count: 0 };
      const count = await req.app.system.ask(NotificationsKind, recipientActorId(req.query.tenantId, recipient), 'getCount', null);
      return { count: count?.count ?? 0 };
    },
  }),

  route<AccountQuery, undefined>({
    method: 'POST',
    path: '/user-notifications/reset-count',
    access: 'public',
    query: query({}),
    missingCodes,
    handle: async (req) => {
      const { recipient } = await readerOf(req);
      if (recipient !== null) await req.app.system.ask(NotificationsKind, recipientActorId(req.query.tenantId, recipient), 'clearCount', null);
      return {};
    },
  }),

  route<AccountQuery, undefined>({
    method: 'POST',
    path: '/user-notifications/reset',
    access: 'public',
    query: query({ ...FLAGS, ...CURSOR }),
    missingCodes,
    handle: async (req) => {
      const { recipient } = await readerOf(req);
      if (recipient === null) return {};
      const actor = recipientActorId(req.query.tenantId, recipient);
      // Rounds of at most 500, each durable before the next: a long backlog never holds the actor long.
      for (let round = 0; round < 100; round++) {
        const { more } = await req.app.system.ask(NotificationsKind, actor, 'markAllViewed', null);
        if (!more) break;
      }
      return {};
    },
  }),

  route<AccountQuery, undefined>({
    method: 'POST',
    path: '/user-notifications/:notificationId/mark/:newStatus',
    access: 'public',
    params: { type: 'object', properties: { notificationId: text(128, 1), newStatus: { type: 'string', enum: ['read', 'unread'] } }, required: ['notificationId', 'newStatus'] },
    query: query({}),
    missingCodes,
    handle: async (req) => {
      const { recipient } = await readerOf(req);
      const doc = await ownNotification(req, recipient);
      const viewed = req.params['newStatus'] === 'read';
      if (doc.viewed === viewed) return write(1, 0);
      await req.app.system.ask(NotificationsKind, recipientActorId(req.query.tenantId, recipient!), 'patch', { id: doc._id, viewed });
      return write(1, 1);
    },
  }),

  route<AccountQuery, undefined>({
    method: 'POST',
    path: '/user-notifications/:notificationId/mark-opted/:optedInOrOut',
    access: 'public',
    params: { type: 'object', properties: { notificationId: text(128, 1), optedInOrOut: { type: 'string', enum: ['in', 'out'] } }, required: ['notificationId', 'optedInOrOut'] },
    query: query({ commentId: text(128, 1) }, ['commentId']),
    missingCodes: { ...missingCodes, commentId: 'missing-comment-id' },
    handle: async (req) => {
      const { recipient } = await readerOf(req);
      const doc = await ownNotification(req, recipient);
      const commentId = req.query.commentId!;
      if (commentId !== doc.relatedObjectId && commentId !== doc.fromCommentId) {
        throw new ApiError('not-found', `Notification ${doc._id} is not about comment ${commentId}.`);
      }
      const optedOut = req.params['optedInOrOut'] === 'out';
      if (doc.optedOut === optedOut) return write(1, 0);
      await req.app.system.ask(NotificationsKind, recipientActorId(req.query.tenantId, recipient!), 'patch', { id: doc._id, optedOut });
      return write(1, 1);
    },
  }),

  route<AccountQuery, undefined>({
    method: 'POST',
    path: '/user-notifications/set-subscription-state/:subscribedOrUnsubscribed',
    access: 'public',
    params: { type: 'object', properties: { subscribedOrUnsubscribed: { type: 'string', enum: ['subscribe', 'unsubscribe'] } }, required: ['subscribedOrUnsubscribed'] },
    query: query({ urlId: text(4096, 1), url: text(2048), pageTitle: text(1000) }, ['urlId']),
    missingCodes,
    handle: async (req) => {
      const q = req.query;
      const subscribe = req.params['subscribedOrUnsubscribed'] === 'subscribe';
      // Following a page is remembered, so a reader without a session gets one.
      const { recipient } = await readerOf(req, subscribe);
      if (recipient === null) return write(0, 0);
      const current = await req.app.system.ask(ReaderReadsKind, q.tenantId, 'subscription', { recipient, urlId: q.urlId! });
      const actor = recipientActorId(q.tenantId, recipient);
      if (subscribe) {
        if (current !== null) return write(1, 0);
        const url = q.url && /^https?:\/\//i.test(q.url) ? q.url : null;
        try {
          await req.app.system.ask(SubscriptionsKind, actor, 'create', { urlId: q.urlId!, url, pageTitle: q.pageTitle || null, notificationFrequency: null });
        } catch (err) {
          // Subscribed meanwhile (another tab): the state asked for holds.
          if (err instanceof ApiError && err.code === 'subscription-exists') return write(1, 0);
          throw err;
        }
        return write(1, 1);
      }
      if (current === null) return write(0, 0);
      await req.app.system.ask(SubscriptionsKind, actor, 'remove', { id: current._id });
      return write(1, 1);
    },
  }),
];
