import { FEED_PAGE, feedPostView } from '../../actors/feed/feed-model.js';
import { FEED_VIEWS, FeedKind, type FeedPage, type FeedQuery, feedQueryKey } from '../../actors/feed/protocol.js';
import { tenantSettings } from '../../actors/tenant/tenant-actor.js';
import { type UserDoc, UserKind, userActorId } from '../../actors/user/protocol.js';
import { ApiError } from '../../engine/errors.js';
import type { ActorSystem } from '../../engine/actor-system.js';
import { perObjects, RawJson, route, type Schema } from '../route.js';
import { CREATE_BODY, inputOf, LIST_QUERY, PATCH_BODY } from './feed-schemas.js';
import { text } from './page-context.js';

interface ListQuery {
  afterId?: string;
  limit?: number;
  tags?: string[];
}

interface CreateQuery {
  broadcastId?: string;
  isLive?: boolean;
  doSpamCheck?: boolean;
  skipDupCheck?: boolean;
}

const ID_PARAM: Schema = { type: 'object', properties: { id: text(128, 1) }, required: ['id'] };

/** The feed's page for a query: from the feed's published answers when it has one, else asked. */
export async function feedPage(system: ActorSystem, tenantId: string, query: ListQuery): Promise<FeedPage> {
  const q: FeedQuery = { afterId: query.afterId ?? null, limit: query.limit ?? FEED_PAGE, tags: [...new Set(query.tags ?? [])].sort() };
  const published = system.peek(FeedKind, tenantId, FEED_VIEWS.lists, feedQueryKey(q)) as FeedPage | undefined;
  return published ?? system.ask(FeedKind, tenantId, 'list', q);
}

/** A list answer, serialised by the feed actor once per change; it knows how many posts it holds, for the charge. */
class FeedAnswer extends RawJson {
  constructor(
    json: string,
    readonly count: number,
  ) {
    super(json);
  }
}

/** The author of a post: a hosted-account (tenant) or single sign-on user of the tenant, by the id the API knows. */
async function authorOf(system: ActorSystem, tenantId: string, fromUserId: string): Promise<UserDoc> {
  for (const id of [fromUserId, `${tenantId}:${fromUserId}`]) {
    const user = await system.ask(UserKind, userActorId(tenantId, id), 'get', null);
    if (user !== null && (user.kind === 'sso' || user.kind === 'tenant')) return user;
  }
  throw new ApiError('feed-post-user-unknown', `No hosted-account or single sign-on user ${fromUserId} in this tenant.`);
}

/** Feed posts through the management API (docs/feed-posts.md). */
export const feedPostRoutes = [
  route<ListQuery, undefined, FeedAnswer>({
    method: 'GET',
    path: '/api/v1/feed-posts',
    access: 'tenant',
    query: { type: 'object', properties: LIST_QUERY },
    credits: (_req, result) => perObjects(result.count, 10),
    handle: async ({ app, tenantId, query }) => {
      const page = await feedPage(app.system, tenantId, query);
      const cost = perObjects(page.posts.length, 10);
      return new FeedAnswer(`{"status":"success","feedPosts":${page.apiJson},"creditsCost":${cost}}`, page.posts.length);
    },
  }),
  route<CreateQuery, Record<string, unknown>>({
    method: 'POST',
    path: '/api/v1/feed-posts',
    access: 'tenant',
    query: {
      type: 'object',
      properties: { broadcastId: text(128), isLive: { type: 'boolean' }, doSpamCheck: { type: 'boolean' }, skipDupCheck: { type: 'boolean' } },
    },
    body: { ...CREATE_BODY, required: ['fromUserId'] },
    handle: async ({ app, tenantId, query, body }) => {
      const author = await authorOf(app.system, tenantId, body['fromUserId'] as string);
      const settings = query.doSpamCheck === true ? await tenantSettings(app.system, tenantId, null) : null;
      const doc = await app.system.ask(FeedKind, tenantId, 'create', {
        fromUserId: author._id,
        displayName: author.displayName ?? author.username,
        avatar: author.avatarSrc,
        input: inputOf(body),
        skipDupCheck: query.skipDupCheck === true,
        spamRules: settings === null ? null : settings.spamRules,
        isLive: query.isLive === true,
        broadcastId: query.broadcastId ?? null,
      });
      return { feedPost: feedPostView(doc) };
    },
  }),
  route<Record<string, unknown>, Record<string, unknown>>({
    method: 'PATCH',
    path: '/api/v1/feed-posts/:id',
    access: 'tenant',
    params: ID_PARAM,
    body: PATCH_BODY,
    handle: async ({ app, tenantId, params, body }) => {
      const postId = params['id']!;
      if (body['_id'] !== undefined && body['_id'] !== postId) throw new ApiError('id-immutable');
      if (body['tenantId'] !== undefined && body['tenantId'] !== tenantId) throw new ApiError('tenant-id-immutable');
      if (body['fromUserId'] !== undefined) {
        const current = await app.system.ask(FeedKind, tenantId, 'get', { postId });
        if (current === null) throw new ApiError('feed-post-not-found');
        if (body['fromUserId'] !== current.fromUserId && `${tenantId}:${String(body['fromUserId'])}` !== current.fromUserId) {
          throw new ApiError('invalid-param', 'The author of a post (fromUserId) cannot change.');
        }
      }
      await app.system.ask(FeedKind, tenantId, 'update', { postId, input: inputOf(body), by: null, broadcastId: null });
      return {};
    },
  }),
];
