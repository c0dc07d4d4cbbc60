/**
 * `GET /pages/{tenantId}`: the tenant's pages as any reader may list them (title, link, comment
 * count, last change), and `GET /event-log/global/{tenantId}`: the catch-up log of a reader's
 * own channel (the per-user channel's `notification` events since a time). Public, no credits.
 */
import { LRUCache } from 'lru-cache';
import { LIVE_EVENT_TYPES } from '../../actors/live/live-events.js';
import { encodeLiveEvent } from '../../actors/live/live-wire.js';
import { publicNotification } from '../../actors/live/public-projection.js';
import { notificationView, recipientKey } from '../../actors/notify/notification-doc.js';
import type { PageDoc } from '../../actors/page/page-doc.js';
import { ReaderReadsKind } from '../../actors/reader/reader-reads-actor.js';
import { SiteKind } from '../../actors/site/protocol.js';
import { tenantSettings } from '../../actors/tenant/tenant-actor.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { isNoUser, PROFILES_CHANNEL } from '../live/sub-channel.js';
import { admitTenant, publicReader } from '../public-reader.js';
import { route, type RouteRequest, type Schema } from '../route.js';
import { text } from './page-context.js';

/** Limits of the public page list, documented in docs/public-reader.md. */
export const PUBLIC_PAGES = {
  defaultLimit: 20,
  maxLimit: 100,
  /** Pages of a tenant the list considers (the oldest first); more are not listed. */
  maxPages: 10_000,
  /** How long a tenant's page list is reused before it is read again. */
  cacheMs: 10_000,
} as const;
/** Events one global log read answers at most. */
export const GLOBAL_LOG_LIMIT = 500;

interface PagesQuery {
  cursor?: string;
  limit?: number;
  q?: string;
  sortBy?: 'updatedAt' | 'commentCount' | 'title';
  hasComments?: boolean;
  sso?: string;
  sessionId?: string;
}

/** The query of a per-user catch-up read. */
export interface LogQuery {
  urlId?: string;
  userIdWS?: string;
  startTime: number;
  endTime?: number;
}

interface PublicPage {
  readonly urlId: string;
  readonly url: string;
  readonly title: string;
  readonly commentCount: number;
  readonly updatedAt: number;
}

const TENANT_PARAM: Schema = { type: 'object', properties: { tenantId: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } }, required: ['tenantId'] };
const LOG_TENANT_PARAM: Schema = { type: 'object', properties: { tenantId: text(8192, 1) }, required: ['tenantId'] };

const lists = new LRUCache<string, { at: number; pages: PublicPage[] }>({ max: 1000 });

function publicPage(page: PageDoc): PublicPage {
  return { urlId: page.urlId, url: page.url ?? '', title: page.title, commentCount: page.commentCount, updatedAt: Date.parse(page.updatedAt) || 0 };
}

/** The tenant's listable pages: pages restricted to groups are left out. */
async function pagesOf(system: Parameters<typeof tenantSettings>[0], tenantId: string): Promise<PublicPage[]> {
  const cached = lists.get(tenantId);
  if (cached !== undefined && clock.now() - cached.at < PUBLIC_PAGES.cacheMs) return cached.pages;
  const pages: PublicPage[] = [];
  for (let skip = 0; skip < PUBLIC_PAGES.maxPages; skip += 1000) {
    const round = await system.ask(SiteKind, tenantId, 'listPages', { skip, limit: 1000 });
    for (const page of round.pages) if (page.accessibleByGroupIds.length === 0) pages.push(publicPage(page));
    if (!round.hasMore) break;
  }
  lists.set(tenantId, { at: clock.now(), pages });
  return pages;
}

const ORDER: Record<NonNullable<PagesQuery['sortBy']>, (a: PublicPage, b: PublicPage) => number> = {
  updatedAt: (a, b) => b.updatedAt - a.updatedAt || (a.urlId < b.urlId ? -1 : 1),
  commentCount: (a, b) => b.commentCount - a.commentCount || (a.urlId < b.urlId ? -1 : 1),
  title: (a, b) => a.title.localeCompare(b.title) || (a.urlId < b.urlId ? -1 : 1),
};

export const publicPageRoutes = [
  route<PagesQuery, undefined>({
    method: 'GET',
    path: '/pages/:tenantId',
    access: 'public',
    params: TENANT_PARAM,
    query: {
      type: 'object',
      properties: {
        cursor: { type: 'string', pattern: '^[0-9]{1,6}$' },
        limit: { type: 'integer', minimum: 1, maximum: PUBLIC_PAGES.maxLimit },
        q: text(200),
        sortBy: { type: 'string', enum: Object.keys(ORDER) },
        hasComments: { type: 'boolean' },
        sso: text(16_384),
        sessionId: text(64),
      },
    },
    handle: async (req) => {
      const tenantId = req.params['tenantId']!;
      const q = req.query;
      const settings = await tenantSettings(req.app.system, tenantId, null);
      if (settings.requireSSO && !(await publicReader(req, tenantId)).secure) throw new ApiError('sso-required', 'This site requires single sign-on: give the sso of a signed-on reader.');
      const needle = (q.q ?? '').trim().toLowerCase();
      const matching = (await pagesOf(req.app.system, tenantId)).filter(
        (p) => (needle === '' || p.title.toLowerCase().includes(needle) || p.urlId.toLowerCase().includes(needle)) && (q.hasComments === undefined || q.hasComments === p.commentCount > 0),
      );
      matching.sort(ORDER[q.sortBy ?? 'updatedAt']);
      const start = Number(q.cursor ?? '0');
      const limit = q.limit ?? PUBLIC_PAGES.defaultLimit;
      const pages = matching.slice(start, start + limit);
      return { pages, nextCursor: start + limit < matching.length ? String(start + limit) : null };
    },
  }),

  route<LogQuery, undefined>({
    method: 'GET',
    path: '/event-log/global/:tenantId',
    access: 'public',
    params: LOG_TENANT_PARAM,
    query: {
      type: 'object',
      properties: { urlId: text(8192), userIdWS: text(8192), startTime: { type: 'integer', minimum: 0 }, endTime: { type: 'integer', minimum: 0 } },
      required: ['userIdWS', 'startTime'],
    },
    missingCodes: { userIdWS: 'missing-param' },
    handle: (req) => profileLog(req, req.params['tenantId']!),
  }),
];


/**
 * The catch-up log of a reader's own channel: its notifications created in [startTime,
 * endTime] as `notification` events, oldest first. `named` is the tenant's id, its
 * `tenantIdWS`, or `__internal_profiles` (the JavaScript client's `/event-log/__internal_profiles/`),
 * in which case the tenant is the one the `userIdWS` was issued for and its sites are checked here.
 */
export async function profileLog(req: RouteRequest<LogQuery, undefined>, named: string): Promise<Record<string, unknown>> {
  const q = req.query;
  const user = q.userIdWS === undefined || isNoUser(q.userIdWS) ? undefined : req.app.liveIds.userOf(q.userIdWS);
  const tenantId = named === PROFILES_CHANNEL ? user?.tenantId : (req.app.liveIds.tenantOf(named) ?? named);
  if (user === undefined || user.tenantId !== tenantId) throw new ApiError('invalid-live-id', 'userIdWS was not issued for this tenant.');
  if (named === PROFILES_CHANNEL) await admitTenant(req, tenantId);
  const endTime = q.endTime ?? Number.MAX_SAFE_INTEGER;
  if (endTime < q.startTime) throw new ApiError('invalid-param', 'endTime must not be before startTime.');
  const docs = await req.app.system.ask(ReaderReadsKind, tenantId, 'notificationsSince', {
    recipient: recipientKey({ userId: user.userId, anonUserId: null }),
    since: q.startTime,
    until: endTime,
    limit: GLOBAL_LOG_LIMIT,
  });
  const urlId = `${PROFILES_CHANNEL}:${q.userIdWS}`;
  const events = docs.map((doc) => {
    const timestamp = Date.parse(doc.createdAt);
    const data = encodeLiveEvent({ type: LIVE_EVENT_TYPES.notification, timestamp, notification: publicNotification(notificationView(doc)) });
    return { _id: doc._id, createdAt: doc.createdAt, tenantId, urlId, broadcastId: '', data };
  });
  return { events };
}
