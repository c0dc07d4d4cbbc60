import { BlockKind, blockActorId } from '../../actors/block/protocol.js';
import { pageLocator } from '../../actors/page/locator.js';
import { actorKey } from '../../actors/page/protocol.js';
import { webhookTargets } from '../../actors/webhook/protocol.js';
import { ApiError } from '../../engine/errors.js';
import type { AppServices } from '../services.js';
import { route, type Schema } from '../route.js';
import { actorRef, COMMENT_ID_PARAM, text, USER_ID } from './page-context.js';
import { tenantSettings } from '../../actors/tenant/tenant-actor.js';
import { countModeration } from '../moderation-counts.js';
import { assertNotBanned } from '../moderation/ban-check.js';

interface UserQuery {
  userId?: string;
  anonUserId?: string;
}

const USER_QUERY: Schema = { type: 'object', properties: { userId: USER_ID, anonUserId: USER_ID } };
const BLOCK_BODY: Schema = { type: 'object', properties: { commentIdsToCheck: { type: 'array', items: text(128, 1), maxItems: 200 } } };
const notFound = (id: string) => () => new ApiError('not-found', `No comment ${id}.`);

async function flagSettings(app: AppServices, tenantId: string, commentId: string) {
  const urlId = await pageLocator(app.system).urlIdOf('comment', tenantId, commentId);
  if (urlId === undefined) throw notFound(commentId)();
  return { urlId, settings: await tenantSettings(app.system, tenantId, urlId) };
}

/** The author key of a comment, refusing comments with no author to block. */
async function authorOf(app: AppServices, tenantId: string, commentId: string): Promise<string> {
  const key = await pageLocator(app.system).ask('comment', tenantId, commentId, 'author', { commentId }, notFound(commentId));
  if (key === null) throw new ApiError('cannot-block-anonymous');
  return key;
}

/** For each comment id, whether the reader now has its author blocked (unknown ids: false). */
async function statuses(app: AppServices, tenantId: string, ids: readonly string[], blocked: ReadonlySet<string>): Promise<Record<string, boolean>> {
  const out: Record<string, boolean> = {};
  const locator = pageLocator(app.system);
  await Promise.all(
    [...new Set(ids)].map(async (id) => {
      try {
        const key = await locator.ask('comment', tenantId, id, 'author', { commentId: id }, notFound(id));
        out[id] = key !== null && blocked.has(key);
      } catch (err) {
        if (!(err instanceof ApiError) || err.code !== 'not-found') throw err;
        out[id] = false;
      }
    }),
  );
  return out;
}

function blockRoute(path: string, action: 'block' | 'unblock') {
  return route<UserQuery, { commentIdsToCheck?: string[] }>({
    method: 'POST',
    path,
    access: 'tenant',
    params: COMMENT_ID_PARAM,
    query: USER_QUERY,
    body: BLOCK_BODY,
    handle: async ({ app, tenantId, params, query, body }) => {
      const id = params['id']!;
      const by = actorRef(query);
      const { settings } = await flagSettings(app, tenantId, id);
      if (settings.disableBlocking) throw new ApiError('blocking-disabled');
      const authorKey = await authorOf(app, tenantId, id);
      const blocker = blockActorId(tenantId, actorKey(by));
      await app.system.ask(BlockKind, blocker, action, { authorKey });
      const blocked = new Set(await app.system.ask(BlockKind, blocker, 'list', null));
      return { commentStatuses: await statuses(app, tenantId, body.commentIdsToCheck ?? [], blocked) };
    },
  });
}

/** Flags and blocks: what any reader may do about a comment. */
export const commentModerationRoutes = [
  route<UserQuery, undefined>({
    method: 'POST',
    path: '/api/v1/comments/:id/flag',
    access: 'tenant',
    params: COMMENT_ID_PARAM,
    query: USER_QUERY,
    handle: async ({ app, tenantId, params, query }) => {
      const id = params['id']!;
      const by = actorRef(query);
      const { settings } = await flagSettings(app, tenantId, id);
      if (by.userId === null && !settings.allowAnonFlag) throw new ApiError('login-required', 'This site does not take anonymous flags: give a userId.');
      await assertNotBanned(app, tenantId, { userId: by.userId, anonUserId: by.anonUserId });
      const webhooks = await webhookTargets(app.system, tenantId);
      const { wasUnapproved } = await pageLocator(app.system).ask('comment', tenantId, id, 'flag', { commentId: id, by, settings, webhooks }, notFound(id));
      return { wasUnapproved };
    },
  }),
  route<UserQuery, undefined>({
    method: 'POST',
    path: '/api/v1/comments/:id/un-flag',
    access: 'tenant',
    params: COMMENT_ID_PARAM,
    query: USER_QUERY,
    handle: async (req) => {
      const { app, tenantId, params, query } = req;
      const id = params['id']!;
      const by = actorRef(query);
      await pageLocator(app.system).ask('comment', tenantId, id, 'unflag', { commentId: id, by }, notFound(id));
      await countModeration(req, by.userId ?? undefined, { unFlaggedCount: 1 });
      return {};
    },
  }),
  blockRoute('/api/v1/comments/:id/block', 'block'),
  blockRoute('/api/v1/comments/:id/un-block', 'unblock'),
];
