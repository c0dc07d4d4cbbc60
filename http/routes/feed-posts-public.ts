import { badgeUserActorId } from '../../actors/badge/badge-model.js';
import { BadgeUserKind } from '../../actors/badge/protocol.js';
import { FEED_URL_ID, publicFeedPost, REACT_TYPE_MAX, REACT_TYPE_PATTERN } from '../../actors/feed/feed-model.js';
import { FeedKind } from '../../actors/feed/protocol.js';
import { tenantSettings } from '../../actors/tenant/tenant-actor.js';
import { ApiError } from '../../engine/errors.js';
import { identifyReader, type Reader } from '../reader.js';
import { route, type RouteRequest, type Schema } from '../route.js';
import type { AppServices } from '../services.js';
import { CREATE_BODY, inputOf, LIST_QUERY, UPDATE_BODY } from './feed-schemas.js';
import { feedPage } from './feed-posts.js';
import { liveIdFields, text } from './page-context.js';
import { RawJson } from '../route.js';

const TENANT_ID: Schema = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' };
const TENANT_PARAM: Schema = { type: 'object', properties: { tenantId: TENANT_ID }, required: ['tenantId'] };
const POST_PARAM: Schema = { type: 'object', properties: { tenantId: TENANT_ID, postId: text(128, 1) }, required: ['tenantId', 'postId'] };
const SSO = text(16_384);
/** The anonymous session, for browsers that block third-party cookies (http/public/reader.ts). */
const SESSION_ID = text(64);
const WRITE_QUERY: Schema = { type: 'object', properties: { sso: SSO, sessionId: SESSION_ID, broadcastId: text(128) } };
/** Posts a reader's reactions or stats may be asked for at once. */
const POST_IDS: Schema = { type: 'array', minItems: 1, maxItems: 100, items: text(128, 1) };

interface ReaderQuery {
  sso?: string;
  sessionId?: string;
  broadcastId?: string;
}

/** The tenant named (which also proves it exists: `invalid-tenant-id` otherwise). */
async function tenantOf(req: RouteRequest<unknown, unknown>): Promise<string> {
  const tenantId = req.params['tenantId']!;
  await tenantSettings(req.app.system, tenantId, null);
  return tenantId;
}

/** A reader who may write posts: a single sign-on user whose payload was signed. */
function author(reader: Reader): string {
  if (reader.user === null || !reader.secure) throw new ApiError('sso-required', 'Writing feed posts needs a signed single sign-on payload (sso).');
  return reader.user._id;
}

/** `UserSessionInfo` of a signed-in reader, with the badges they show. */
async function sessionInfo(app: AppServices, tenantId: string, reader: Reader): Promise<Record<string, unknown> | null> {
  const user = reader.user;
  if (user === null) return null;
  const badges = await app.system.ask(BadgeUserKind, badgeUserActorId(tenantId, user._id), 'displayed', { urlId: null });
  return {
    id: user._id,
    authorized: reader.secure,
    username: user.username,
    displayName: user.displayName ?? user.username,
    avatarSrc: user.avatarSrc,
    isAnonSession: false,
    badges,
  };
}

/** The feed through the widget API (OpenAPI `Public` operations; docs/feed-posts.md). */
export const publicFeedPostRoutes = [
  route<{ afterId?: string; limit?: number; tags?: string[]; sso?: string; sessionId?: string; isCrawler?: boolean; includeUserInfo?: boolean }, undefined>({
    method: 'GET',
    path: '/feed-posts/:tenantId',
    access: 'public',
    params: TENANT_PARAM,
    query: { type: 'object', properties: { ...LIST_QUERY, sso: SSO, sessionId: SESSION_ID, isCrawler: { type: 'boolean' }, includeUserInfo: { type: 'boolean' } } },
    handle: async (req) => {
      const tenantId = await tenantOf(req);
      const posts = (await feedPage(req.app.system, tenantId, req.query)).posts;
      // A crawler gets the shared part only: no session is made for it.
      const reader = req.query.isCrawler === true ? null : await identifyReader(req, tenantId);
      const mine = reader?.user?._id ?? null;
      const parts = [`{"status":"success","feedPosts":${JSON.stringify(posts.map((p) => publicFeedPost(p, mine)))}`];
      if (reader !== null && reader.key !== null && posts.length > 0) {
        const myReacts = await req.app.system.ask(FeedKind, tenantId, 'reactsOf', { readerKey: reader.key, postIds: posts.map((p) => p._id) });
        parts.push(`,"myReacts":${JSON.stringify(myReacts)}`);
      }
      if (reader !== null && req.query.includeUserInfo === true) parts.push(`,"user":${JSON.stringify(await sessionInfo(req.app, tenantId, reader))}`);
      parts.push(liveIdFields(req.app.liveIds, tenantId, FEED_URL_ID));
      if (mine !== null) parts.push(`,"userIdWS":${JSON.stringify(req.app.liveIds.userIdWS(tenantId, mine))}`);
      parts.push('}');
      return new RawJson(parts.join(''));
    },
  }),
  route<ReaderQuery, Record<string, unknown>>({
    method: 'POST',
    path: '/feed-posts/:tenantId',
    access: 'public',
    params: TENANT_PARAM,
    query: WRITE_QUERY,
    body: CREATE_BODY,
    handle: async (req) => {
      const tenantId = await tenantOf(req);
      const reader = await identifyReader(req, tenantId);
      const userId = author(reader);
      const given = req.body['fromUserId'];
      if (given !== undefined && given !== userId && `${tenantId}:${String(given)}` !== userId) throw new ApiError('feed-post-forbidden', 'A reader posts as themselves only.');
      const settings = await tenantSettings(req.app.system, tenantId, null);
      const user = reader.user!;
      const doc = await req.app.system.ask(FeedKind, tenantId, 'create', {
        fromUserId: userId,
        displayName: user.displayName ?? user.username,
        avatar: user.avatarSrc,
        input: inputOf(req.body),
        skipDupCheck: false,
        // A reader's post is always checked against the tenant's spam rules.
        spamRules: settings.spamRules,
        isLive: true,
        broadcastId: req.query.broadcastId ?? null,
      });
      return { feedPost: publicFeedPost(doc, userId) };
    },
  }),
  route<ReaderQuery & { isUndo?: boolean }, { reactType?: string }>({
    method: 'POST',
    path: '/feed-posts/:tenantId/react/:postId',
    access: 'public',
    params: POST_PARAM,
    query: { type: 'object', properties: { sso: SSO, sessionId: SESSION_ID, broadcastId: text(128), isUndo: { type: 'boolean' } } },
    body: { type: 'object', properties: { reactType: { ...text(REACT_TYPE_MAX, 1), pattern: REACT_TYPE_PATTERN } }, required: ['reactType'] },
    handle: async (req) => {
      const reactType = req.body.reactType!;
      if (reactType === '__proto__') throw new ApiError('invalid-param', 'reactType may not be __proto__.');
      const tenantId = await tenantOf(req);
      const reader = await identifyReader(req, tenantId, null, { start: true });
      const isUndo = req.query.isUndo === true;
      await req.app.system.ask(FeedKind, tenantId, 'react', { postId: req.params['postId']!, readerKey: reader.key!, reactType, undo: isUndo, broadcastId: req.query.broadcastId ?? null });
      return { reactType, isUndo };
    },
  }),
  route<{ postIds?: string[]; sso?: string; sessionId?: string }, undefined>({
    method: 'GET',
    path: '/feed-posts/:tenantId/user-reacts',
    access: 'public',
    params: TENANT_PARAM,
    query: { type: 'object', properties: { postIds: { ...POST_IDS, minItems: 0 }, sso: SSO, sessionId: SESSION_ID } },
    handle: async (req) => {
      const tenantId = await tenantOf(req);
      const reader = await identifyReader(req, tenantId);
      if (reader.key === null) return { reacts: {} };
      return { reacts: await req.app.system.ask(FeedKind, tenantId, 'reactsOf', { readerKey: reader.key, postIds: req.query.postIds ?? [] }) };
    },
  }),
  route<{ postIds: string[]; sso?: string }, undefined>({
    method: 'GET',
    path: '/feed-posts/:tenantId/stats',
    access: 'public',
    params: TENANT_PARAM,
    query: { type: 'object', properties: { postIds: POST_IDS, sso: SSO }, required: ['postIds'] },
    handle: async (req) => {
      const tenantId = await tenantOf(req);
      return { stats: await req.app.system.ask(FeedKind, tenantId, 'stats', { postIds: req.query.postIds }) };
    },
  }),
  route<ReaderQuery, Record<string, unknown>>({
    method: 'PUT',
    path: '/feed-posts/:tenantId/:postId',
    access: 'public',
    params: POST_PARAM,
    query: WRITE_QUERY,
    body: UPDATE_BODY,
    handle: async (req) => {
      const tenantId = await tenantOf(req);
      const userId = author(await identifyReader(req, tenantId));
      const doc = await req.app.system.ask(FeedKind, tenantId, 'update', { postId: req.params['postId']!, input: inputOf(req.body), by: userId, broadcastId: req.query.broadcastId ?? null });
      return { feedPost: publicFeedPost(doc, userId) };
    },
  }),
  route<ReaderQuery, undefined>({
    method: 'DELETE',
    path: '/feed-posts/:tenantId/:postId',
    access: 'public',
    params: POST_PARAM,
    query: WRITE_QUERY,
    handle: async (req) => {
      const tenantId = await tenantOf(req);
      const userId = author(await identifyReader(req, tenantId));
      await req.app.system.ask(FeedKind, tenantId, 'remove', { postId: req.params['postId']!, by: userId, broadcastId: req.query.broadcastId ?? null });
      return {};
    },
  }),
];
