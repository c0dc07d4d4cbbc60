/**
 * Manual badges from the moderation API (docs/moderation.md, "Badges"): the tenant's catalog
 * badges of the manual type (docs/badges.md), awarded to and removed from a user (named by
 * `userId`, or by the author of `commentId`). Awards go through the user's badge actor, which
 * updates the badges their comments show.
 */
import { BADGE_TYPES, commentBadgeInfo, tenantBadgeView, userBadgeView, badgeUserActorId } from '../../actors/badge/badge-model.js';
import { BadgeCatalogKind, BadgeUserKind } from '../../actors/badge/protocol.js';
import { MODERATION_ACTIONS } from '../../actors/moderation/moderation-model.js';
import { ApiError } from '../../engine/errors.js';
import { moderatedComment, recordAction } from '../moderation/moderation-actions.js';
import { MODERATOR_QUERY_PROPS, type Moderator, type ModeratorQuery, requireModerator } from '../moderation/moderator.js';
import { route, type RouteRequest, type Schema } from '../route.js';
import { MODERATION_BASE } from './moderate-comments.js';

const str = (max: number, min = 0): Schema => ({ type: 'string', maxLength: max, minLength: min });
const query = (props: Record<string, Schema>, required: string[] = []): Schema => ({ type: 'object', properties: { ...MODERATOR_QUERY_PROPS, ...props }, ...(required.length > 0 ? { required } : {}) });

interface BadgeQuery extends ModeratorQuery {
  badgeId?: string;
  userId?: string;
  badgesUserId?: string;
  commentId?: string;
  broadcastId?: string;
}

/** The user a badge call names: `userId`, else the author of `commentId` (who must have a user). */
async function userOf(req: RouteRequest<BadgeQuery, unknown>, moderator: Moderator, userId: string | undefined): Promise<{ userId: string; commentId: string | null }> {
  if (userId) return { userId, commentId: req.query.commentId ?? null };
  if (!req.query.commentId) throw new ApiError('invalid-param', 'Name the user: userId, or the commentId of one of their comments.');
  const { view } = await moderatedComment(req.app, moderator, req.query.commentId);
  if (typeof view['userId'] !== 'string') throw new ApiError('invalid-param', 'The comment\'s author has no user to give badges to.');
  return { userId: view['userId'], commentId: req.query.commentId };
}

/** The manual badge of the catalog with this id (400 `invalid-param` when it is not one). */
async function manualBadge(req: RouteRequest<BadgeQuery, unknown>, moderator: Moderator, badgeId: string) {
  const badge = await req.app.system.ask(BadgeCatalogKind, moderator.tenantId, 'get', { id: badgeId });
  if (badge === null || badge.type !== BADGE_TYPES.manual) throw new ApiError('invalid-param', `${badgeId} is not a manual badge of this site.`);
  return badge;
}

/** Manual badges. */
export const moderateBadgeRoutes = [
  route<BadgeQuery, undefined>({
    method: 'GET',
    path: `${MODERATION_BASE}/get-manual-badges`,
    access: 'public',
    query: query({}),
    handle: async (req) => {
      const moderator = await requireModerator(req);
      const badges = await req.app.system.ask(BadgeCatalogKind, moderator.tenantId, 'list', null);
      // This operation's `TenantBadge` requires `createdByUserId` as text: a badge the API made has none.
      return { badges: badges.filter((b) => b.type === BADGE_TYPES.manual).map((b) => ({ ...tenantBadgeView(b), createdByUserId: b['createdByUserId'] ?? '' })) };
    },
  }),
  route<BadgeQuery, undefined>({
    method: 'GET',
    path: `${MODERATION_BASE}/get-manual-badges-for-user`,
    access: 'public',
    query: query({ badgesUserId: str(256), commentId: str(128) }),
    handle: async (req) => {
      const moderator = await requireModerator(req);
      const { userId } = await userOf(req, moderator, req.query.badgesUserId);
      const held = await req.app.system.ask(BadgeCatalogKind, moderator.tenantId, 'listUserBadges', { filter: { userId, type: BADGE_TYPES.manual }, skip: 0, limit: 200 });
      return { badges: held.map(userBadgeView) };
    },
  }),
  route<BadgeQuery, undefined>({
    method: 'PUT',
    path: `${MODERATION_BASE}/award-badge`,
    access: 'public',
    query: query({ badgeId: str(128, 1), userId: str(256), commentId: str(128), broadcastId: str(64) }, ['badgeId']),
    handle: async (req) => {
      const moderator = await requireModerator(req);
      const badge = await manualBadge(req, moderator, req.query.badgeId!);
      const { userId, commentId } = await userOf(req, moderator, req.query.userId);
      const doc = await req.app.system.ask(BadgeUserKind, badgeUserActorId(moderator.tenantId, userId), 'award', { badgeId: badge._id, displayedOnComments: true });
      if (commentId !== null) await recordAction(req, moderator, commentId, MODERATION_ACTIONS.badgeAwarded, `Awarded the badge ${badge._id} to the author.`, {});
      return { badges: [commentBadgeInfo(doc)] };
    },
  }),
  route<BadgeQuery, undefined>({
    method: 'PUT',
    path: `${MODERATION_BASE}/remove-badge`,
    access: 'public',
    query: query({ badgeId: str(128, 1), userId: str(256), commentId: str(128), broadcastId: str(64) }, ['badgeId']),
    handle: async (req) => {
      const moderator = await requireModerator(req);
      await manualBadge(req, moderator, req.query.badgeId!);
      const { userId, commentId } = await userOf(req, moderator, req.query.userId);
      const owner = badgeUserActorId(moderator.tenantId, userId);
      const held = await req.app.system.ask(BadgeCatalogKind, moderator.tenantId, 'listUserBadges', { filter: { userId, badgeId: req.query.badgeId! }, skip: 0, limit: 10 });
      for (const doc of held) await req.app.system.ask(BadgeUserKind, owner, 'remove', { id: doc._id });
      if (commentId !== null && held.length > 0) await recordAction(req, moderator, commentId, MODERATION_ACTIONS.badgeRemoved, `Removed the badge ${req.query.badgeId!} from the author.`, {});
      const left = await req.app.system.ask(BadgeCatalogKind, moderator.tenantId, 'listUserBadges', { filter: { userId, displayedOnComments: true }, skip: 0, limit: 200 });
      return { badges: left.map(commentBadgeInfo) };
    },
  }),
];
