/**
 * What a reader does to one comment through the widget API: read and change its own text,
 * delete it, vote and un-vote, list who voted, and (site administrators and moderators) pin,
 * unpin, lock and unlock. No API key, no credits; identity as http/public/reader.ts resolves it.
 */
import { editKeyFor, editKeyMatches } from '../../actors/page/edit-key.js';
import { pageLocator } from '../../actors/page/locator.js';
import { type ActorRef, NotOnThisPage, PageKind, pageActorId } from '../../actors/page/protocol.js';
import { publicCommentOfView } from '../../actors/page/public-comment.js';
import { VOTE_DIRECTION, VOTE_KINDS, type VoteKind } from '../../actors/page/vote-doc.js';
import { UserKind, userActorId } from '../../actors/user/protocol.js';
import { webhookTargets } from '../../actors/webhook/protocol.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { assertMayManage, assertMayWrite, assertModerator, BROADCAST_ID, commentNotFound, findComment, locateComment, OBJECT_ID, TENANT_ID, tenantRules } from '../public/comment-access.js';
import { ensureSession, readerKey, type ReaderQuery, resolveReader } from '../public/reader.js';
import { spendCommentPost } from '../public/write-limits.js';
import { route, type RouteRequest, type Schema } from '../route.js';
import type { AppServices } from '../services.js';
import { nullableText, text, URL_ID } from './page-context.js';
import { assertNotBanned } from '../moderation/ban-check.js';

const COMMENT_PARAMS: Schema = { type: 'object', properties: { tenantId: TENANT_ID, commentId: OBJECT_ID }, required: ['tenantId', 'commentId'] };
const VOTE_PARAMS: Schema = { type: 'object', properties: { tenantId: TENANT_ID, commentId: OBJECT_ID, voteId: OBJECT_ID }, required: ['tenantId', 'commentId', 'voteId'] };
const identity = { sso: text(16_384), sessionId: text(64) };

interface ActionQuery extends ReaderQuery {
  urlId?: string;
  broadcastId?: string;
  editKey?: string;
  dir?: number;
}

const EDIT_QUERY: Schema = { type: 'object', properties: { ...identity, editKey: text(64), broadcastId: BROADCAST_ID } };
const VOTE_QUERY: Schema = { type: 'object', properties: { ...identity, urlId: URL_ID, broadcastId: BROADCAST_ID, editKey: text(64) } };
const MOD_QUERY: Schema = { type: 'object', properties: { ...identity, broadcastId: BROADCAST_ID } };
const VOTERS_QUERY: Schema = { type: 'object', properties: { ...identity, dir: { type: 'integer', enum: [1, -1] } }, required: ['dir'] };

/** Names a public vote list shows at most. */
const VOTER_NAMES_MAX = 50;

function ids(req: RouteRequest<unknown, unknown>): { tenantId: string; commentId: string } {
  return { tenantId: req.params['tenantId']!, commentId: req.params['commentId']! };
}

/** Changes a comment through its page (published live with the writer's `broadcastId`). */
async function patch(req: RouteRequest<ActionQuery, unknown>, tenantId: string, commentId: string, changes: Record<string, unknown>, withPositions = false) {
  const { app } = req;
  const found = await findComment(app, tenantId, commentId);
  return pageLocator(app.system).ask(
    'comment',
    tenantId,
    commentId,
    'patchComment',
    {
      commentId,
      changes,
      settings: found.settings,
      isLive: true,
      userIdForEmail: null,
      webhooks: await webhookTargets(app.system, tenantId),
      ...(req.query.broadcastId ? { broadcastId: req.query.broadcastId } : {}),
      ...(withPositions ? { withPositions } : {}),
    },
    commentNotFound(commentId),
  );
}

async function owned(req: RouteRequest<ActionQuery, unknown>) {
  const { tenantId, commentId } = ids(req);
  const found = await findComment(req.app, tenantId, commentId);
  const reader = await resolveReader(req, tenantId, found.urlId);
  assertMayManage(req, reader, found.view, req.query.editKey);
  return { tenantId, commentId, found, reader };
}

/** A pin, unpin, lock or unlock by a site administrator or moderator. */
function moderation(path: string, changes: Record<string, boolean>, answer: 'positions' | 'empty') {
  return route<ActionQuery, undefined>({
    method: 'POST',
    path,
    access: 'public',
    params: COMMENT_PARAMS,
    query: MOD_QUERY,
    handle: async (req) => {
      const { tenantId, commentId } = ids(req);
      assertModerator(await resolveReader(req, tenantId));
      const result = await patch(req, tenantId, commentId, changes, answer === 'positions');
      if (answer === 'empty') return {};
      const urlId = String(result.comment['urlId']);
      const commentPositions = await req.app.system.ask(PageKind, pageActorId(tenantId, urlId), 'commentPositions', { commentId });
      return { commentPositions };
    },
  });
}

/** The voter of a public vote: the SSO user, or the anonymous session (made now if needed). */
function voterOf(req: RouteRequest<ActionQuery, unknown>, reader: Awaited<ReturnType<typeof resolveReader>>, settings: { allowAnonVotes: boolean }, email: string | null) {
  if (reader.sso !== undefined) return { reader, by: { userId: reader.userId, anonUserId: null } as ActorRef, kind: VOTE_KINDS.authorized as VoteKind };
  // Without allowAnonVotes, a guest's vote waits for a verified email; without an email it is refused.
  if (!settings.allowAnonVotes && (email === null || email.trim() === '')) {
    throw new ApiError('login-required', 'This site does not take anonymous votes: sign in, or give your name and email.');
  }
  const session = ensureSession(req, reader);
  return { reader: session, by: { userId: null, anonUserId: session.anonUserId } as ActorRef, kind: settings.allowAnonVotes ? VOTE_KINDS.anonymous : VOTE_KINDS.pending };
}

async function voterNames(app: AppServices, tenantId: string, userIds: readonly string[]): Promise<string[]> {
  const names = await Promise.all(
    userIds.map(async (id) => {
      const user = await app.system.ask(UserKind, userActorId(tenantId, id), 'get', null);
      return user === null || user.isProfileActivityPrivate ? null : (user.displayName ?? user.username);
    }),
  );
  return names.filter((n): n is string => n !== null);
}

/** The widget API's per-comment operations. */
export const publicCommentActionRoutes = [
  route<ActionQuery, undefined>({
    method: 'GET',
    path: '/comments/:tenantId/:commentId/text',
    access: 'public',
    params: COMMENT_PARAMS,
    query: EDIT_QUERY,
    handle: async (req) => {
      const { found } = await owned(req);
      const text = String(found.view['comment'] ?? '');
      return { commentText: text, sanitizedCommentText: String(found.view['commentHTML'] ?? '') };
    },
  }),

  route<ActionQuery, { comment: string }>({
    method: 'POST',
    path: '/comments/:tenantId/:commentId/update-text',
    access: 'public',
    params: COMMENT_PARAMS,
    query: EDIT_QUERY,
    body: {
      type: 'object',
      properties: { comment: { type: 'string' }, mentions: { type: 'array', maxItems: 100 }, hashTags: { type: 'array', maxItems: 100 } },
      required: ['comment'],
    },
    handle: async (req) => {
      spendCommentPost(req);
      const { tenantId, commentId, found, reader } = await owned(req);
      assertMayWrite(found.settings, reader);
      if (found.view['isLocked'] === true && !reader.isModerator) throw new ApiError('locked');
      // Under pre-moderation an edited comment waits for a moderator again.
      const rules = await tenantRules(req.app, tenantId);
      const changes: Record<string, unknown> = { comment: req.body.comment };
      if (rules.requireApproval && !reader.isModerator && found.view['approved'] !== false) changes['approved'] = false;
      const result = await patch(req, tenantId, commentId, changes);
      return { comment: { approved: result.comment['approved'] !== false, commentHTML: String(result.comment['commentHTML']) } };
    },
  }),

  route<ActionQuery, undefined>({
    method: 'DELETE',
    path: '/comments/:tenantId/:commentId',
    access: 'public',
    params: COMMENT_PARAMS,
    query: EDIT_QUERY,
    handle: async (req) => {
      const { tenantId, commentId, found } = await owned(req);
      const { app } = req;
      const page = pageActorId(tenantId, found.urlId);
      const broadcast = req.query.broadcastId ? { broadcastId: req.query.broadcastId } : {};
      const replies = await app.system.ask(PageKind, page, 'replyCount', { commentId });
      if (replies === 0) {
        await pageLocator(app.system).ask('comment', tenantId, commentId, 'deleteComment', { commentId, isLive: true, webhooks: await webhookTargets(app.system, tenantId), ...broadcast }, commentNotFound(commentId));
        return { hardRemoved: true };
      }
      // A comment with replies stays as a placeholder, so the thread under it keeps its place.
      const result = await patch(req, tenantId, commentId, { comment: '[deleted]', commentHTML: '[deleted]', isDeleted: true });
      const view = publicCommentOfView(result.comment);
      return { hardRemoved: false, comment: { isDeleted: true, commentHTML: String(view['commentHTML']), commenterName: String(view['commenterName']), userId: (view['userId'] as string | undefined) ?? null } };
    },
  }),

  route<ActionQuery, { voteDir: 'up' | 'down'; url: string | null; commenterName: string | null; commenterEmail: string | null }>({
    method: 'POST',
    path: '/comments/:tenantId/:commentId/vote',
    access: 'public',
    params: COMMENT_PARAMS,
    query: VOTE_QUERY,
    body: {
      type: 'object',
      properties: { voteDir: { type: 'string', enum: ['up', 'down'] }, url: nullableText(4096), commenterName: nullableText(1000), commenterEmail: nullableText(1000) },
      required: ['voteDir'],
    },
    handle: async (req) => {
      const { app, body } = req;
      const { tenantId, commentId } = ids(req);
      const found = await locateComment(app, tenantId, commentId);
      if (req.query.urlId !== undefined && req.query.urlId !== found.urlId) throw commentNotFound(commentId)();
      if (found.settings.disableVoting) throw new ApiError('voting-disabled');
      const { reader, by, kind } = voterOf(req, await resolveReader(req, tenantId, found.urlId), found.settings, body.commenterEmail);
      assertMayWrite(found.settings, reader);
      await assertNotBanned(app, tenantId, { userId: reader.userId, anonUserId: reader.anonUserId, email: reader.sso?.user.email ?? body.commenterEmail, ip: req.ip });
      let voteId: string;
      try {
        ({ voteId } = await pageLocator(app.system).ask(
          'comment',
          tenantId,
          commentId,
          'vote',
          { commentId, by, direction: VOTE_DIRECTION[body.voteDir], kind, ...(req.query.broadcastId ? { broadcastId: req.query.broadcastId } : {}) },
          commentNotFound(commentId),
        ));
      } catch (err) {
        if (err instanceof ApiError && err.code === 'duplicate') throw new ApiError('already-voted');
        throw err;
      }
      app.charges.add(tenantId, 0, { voteCount: 1 }, clock.now(), false);
      const pending = kind === VOTE_KINDS.pending;
      const answer: Record<string, unknown> = { status: pending ? 'pending-verification' : 'success', voteId, isVerified: !pending, user: { sessionId: reader.sessionId ?? null } };
      if (reader.anonUserId !== null) answer['editKey'] = editKeyFor(app.liveIds.authorEditSecret(tenantId, reader.anonUserId), voteId);
      return answer;
    },
  }),

  route<ActionQuery, undefined>({
    method: 'DELETE',
    path: '/comments/:tenantId/:commentId/vote/:voteId',
    access: 'public',
    params: VOTE_PARAMS,
    query: VOTE_QUERY,
    handle: async (req) => {
      const { app } = req;
      const { tenantId, commentId } = ids(req);
      const voteId = req.params['voteId']!;
      const locator = pageLocator(app.system);
      const gone = () => new ApiError('not-found', `No vote ${voteId} on comment ${commentId}.`);
      const owner = await locator.ask('vote', tenantId, voteId, 'voteOwner', { voteId }, gone);
      if (owner.commentId !== commentId) throw gone();
      const reader = await resolveReader(req, tenantId);
      // The voter by identity; else (no cookie) the edit key the vote answer gave, or the comment's.
      let mine = readerKey(reader) === owner.voterKey;
      const key = req.query.editKey;
      if (!mine && key && owner.anonUserId !== null) {
        const secret = app.liveIds.authorEditSecret(tenantId, owner.anonUserId);
        mine = editKeyMatches(secret, voteId, key) || editKeyMatches(secret, commentId, key);
      }
      if (!mine) throw new ApiError('edit-key-invalid', 'Only the voter may take this vote back.');
      try {
        const { wasPendingVote } = await locator.ask('vote', tenantId, voteId, 'deleteVote', { voteId, ...(req.query.broadcastId ? { broadcastId: req.query.broadcastId } : {}) }, gone);
        return { wasPendingVote };
      } catch (err) {
        if (err instanceof NotOnThisPage) throw gone();
        throw err;
      }
    },
  }),

  route<ActionQuery, undefined>({
    method: 'GET',
    path: '/comments/:tenantId/:commentId/votes',
    access: 'public',
    params: COMMENT_PARAMS,
    query: VOTERS_QUERY,
    handle: async (req) => {
      const { app } = req;
      const { tenantId, commentId } = ids(req);
      const found = await findComment(app, tenantId, commentId);
      const lists = await app.system.ask(PageKind, pageActorId(tenantId, found.urlId), 'listVotes', { voterKey: null });
      const direction = req.query.dir === -1 ? 'down' : 'up';
      const applied = [...lists.appliedAuthorizedVotes, ...lists.appliedAnonymousVotes].filter((v) => v['commentId'] === commentId && v['direction'] === direction);
      // Only signed-in voters have names; anonymous ids stay with the server.
      const userIds = [...new Set(applied.map((v) => v['userId'] as string | null).filter((id): id is string => id !== null && !id.startsWith('anon-')))];
      const names = await voterNames(app, tenantId, userIds.slice(0, VOTER_NAMES_MAX));
      return { voteUserNames: names, hasMore: userIds.length > VOTER_NAMES_MAX };
    },
  }),

  moderation('/comments/:tenantId/:commentId/pin', { isPinned: true }, 'positions'),
  moderation('/comments/:tenantId/:commentId/unpin', { isPinned: false }, 'positions'),
  moderation('/comments/:tenantId/:commentId/lock', { isLocked: true }, 'empty'),
  moderation('/comments/:tenantId/:commentId/unlock', { isLocked: false }, 'empty'),
];
