/**
 * A reader's activity feed (`GET /comments-for-user`), user search for mentions
 * (`GET /user-search/{tenantId}`) and sign-out (`PUT /auth/logout`): public, no API key, no
 * credits, public projections only.
 */
import { publicComment } from '../../actors/live/public-projection.js';
import { DEFAULT_PAGE_SIZE, SORT_DIRECTIONS, type SortDirection } from '../../actors/page/listing.js';
import { ReaderReadsKind, USER_SEARCH_LIMIT } from '../../actors/reader/reader-reads-actor.js';
import { SiteKind } from '../../actors/site/protocol.js';
import { type UserDoc, UserKind, userActorId } from '../../actors/user/protocol.js';
import { ApiError } from '../../engine/errors.js';
import { ANON_COOKIE } from '../anon-session.js';
import { forwardedProto } from '../client-address.js';
import { assertMayListen } from '../live/page-access.js';
import { admitTenant, publicReader } from '../public-reader.js';
import { CustomReply, route } from '../route.js';
import { text, URL_ID } from './page-context.js';

/** Deepest page of an activity feed (pages of `DEFAULT_PAGE_SIZE`). */
export const ACTIVITY_MAX_PAGE = 100;

interface ActivityQuery {
  userId?: string;
  tenantId?: string;
  direction?: SortDirection;
  repliesToUserId?: string;
  page?: number;
  includei10n?: boolean;
  locale?: string;
  isCrawler?: boolean;
  sso?: string;
  sessionId?: string;
}

interface SearchQuery {
  urlId: string;
  usernameStartsWith?: string;
  mentionGroupIds?: string | string[];
  sso?: string;
  sessionId?: string;
  searchSection?: 'fast' | 'site';
}

const TENANT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The tenant of an activity read: `tenantId` when given, else the tenant an SSO user id starts with. */
function activityTenant(q: ActivityQuery): string {
  if (q.tenantId !== undefined && q.tenantId !== '' && q.tenantId !== 'all') return q.tenantId;
  const prefix = q.userId?.split(':', 1)[0];
  if (prefix !== undefined && prefix !== q.userId && TENANT_ID.test(prefix)) return prefix;
  throw new ApiError('missing-tenant-id', 'Name the tenant with tenantId (or pass the userId of a single sign-on user, which holds it).');
}

/** A user as the mention list shows it (`UserSearchResult`). */
function searchEntry(user: UserDoc): Record<string, unknown> {
  return { id: user._id, name: user.username, displayName: user.displayName ?? user.username, avatarSrc: user.avatarSrc, type: user.kind === 'sso' ? 'sso' : 'user' };
}

function startsWith(value: string | null, prefix: string): boolean {
  return value !== null && value.toLowerCase().startsWith(prefix);
}

export const publicActivityRoutes = [
  route<ActivityQuery, undefined>({
    method: 'GET',
    path: '/comments-for-user',
    access: 'public',
    query: {
      type: 'object',
      properties: {
        userId: text(256, 1),
        tenantId: { type: 'string', pattern: '^([A-Za-z0-9_-]{1,64})?$' },
        direction: { type: 'string', enum: Object.values(SORT_DIRECTIONS) },
        repliesToUserId: text(256),
        page: { type: 'integer', minimum: 0, maximum: ACTIVITY_MAX_PAGE },
        includei10n: { type: 'boolean' },
        locale: text(32),
        isCrawler: { type: 'boolean' },
        sso: text(16_384),
        sessionId: text(64),
      },
      required: ['userId'],
    },
    missingCodes: { userId: 'missing-user-id' },
    handle: async (req) => {
      const q = req.query;
      const tenantId = activityTenant(q);
      await admitTenant(req, tenantId);
      const reader = await publicReader(req, tenantId);
      const userId = q.userId!;
      const user = await req.app.system.ask(UserKind, userActorId(tenantId, userId), 'get', null);
      if (user === null || user.tenantId !== tenantId) return { comments: [], hasMore: false, moderatingTenantIds: [] };
      if (user.isProfileActivityPrivate && reader.userId !== user._id) {
        throw new ApiError('profile-activity-private', 'This user keeps their activity private.');
      }
      const page = q.page ?? 0;
      // Most relevant means newest first for a person's activity: there is no thread to rank.
      const direction = q.direction === SORT_DIRECTIONS.oldestFirst ? SORT_DIRECTIONS.oldestFirst : SORT_DIRECTIONS.newestFirst;
      const found = await req.app.system.ask(SiteKind, tenantId, 'searchComments', {
        query: { direction, skip: page * DEFAULT_PAGE_SIZE, limit: DEFAULT_PAGE_SIZE + 1, parentId: undefined, asTree: false, maxTreeDepth: null, limitChildren: null, skipChildren: 0, userId: user._id, fromDate: undefined, toDate: undefined, hashTagKeys: [] },
        voterKey: null,
        blocked: [],
      });
      // Pages the reader may not view (single sign-on, groups) keep their comments.
      const allowed = new Map<string, boolean>();
      for (const urlId of new Set(found.map((c) => String(c['urlId'])))) {
        try {
          await assertMayListen(req.app.system, tenantId, urlId, reader.secure ? reader.userId : null);
          allowed.set(urlId, true);
        } catch (err) {
          if (!(err instanceof ApiError) || err.status >= 500) throw err;
          allowed.set(urlId, false);
        }
      }
      const comments = found
        .slice(0, DEFAULT_PAGE_SIZE)
        .filter((c) => allowed.get(String(c['urlId'])) === true && c['isDeleted'] !== true)
        .map((c) => ({ ...publicComment(c), id: c['_id'] }));
      return { comments, hasMore: found.length > DEFAULT_PAGE_SIZE, pageNumber: page, moderatingTenantIds: [] };
    },
  }),

  route<SearchQuery, undefined>({
    method: 'GET',
    path: '/user-search/:tenantId',
    access: 'public',
    params: { type: 'object', properties: { tenantId: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } }, required: ['tenantId'] },
    query: {
      type: 'object',
      properties: {
        urlId: URL_ID,
        usernameStartsWith: text(100),
        mentionGroupIds: { anyOf: [text(128), { type: 'array', maxItems: 20, items: text(128) }] },
        sso: text(16_384),
        sessionId: text(64),
        searchSection: { type: 'string', enum: ['fast', 'site'] },
      },
      required: ['urlId'],
    },
    missingCodes: { urlId: 'missing-url-id' },
    handle: async (req) => {
      const tenantId = req.params['tenantId']!;
      const q = req.query;
      const reader = await publicReader(req, tenantId);
      await assertMayListen(req.app.system, tenantId, q.urlId, reader.secure ? reader.userId : null);
      const prefix = (q.usernameStartsWith ?? '').trim();
      const lower = prefix.toLowerCase();
      const reads = req.app.system;
      // The page's commenters first: their names are on the page already, whatever their profile's privacy.
      const commenterIds = await reads.ask(ReaderReadsKind, tenantId, 'pageCommenters', { urlId: q.urlId });
      const commenters = await reads.ask(ReaderReadsKind, tenantId, 'users', { ids: commenterIds });
      const found = new Map<string, UserDoc>();
      for (const user of commenters) if (startsWith(user.username, lower) || startsWith(user.displayName, lower)) found.set(user._id, user);
      if (q.searchSection !== 'fast' && prefix !== '') {
        const variants = [...new Set([prefix, prefix[0]!.toUpperCase() + prefix.slice(1), prefix[0]!.toLowerCase() + prefix.slice(1)])];
        for (const variant of variants) {
          for (const user of await reads.ask(ReaderReadsKind, tenantId, 'searchUsers', { prefix: variant, limit: USER_SEARCH_LIMIT })) {
            // Elsewhere on the site, only users whose profile is public.
            if (!user.isProfileActivityPrivate) found.set(user._id, user);
          }
        }
      }
      const users = [...found.values()].sort((a, b) => a.username.localeCompare(b.username)).slice(0, USER_SEARCH_LIMIT);
      return { users: users.map(searchEntry) };
    },
  }),

  route<Record<string, never>, undefined>({
    method: 'PUT',
    path: '/auth/logout',
    access: 'public',
    handle: (req) => {
      const https = req.app.config.trustProxy && forwardedProto(req.headers) === 'https';
      const attributes = https ? 'SameSite=None; Secure' : 'SameSite=Lax';
      // Ends the anonymous session this browser carries; a session carried by sessionId ends when the widget forgets it.
      return new CustomReply(200, '{"status":"success"}', 'application/json; charset=utf-8', [['set-cookie', `${ANON_COOKIE}=; Path=/; Max-Age=0; HttpOnly; ${attributes}`]]);
    },
  }),
];


