/**
 * The moderation API's finding and acting operations (`/auth/my-account/moderate-comments/`,
 * docs/moderation.md): who may call them is decided by `requireModerator`.
 */
import { ModerationKind } from '../../actors/moderation/moderation-actor.js';
import { MODERATION_ACTIONS } from '../../actors/moderation/moderation-model.js';
import { ModerationQueryKind } from '../../actors/moderation/moderation-query-actor.js';
import { jsonParam, type ModerationFilter, moderationComment, parseTextSearch, storageFilter } from '../../actors/moderation/moderation-query.js';
import type { SortSpec } from '../../storage/store.js';
import { ApiError } from '../../engine/errors.js';
import { withIpOf } from '../moderation/comment-ip.js';
import { changeComment, learn, moderatedComment, recordAction } from '../moderation/moderation-actions.js';
import { MODERATOR_QUERY_PROPS, type ModeratorQuery, requireModerator } from '../moderation/moderator.js';
import { route, type RouteRequest, type Schema } from '../route.js';

/** Where the moderation API lives. */
export const MODERATION_BASE = '/auth/my-account/moderate-comments';

const bool: Schema = { type: 'boolean' };
const str = (max: number): Schema => ({ type: 'string', maxLength: max });
const COMMENT_PARAM: Schema = { type: 'object', properties: { commentId: { type: 'string', minLength: 1, maxLength: 128 } }, required: ['commentId'] };
const query = (props: Record<string, Schema> = {}): Schema => ({ type: 'object', properties: { ...MODERATOR_QUERY_PROPS, ...props } });
const FIND_PROPS: Record<string, Schema> = { 'text-search': str(1000), byIPFromComment: str(128), searchFilters: str(4000), demo: bool };
const PAGE_SIZE = 30;
/** Comments of the same date as `afterId` that `api/ids` reads past. */
const TIES = 100;
const MAX_PAGE_SIZE = 200;

const FILTER_TYPES: Record<string, 'boolean' | 'number' | 'string' | 'strings'> = {
  reviewed: 'boolean', approved: 'boolean', isSpam: 'boolean', isBannedUser: 'boolean', isLocked: 'boolean',
  flagCountGt: 'number', userId: 'string', urlId: 'string', domain: 'string', moderationGroupIds: 'strings',
  commentTextSearch: 'strings', exactCommentText: 'string',
};

/** The `ModerationFilter` of a JSON parameter, checked field by field (400 `invalid-param`). */
export function moderationFilterOf(raw: string | undefined, name: string): ModerationFilter {
  const value = jsonParam<Record<string, unknown>>(raw, name) ?? {};
  for (const [key, v] of Object.entries(value)) {
    const type = FILTER_TYPES[key];
    const ok = type === 'strings' ? Array.isArray(v) && v.length <= 100 && v.every((s) => typeof s === 'string' && s.length <= 1000) : type !== undefined && typeof v === type && (typeof v !== 'string' || v.length <= 4096);
    if (!ok) throw new ApiError('invalid-param', `${name}.${key} is not a ModerationFilter field of the right type.`);
  }
  return value as ModerationFilter;
}

const SORTABLE = new Set(['date', 'votes', 'flagCount']);

function sortSpec(raw: string | undefined): SortSpec {
  const value = jsonParam<Record<string, unknown>>(raw, 'sorts') ?? {};
  const spec: [string, 1 | -1][] = [];
  for (const [key, dir] of Object.entries(value)) {
    if (!SORTABLE.has(key) || (dir !== 1 && dir !== -1)) throw new ApiError('invalid-param', 'sorts must map date, votes or flagCount to 1 or -1.');
    spec.push([key, dir]);
  }
  if (spec.length === 0) spec.push(['date', -1]);
  spec.push(['_id', spec[0]![1]]);
  return spec;
}

interface FindQuery extends ModeratorQuery {
  'text-search'?: string;
  filters?: string;
  filter?: string;
  sorts?: string;
  page?: number;
  count?: number;
  afterId?: string;
  byIPFromComment?: string;
}

async function resolveFind(req: RouteRequest<FindQuery, unknown>, filterParam: 'filters' | 'filter') {
  const moderator = await requireModerator(req);
  const text = parseTextSearch(req.query['text-search'], moderationFilterOf(req.query[filterParam], filterParam));
  const filter = await withIpOf(req.app, moderator, storageFilter(moderator.tenantId, text, moderator.groups), req.query.byIPFromComment);
  return { moderator, text, filter };
}

/** A moderation action that changes one comment. */
function actRoute<Q extends ModeratorQuery>(path: string, props: Record<string, Schema>, act: (req: RouteRequest<Q, unknown>, id: string) => Promise<Record<string, unknown>>) {
  return route<Q, unknown>({
    method: 'POST',
    path: `${MODERATION_BASE}/${path}/:commentId`,
    access: 'public',
    params: COMMENT_PARAM,
    query: query({ ...props, broadcastId: str(64) }),
    handle: (req) => act(req, req.params['commentId']!),
  });
}

interface ActQuery extends ModeratorQuery {
  broadcastId?: string;
  approved?: boolean;
  reviewed?: boolean;
  spam?: boolean;
  permNotSpam?: boolean;
}

/** Finding and acting on comments. */
export const moderateCommentRoutes = [
  route<FindQuery, undefined>({
    method: 'GET',
    path: `${MODERATION_BASE}/api/comments`,
    access: 'public',
    query: query({ ...FIND_PROPS, page: { type: 'number', minimum: 0, maximum: 100000 }, count: { type: 'number', minimum: 1, maximum: MAX_PAGE_SIZE }, filters: str(4000), sorts: str(200) }),
    handle: async (req) => {
      const { moderator, text, filter } = await resolveFind(req, 'filters');
      const limit = Math.floor(req.query.count ?? PAGE_SIZE);
      const skip = Math.floor(req.query.page ?? 0) * limit;
      const docs = await req.app.system.ask(ModerationQueryKind, moderator.tenantId, 'find', { filter, text, sort: sortSpec(req.query.sorts), skip, limit });
      return { translations: {}, comments: docs.map(moderationComment), moderationFilter: text };
    },
  }),
  route<FindQuery, undefined>({
    method: 'GET',
    path: `${MODERATION_BASE}/api/ids`,
    access: 'public',
    query: query({ ...FIND_PROPS, filters: str(4000), afterId: str(128) }),
    handle: async (req) => {
      const { moderator, text, filter } = await resolveFind(req, 'filters');
      const limit = 1000;
      const afterId = req.query.afterId;
      // Newest first; `afterId` continues below that comment (by date, then id), a page at a time.
      let after: { date: string; id: string } | null = null;
      if (afterId) {
        const found = await moderatedComment(req.app, moderator, afterId);
        after = { date: new Date(Number(found.view['date'])).toISOString(), id: afterId };
      }
      const bounded = after === null ? filter : { ...filter, date: { $lte: after.date } };
      const slack = after === null ? 0 : TIES;
      const docs = await req.app.system.ask(ModerationQueryKind, moderator.tenantId, 'find', { filter: bounded, text, sort: [['date', -1], ['_id', -1]], skip: 0, limit: limit + slack + 1 });
      const rest = after === null ? docs : docs.filter((d) => d.date < after.date || d._id < after.id);
      return { ids: rest.slice(0, limit).map((d) => d._id), hasMore: rest.length > limit };
    },
  }),
  route<FindQuery, undefined>({
    method: 'GET',
    path: `${MODERATION_BASE}/count`,
    access: 'public',
    query: query({ ...FIND_PROPS, filter: str(4000) }),
    handle: async (req) => {
      const { moderator, text, filter } = await resolveFind(req, 'filter');
      return { count: await req.app.system.ask(ModerationQueryKind, moderator.tenantId, 'count', { filter, text }) };
    },
  }),
  route<ModeratorQuery & { includeEmail?: boolean; includeIP?: boolean }, undefined>({
    method: 'GET',
    path: `${MODERATION_BASE}/comment/:commentId`,
    access: 'public',
    params: COMMENT_PARAM,
    query: query({ includeEmail: bool, includeIP: bool }),
    handle: async (req) => {
      const moderator = await requireModerator(req);
      const id = req.params['commentId']!;
      const found = await moderatedComment(req.app, moderator, id);
      // Beside the comment: its shape (`ModerationAPIComment`) admits neither field.
      const out: Record<string, unknown> = { comment: moderationComment(found.view) };
      if (req.query.includeEmail === true) out['commenterEmail'] = found.view['commenterEmail'] ?? null;
      if (req.query.includeIP === true) out['ipHash'] = await req.app.system.ask(ModerationQueryKind, moderator.tenantId, 'ipHashOf', { commentId: id });
      return out;
    },
  }),
  route<ModeratorQuery, undefined>({
    method: 'GET',
    path: `${MODERATION_BASE}/get-comment-text/:commentId`,
    access: 'public',
    params: COMMENT_PARAM,
    query: query(),
    handle: async (req) => {
      const moderator = await requireModerator(req);
      const found = await moderatedComment(req.app, moderator, req.params['commentId']!);
      return { comment: String(found.view['comment'] ?? '') };
    },
  }),
  route<ModeratorQuery, undefined>({
    method: 'GET',
    path: `${MODERATION_BASE}/logs/:commentId`,
    access: 'public',
    params: COMMENT_PARAM,
    query: query(),
    handle: async (req) => {
      const moderator = await requireModerator(req);
      const id = req.params['commentId']!;
      await moderatedComment(req.app, moderator, id);
      const logs = await req.app.system.ask(ModerationKind, moderator.tenantId, 'logs', { commentId: id });
      return { logs: logs.map((l) => ({ date: l.date, username: l.username, actionName: l.actionName, messageHTML: l.messageHTML })) };
    },
  }),

  actRoute<ActQuery>('set-comment-approval-status', { approved: bool }, async (req, id) => {
    const moderator = await requireModerator(req);
    const found = await moderatedComment(req.app, moderator, id);
    const approved = req.query.approved !== false;
    const after = await changeComment(req.app, moderator, found, { approved, reviewed: true }, req.query.broadcastId);
    if (approved) await learn(req.app, moderator, found.view, false);
    await recordAction(req, moderator, id, approved ? MODERATION_ACTIONS.approved : MODERATION_ACTIONS.unapproved, approved ? 'Approved the comment.' : 'Un-approved the comment.', approved ? { approvedCount: 1 } : { unApprovedCount: 1 }, { before: found.view, after });
    return { didResetFlaggedCount: false };
  }),
  actRoute<ActQuery>('set-comment-review-status', { reviewed: bool }, async (req, id) => {
    const moderator = await requireModerator(req);
    const found = await moderatedComment(req.app, moderator, id);
    const reviewed = req.query.reviewed !== false;
    const after = await changeComment(req.app, moderator, found, { reviewed }, req.query.broadcastId);
    await recordAction(req, moderator, id, reviewed ? MODERATION_ACTIONS.reviewed : MODERATION_ACTIONS.unreviewed, reviewed ? 'Marked reviewed.' : 'Marked not reviewed.', reviewed ? { markReviewedCount: 1 } : {}, { before: found.view, after });
    return {};
  }),
  actRoute<ActQuery>('set-comment-spam-status', { spam: bool, permNotSpam: bool }, async (req, id) => {
    const moderator = await requireModerator(req);
    const found = await moderatedComment(req.app, moderator, id);
    const spam = req.query.spam !== false;
    const changes: Record<string, unknown> = { isSpam: spam, reviewed: true };
    if (!spam && req.query.permNotSpam === true) changes['permNotSpam'] = true;
    // A comment marked spam is hidden; one marked not spam shows again unless it waits for approval.
    if (!spam && found.view['isSpam'] === true) changes['approved'] = true;
    const after = await changeComment(req.app, moderator, found, changes, req.query.broadcastId);
    await learn(req.app, moderator, found.view, spam);
    await recordAction(req, moderator, id, spam ? MODERATION_ACTIONS.spam : MODERATION_ACTIONS.notSpam, spam ? 'Marked spam.' : 'Marked not spam.', spam ? { markedSpamCount: 1 } : { markedNotSpamCount: 1 }, { before: found.view, after });
    return {};
  }),
  actRoute<ActQuery>('remove-comment', {}, async (req, id) => {
    const moderator = await requireModerator(req);
    const found = await moderatedComment(req.app, moderator, id);
    if (found.view['isDeleted'] === true) return { action: 'already-deleted' };
    const after = await changeComment(req.app, moderator, found, { isDeleted: true, approved: false, meta: { ...((found.view['meta'] as object | undefined) ?? {}), removedWhileApproved: found.view['approved'] === true } }, req.query.broadcastId);
    await recordAction(req, moderator, id, MODERATION_ACTIONS.removed, 'Removed the comment.', { deletedCount: 1 }, { before: found.view, after });
    return { action: 'deleted' };
  }),
  actRoute<ActQuery>('restore-deleted-comment', {}, async (req, id) => {
    const moderator = await requireModerator(req);
    const found = await moderatedComment(req.app, moderator, id);
    if (found.view['isDeleted'] !== true) throw new ApiError('invalid-param', 'The comment is not removed.');
    const meta = { ...((found.view['meta'] as Record<string, unknown> | undefined) ?? {}) };
    const approved = meta['removedWhileApproved'] === true;
    delete meta['removedWhileApproved'];
    const after = await changeComment(req.app, moderator, found, { isDeleted: false, approved, meta: Object.keys(meta).length > 0 ? meta : null }, req.query.broadcastId);
    await recordAction(req, moderator, id, MODERATION_ACTIONS.restored, 'Restored the comment.', {}, { before: found.view, after });
    return {};
  }),
];
