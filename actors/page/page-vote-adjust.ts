/**
 * Votes a moderator adds or takes away by hand (`adjust-comment-votes`, docs/moderation.md).
 * The comment keeps the net adjustment (`voteAdjustment`), so that counts recomputed from the
 * votes at activation (page-votes.ts, `recount`) keep it: a positive net adds to `votesUp`, a
 * negative one to `votesDown`, and `votes` moves by the net either way.
 */
import { ApiError } from '../../engine/errors.js';
import { type CommentDoc, copyComment, isVisible } from './comment-doc.js';
import { commentEvent } from './page-events.js';
import { type PageHost, saveComment } from './page-state.js';

/** The counts a net adjustment adds. */
export type AdjustedCounts = {
  votes: number;
  votesUp: number;
  votesDown: number;
};

/** What a net adjustment adds to the counts of the votes. */
export function adjustmentCounts(net: number): AdjustedCounts {
  return { votes: net, votesUp: Math.max(net, 0), votesDown: Math.max(-net, 0) };
}

/** Counts of the votes with a comment's adjustment on top. */
export function withAdjustment(totals: AdjustedCounts, doc: CommentDoc): AdjustedCounts {
  const extra = adjustmentCounts(doc.voteAdjustment ?? 0);
  return { votes: totals.votes + extra.votes, votesUp: totals.votesUp + extra.votesUp, votesDown: totals.votesDown + extra.votesDown };
}

/** Adds `amount` votes (negative: takes them away) to the comment; durable with its next batch, live to viewers. */
export function adjustVotes(host: PageHost, current: CommentDoc, amount: number, isLive: boolean): { comment: Record<string, unknown>; votes: number } {
  if (current.isLocked) throw new ApiError('locked', 'The comment is locked: unlock it first, then adjust its votes.');
  const before = adjustmentCounts(current.voteAdjustment ?? 0);
  const net = (current.voteAdjustment ?? 0) + amount;
  const after = adjustmentCounts(net);
  const next = copyComment(current);
  next.voteAdjustment = net;
  next.votes = current.votes + after.votes - before.votes;
  next.votesUp = current.votesUp + after.votesUp - before.votesUp;
  next.votesDown = current.votesDown + after.votesDown - before.votesDown;
  saveComment(host, next);
  const view = host.state.view(next);
  if (isLive && isVisible(next)) host.publish(commentEvent('updated-comment', view));
  return { comment: view, votes: next.votes };
}
