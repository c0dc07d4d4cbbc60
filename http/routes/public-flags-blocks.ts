/**
 * A reader's flags and blocks through the widget API: flag or un-flag a comment, block or
 * unblock its author (a reader-side mute), and check which comments are by blocked authors.
 * The tenant is named by the `tenantId` query parameter.
 */
import { BlockKind, blockActorId } from '../../actors/block/protocol.js';
import { pageLocator } from '../../actors/page/locator.js';
import { tenantSettings } from '../../actors/tenant/tenant-actor.js';
import { webhookTargets } from '../../actors/webhook/protocol.js';
import { ApiError } from '../../engine/errors.js';
import { assertMayWrite, commentNotFound, findComment, OBJECT_ID, TENANT_ID } from '../public/comment-access.js';
import { ensureSession, type Reader, readerKey, type ReaderQuery, resolveReader } from '../public/reader.js';
import { route, type Schema } from '../route.js';
import type { AppServices } from '../services.js';
import { text } from './page-context.js';
import { assertNotBanned } from '../moderation/ban-check.js';

interface TenantQuery extends ReaderQuery {
  tenantId: string;
  isFlagged?: boolean;
  commentIds?: string;
  broadcastId?: string;
}

const identity = { tenantId: TENANT_ID, sso: text(16_384), sessionId: text(64) };
const COMMENT_PARAM: Schema = { type: 'object', properties: { commentId: OBJECT_ID }, required: ['commentId'] };
const FLAG_QUERY: Schema = { type: 'object', properties: { ...identity, isFlagged: { type: 'boolean' }, broadcastId: text(64) }, required: ['tenantId', 'isFlagged'] };
const BLOCK_QUERY: Schema = { type: 'object', properties: identity, required: ['tenantId'] };
const CHECK_QUERY: Schema = { type: 'object', properties: { ...identity, commentIds: text(20_000) }, required: ['tenantId', 'commentIds'] };
/** Comments whose status one call may ask about. */
const IDS_MAX = 500;
const BLOCK_BODY: Schema = { type: 'object', properties: { commentIds: { type: ['array', 'null'], items: text(128), maxItems: IDS_MAX } }, required: ['commentIds'] };

/** For each comment id, whether the reader has its author blocked; unknown ids (even `undefined`) answer false. */
async function statuses(app: AppServices, tenantId: string, ids: readonly string[], blocked: ReadonlySet<string>): Promise<Record<string, boolean>> {
  const out: Record<string, boolean> = {};
  const locator = pageLocator(app.system);
  await Promise.all(
    [...new Set(ids)].slice(0, IDS_MAX).map(async (id) => {
      out[id] = false;
      if (blocked.size === 0 || id === '' || id.length > 128) return;
      try {
        const key = await locator.ask('comment', tenantId, id, 'author', { commentId: id }, commentNotFound(id));
        out[id] = key !== null && blocked.has(key);
      } catch (err) {
        if (!(err instanceof ApiError) || err.code !== 'not-found') throw err;
      }
    }),
  );
  return out;
}

async function blockedSet(app: AppServices, reader: Reader): Promise<Set<string>> {
  const key = readerKey(reader);
  return key === null ? new Set() : new Set(await app.system.ask(BlockKind, blockActorId(reader.tenantId, key), 'list', null));
}

function blockRoute(method: 'POST' | 'DELETE', action: 'block' | 'unblock') {
  return route<TenantQuery, { commentIds: string[] | null }>({
    method,
    path: '/block-from-comment/:commentId',
    access: 'public',
    params: COMMENT_PARAM,
    query: BLOCK_QUERY,
    body: BLOCK_BODY,
    handle: async (req) => {
      const { app } = req;
      const tenantId = req.query.tenantId;
      const commentId = req.params['commentId']!;
      const found = await findComment(app, tenantId, commentId);
      if (found.settings.disableBlocking) throw new ApiError('blocking-disabled');
      let reader = await resolveReader(req, tenantId, found.urlId);
      assertMayWrite(found.settings, reader);
      reader = ensureSession(req, reader);
      const author = await pageLocator(app.system).ask('comment', tenantId, commentId, 'author', { commentId }, commentNotFound(commentId));
      if (author === null) throw new ApiError('cannot-block-anonymous');
      if (author === readerKey(reader)) throw new ApiError('invalid-param', 'A reader cannot block themselves.');
      await app.system.ask(BlockKind, blockActorId(tenantId, readerKey(reader)!), action, { authorKey: author });
      const blocked = await blockedSet(app, reader);
      return { commentStatuses: await statuses(app, tenantId, [commentId, ...(req.body.commentIds ?? [])], blocked) };
    },
  });
}

/** Flags and blocks of the widget API. */
export const publicFlagBlockRoutes = [
  route<TenantQuery, undefined>({
    method: 'POST',
    path: '/flag-comment/:commentId',
    access: 'public',
    params: COMMENT_PARAM,
    query: FLAG_QUERY,
    handle: async (req) => {
      const { app } = req;
      const tenantId = req.query.tenantId;
      const commentId = req.params['commentId']!;
      const found = await findComment(app, tenantId, commentId);
      let reader = await resolveReader(req, tenantId, found.urlId);
      assertMayWrite(found.settings, reader);
      if (reader.sso === undefined && !found.settings.allowAnonFlag) throw new ApiError('login-required', 'This site does not take flags from anonymous readers: sign in.');
      reader = ensureSession(req, reader);
      const by = { userId: reader.userId, anonUserId: reader.userId === null ? reader.anonUserId : null };
      const locator = pageLocator(app.system);
      if (req.query.isFlagged) {
        await assertNotBanned(app, tenantId, { userId: reader.userId, anonUserId: reader.anonUserId, email: reader.sso?.user.email ?? null, ip: req.ip });
        const webhooks = await webhookTargets(app.system, tenantId);
        const broadcast = req.query.broadcastId ? { broadcastId: req.query.broadcastId } : {};
        await locator.ask('comment', tenantId, commentId, 'flag', { commentId, by, settings: found.settings, webhooks, ...broadcast }, commentNotFound(commentId));
      } else {
        await locator.ask('comment', tenantId, commentId, 'unflag', { commentId, by }, commentNotFound(commentId));
      }
      return {};
    },
  }),
  blockRoute('POST', 'block'),
  blockRoute('DELETE', 'unblock'),
  route<TenantQuery, undefined>({
    method: 'GET',
    path: '/check-blocked-comments',
    access: 'public',
    query: CHECK_QUERY,
    handle: async (req) => {
      const tenantId = req.query.tenantId;
      await tenantSettings(req.app.system, tenantId, null); // invalid-tenant-id for a tenant that does not exist
      const reader = await resolveReader(req, tenantId);
      const ids = (req.query.commentIds ?? '').split(',').map((id) => id.trim());
      return { commentStatuses: await statuses(req.app, tenantId, ids, await blockedSet(req.app, reader)) };
    },
  }),
];
