/**
 * More of the moderation API (docs/moderation.md): flags, text edits, threads, reading
 * comments by id and by parent, trust factors and internal profiles.
 */
import { ModerationKind } from '../../actors/moderation/moderation-actor.js';
import { MODERATION_ACTIONS } from '../../actors/moderation/moderation-model.js';
import { ModerationQueryKind } from '../../actors/moderation/moderation-query-actor.js';
import { moderationComment } from '../../actors/moderation/moderation-query.js';
import { pageLocator } from '../../actors/page/locator.js';
import { PageKind, pageActorId } from '../../actors/page/protocol.js';
import { webhookTargets } from '../../actors/webhook/protocol.js';
import { ApiError } from '../../engine/errors.js';
import type { Filter } from '../../storage/store.js';
import { announceUpdate, changeComment, moderatedComment, recordAction } from '../moderation/moderation-actions.js';
import { MODERATOR_QUERY_PROPS, maySee, type Moderator, type ModeratorQuery, requireModerator } from '../moderation/moderator.js';
import { commentNotFound } from '../public/comment-access.js';
import { route, type RouteRequest, type Schema } from '../route.js';
import type { AppServices } from '../services.js';
import { MODERATION_BASE } from './moderate-comments.js';

const str = (max: number, min = 0): Schema => ({ type: 'string', maxLength: max, minLength: min });
const COMMENT_PARAM: Schema = { type: 'object', properties: { commentId: str(128, 1) }, required: ['commentId'] };
const query = (props: Record<string, Schema> = {}): Schema => ({ type: 'object', properties: { ...MODERATOR_QUERY_PROPS, ...props } });
const ACT_QUERY = query({ broadcastId: str(64) });

/** The automatic trust factor of a user: the share of their recent comments moderators let stand (0–100), 50 without history. */
async function autoTrust(app: AppServices, moderator: Moderator, userId: string): Promise<number> {
  const docs = await app.system.ask(ModerationQueryKind, moderator.tenantId, 'find', { filter: { tenantId: moderator.tenantId, userId }, text: {}, sort: [['date', -1], ['_id', -1]], skip: 0, limit: 200 });
  if (docs.length === 0) return 50;
  const good = docs.filter((d) => d.approved && !d.isSpam && !d.isDeleted && !d.isBannedUser).length;
  return Math.round((good / docs.length) * 100);
}

async function flagRoute(req: RouteRequest<ModeratorQuery & { broadcastId?: string }, unknown>, flag: boolean): Promise<Record<string, unknown>> {
  const moderator = await requireModerator(req);
  const id = req.params['commentId']!;
  const found = await moderatedComment(req.app, moderator, id);
  const by = { userId: moderator.userId, anonUserId: null };
  const locator = pageLocator(req.app.system);
  if (flag) {
    const webhooks = await webhookTargets(req.app.system, moderator.tenantId);
    await locator.ask('comment', moderator.tenantId, id, 'flag', { commentId: id, by, settings: found.settings, webhooks, ...(req.query.broadcastId ? { broadcastId: req.query.broadcastId } : {}) }, commentNotFound(id));
  } else {
    await locator.ask('comment', moderator.tenantId, id, 'unflag', { commentId: id, by }, commentNotFound(id));
  }
  announceUpdate(req.app, moderator.tenantId, found.view, ['flagCount']);
  await recordAction(req, moderator, id, flag ? MODERATION_ACTIONS.flagged : MODERATION_ACTIONS.unflagged, flag ? 'Flagged the comment.' : 'Removed their flag from the comment.', flag ? {} : { unFlaggedCount: 1 });
  return {};
}

async function threadRoute(req: RouteRequest<ModeratorQuery & { urlId: string }, unknown>, isClosed: boolean): Promise<Record<string, unknown>> {
  const moderator = await requireModerator(req);
  if (moderator.groups !== null) throw new ApiError('moderation-forbidden', 'Moderators limited to moderation groups cannot close or reopen whole threads.');
  const page = pageActorId(moderator.tenantId, req.query.urlId);
  let record = await req.app.system.ask(PageKind, page, 'getPage', null);
  record ??= await req.app.system.ask(PageKind, page, 'createPage', { url: null, title: '', accessibleByGroupIds: null, isClosed: null });
  const webhooks = await webhookTargets(req.app.system, moderator.tenantId);
  await req.app.system.ask(PageKind, page, 'patchPage', { pageId: record._id, changes: { isClosed }, webhooks });
  await recordAction(req, moderator, `page:${req.query.urlId}`, isClosed ? MODERATION_ACTIONS.threadClosed : MODERATION_ACTIONS.threadReopened, isClosed ? 'Closed the thread.' : 'Reopened the thread.', {});
  return {};
}

/** Flags, edits, threads, reads by id, trust and profiles. */
export const moderateMoreRoutes = [
  route<ModeratorQuery & { broadcastId?: string }, undefined>({ method: 'POST', path: `${MODERATION_BASE}/flag-comment/:commentId`, access: 'public', params: COMMENT_PARAM, query: ACT_QUERY, handle: (req) => flagRoute(req, true) }),
  route<ModeratorQuery & { broadcastId?: string }, undefined>({ method: 'POST', path: `${MODERATION_BASE}/un-flag-comment/:commentId`, access: 'public', params: COMMENT_PARAM, query: ACT_QUERY, handle: (req) => flagRoute(req, false) }),
  route<ModeratorQuery & { broadcastId?: string }, { comment: string }>({
    method: 'POST',
    path: `${MODERATION_BASE}/set-comment-text/:commentId`,
    access: 'public',
    params: COMMENT_PARAM,
    query: ACT_QUERY,
    body: { type: 'object', properties: { comment: str(100_000) }, required: ['comment'] },
    handle: async (req) => {
      const moderator = await requireModerator(req);
      const id = req.params['commentId']!;
      const found = await moderatedComment(req.app, moderator, id);
      const comment = await changeComment(req.app, moderator, found, { comment: req.body.comment }, req.query.broadcastId);
      await recordAction(req, moderator, id, MODERATION_ACTIONS.edited, 'Edited the text.', { editedCount: 1 }, { before: found.view, after: comment });
      return { newCommentTextHTML: String(comment['commentHTML'] ?? '') };
    },
  }),
  route<ModeratorQuery & { urlId: string }, undefined>({ method: 'PUT', path: `${MODERATION_BASE}/close-thread`, access: 'public', query: { ...query({ urlId: str(4096, 1) }), required: ['urlId'] }, handle: (req) => threadRoute(req, true) }),
  route<ModeratorQuery & { urlId: string }, undefined>({ method: 'PUT', path: `${MODERATION_BASE}/reopen-thread`, access: 'public', query: { ...query({ urlId: str(4096, 1) }), required: ['urlId'] }, handle: (req) => threadRoute(req, false) }),
  route<ModeratorQuery, { ids: string[] }>({
    method: 'POST',
    path: `${MODERATION_BASE}/comments-by-ids`,
    access: 'public',
    query: query(),
    body: { type: 'object', properties: { ids: { type: 'array', items: str(128, 1), maxItems: 200 } }, required: ['ids'] },
    handle: async (req) => {
      const moderator = await requireModerator(req);
      const comments: Record<string, unknown>[] = [];
      for (const id of new Set(req.body.ids)) {
        const found = await moderatedComment(req.app, moderator, id).catch((err: unknown) => {
          if (err instanceof ApiError && err.code === 'not-found') return null;
          throw err;
        });
        if (found !== null) comments.push(moderationComment(found.view));
      }
      return { comments };
    },
  }),
  route<ModeratorQuery, undefined>({
    method: 'GET',
    path: `${MODERATION_BASE}/comment-children/:commentId`,
    access: 'public',
    params: COMMENT_PARAM,
    query: query(),
    handle: async (req) => {
      const moderator = await requireModerator(req);
      const found = await moderatedComment(req.app, moderator, req.params['commentId']!);
      const docs = await req.app.system.ask(ModerationQueryKind, moderator.tenantId, 'find', {
        filter: { tenantId: moderator.tenantId, urlId: found.urlId, parentId: req.params['commentId']! },
        text: {},
        sort: [['date', 1], ['_id', 1]],
        skip: 0,
        limit: 500,
      });
      return { comments: docs.filter((d) => maySee(moderator, d)).map(moderationComment) };
    },
  }),
  route<ModeratorQuery & { userId?: string }, undefined>({
    method: 'GET',
    path: `${MODERATION_BASE}/get-trust-factor`,
    access: 'public',
    query: query({ userId: str(256, 1) }),
    handle: async (req) => {
      const moderator = await requireModerator(req);
      const userId = req.query.userId;
      if (userId === undefined) throw new ApiError('invalid-param', 'userId is required.');
      const manual = await req.app.system.ask(ModerationKind, moderator.tenantId, 'getTrust', { userId });
      return { ...(manual === null ? {} : { manualTrustFactor: manual }), autoTrustFactor: await autoTrust(req.app, moderator, userId) };
    },
  }),
  route<ModeratorQuery & { userId?: string; trustFactor?: string }, undefined>({
    method: 'PUT',
    path: `${MODERATION_BASE}/set-trust-factor`,
    access: 'public',
    query: query({ userId: str(256, 1), trustFactor: str(20) }),
    handle: async (req) => {
      const moderator = await requireModerator(req);
      const { userId, trustFactor } = req.query;
      const value = Number(trustFactor);
      if (userId === undefined || trustFactor === undefined || trustFactor === '' || !Number.isFinite(value) || value < 0 || value > 100) {
        throw new ApiError('invalid-param', 'userId and a trustFactor from 0 to 100 are required.');
      }
      const before = await req.app.system.ask(ModerationKind, moderator.tenantId, 'getTrust', { userId });
      await req.app.system.ask(ModerationKind, moderator.tenantId, 'setTrust', { userId, trustFactor: value });
      return before === null ? {} : { previousManualTrustFactor: before };
    },
  }),
  route<ModeratorQuery & { commentId?: string }, undefined>({
    method: 'GET',
    path: `${MODERATION_BASE}/get-user-internal-profile`,
    access: 'public',
    query: query({ commentId: str(128, 1) }),
    handle: async (req) => {
      const moderator = await requireModerator(req);
      if (req.query.commentId === undefined) throw new ApiError('invalid-param', 'commentId is required.');
      const { view } = await moderatedComment(req.app, moderator, req.query.commentId);
      const userId = typeof view['userId'] === 'string' ? view['userId'] : null;
      const filter: Filter = userId !== null ? { tenantId: moderator.tenantId, userId } : { tenantId: moderator.tenantId, anonUserId: String(view['anonUserId'] ?? '\u0000') };
      const [first] = await req.app.system.ask(ModerationQueryKind, moderator.tenantId, 'find', { filter, text: {}, sort: [['date', 1], ['_id', 1]], skip: 0, limit: 1 });
      const profile: Record<string, unknown> = {
        commenterName: String(view['commenterName'] ?? ''),
        firstCommentDate: first?.date ?? null,
        websiteUrl: (view['commenterLink'] as string | null | undefined) ?? null,
        verified: view['verified'] === true,
        avatarSrc: (view['avatarSrc'] as string | null | undefined) ?? null,
        commenterEmail: (view['commenterEmail'] as string | null | undefined) ?? null,
        anonUserId: (view['anonUserId'] as string | null | undefined) ?? null,
        userId,
      };
      if (typeof view['locale'] === 'string') profile['locale'] = view['locale'];
      return { profile };
    },
  }),
];
