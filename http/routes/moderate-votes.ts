/**
 * Voting as a moderator from the moderation API (docs/moderation.md, "Act"): the moderator's
 * own vote on a comment (as its user), and removing it, live to readers as any vote; and
 * adjusting a comment's votes by hand (`adjust-comment-votes`), through the comment's page actor.
 */
import { pageLocator } from '../../actors/page/locator.js';
import { MODERATION_ACTIONS } from '../../actors/moderation/moderation-model.js';
import { VOTE_DIRECTION } from '../../actors/page/vote-doc.js';
import { ApiError } from '../../engine/errors.js';
import { announceUpdate, moderatedComment, recordAction } from '../moderation/moderation-actions.js';
import { MODERATOR_QUERY_PROPS, type ModeratorQuery, requireModerator } from '../moderation/moderator.js';
import { commentNotFound } from '../public/comment-access.js';
import { route, type Schema } from '../route.js';
import { MODERATION_BASE } from './moderate-comments.js';

const str = (max: number, min = 0): Schema => ({ type: 'string', maxLength: max, minLength: min });

interface VoteQuery extends ModeratorQuery {
  direction?: 'up' | 'down';
  broadcastId?: string;
}

/** Most votes one adjustment adds or takes away. */
const MAX_ADJUSTMENT = 1_000_000;

/** Votes. */
export const moderateVoteRoutes = [
  route<VoteQuery, { adjustVoteAmount: number }>({
    method: 'POST',
    path: `${MODERATION_BASE}/adjust-comment-votes/:commentId`,
    access: 'public',
    params: { type: 'object', properties: { commentId: str(128, 1) }, required: ['commentId'] },
    query: { type: 'object', properties: { ...MODERATOR_QUERY_PROPS, broadcastId: str(64) } },
    body: { type: 'object', properties: { adjustVoteAmount: { type: 'integer', minimum: -MAX_ADJUSTMENT, maximum: MAX_ADJUSTMENT } }, required: ['adjustVoteAmount'] },
    handle: async (req) => {
      const moderator = await requireModerator(req);
      const id = req.params['commentId']!;
      const found = await moderatedComment(req.app, moderator, id);
      const amount = req.body.adjustVoteAmount;
      const { comment, votes } = await pageLocator(req.app.system).ask(
        'comment',
        moderator.tenantId,
        id,
        'adjustVotes',
        { commentId: id, amount, isLive: true, ...(req.query.broadcastId ? { broadcastId: req.query.broadcastId } : {}) },
        commentNotFound(id),
      );
      announceUpdate(req.app, moderator.tenantId, comment, ['votes']);
      const message = `Adjusted the votes by ${amount > 0 ? '+' : ''}${amount} (now ${votes}).`;
      await recordAction(req, moderator, id, MODERATION_ACTIONS.votesAdjusted, message, {}, { before: found.view, after: comment });
      return { newCommentVotes: votes };
    },
  }),
  route<VoteQuery, undefined>({
    method: 'POST',
    path: `${MODERATION_BASE}/vote/:commentId`,
    access: 'public',
    params: { type: 'object', properties: { commentId: str(128, 1) }, required: ['commentId'] },
    query: { type: 'object', properties: { ...MODERATOR_QUERY_PROPS, direction: { type: 'string', enum: ['up', 'down'] }, broadcastId: str(64) } },
    handle: async (req) => {
      const moderator = await requireModerator(req);
      const id = req.params['commentId']!;
      await moderatedComment(req.app, moderator, id);
      const direction = VOTE_DIRECTION[req.query.direction ?? 'up'];
      let voteId: string;
      try {
        ({ voteId } = await pageLocator(req.app.system).ask(
          'comment',
          moderator.tenantId,
          id,
          'vote',
          { commentId: id, by: { userId: moderator.userId, anonUserId: null }, direction, ...(req.query.broadcastId ? { broadcastId: req.query.broadcastId } : {}) },
          commentNotFound(id),
        ));
      } catch (err) {
        if (err instanceof ApiError && err.code === 'duplicate') throw new ApiError('already-voted');
        throw err;
      }
      await recordAction(req, moderator, id, MODERATION_ACTIONS.voted, direction > 0 ? 'Voted up.' : 'Voted down.', {});
      return { voteId, isVerified: true };
    },
  }),
  route<VoteQuery, undefined>({
    method: 'DELETE',
    path: `${MODERATION_BASE}/vote/:commentId/:voteId`,
    access: 'public',
    params: { type: 'object', properties: { commentId: str(128, 1), voteId: str(128, 1) }, required: ['commentId', 'voteId'] },
    query: { type: 'object', properties: { ...MODERATOR_QUERY_PROPS, broadcastId: str(64) } },
    handle: async (req) => {
      const moderator = await requireModerator(req);
      const id = req.params['commentId']!;
      const voteId = req.params['voteId']!;
      await moderatedComment(req.app, moderator, id);
      const locator = pageLocator(req.app.system);
      const gone = () => new ApiError('not-found', `No vote ${voteId}.`);
      const owner = await locator.ask('vote', moderator.tenantId, voteId, 'voteOwner', { voteId }, gone);
      if (owner.commentId !== id || owner.voterKey !== `u:${moderator.userId}`) throw gone();
      const { wasPendingVote } = await locator.ask('vote', moderator.tenantId, voteId, 'deleteVote', { voteId, ...(req.query.broadcastId ? { broadcastId: req.query.broadcastId } : {}) }, gone);
      return { wasPendingVote };
    },
  }),
];
