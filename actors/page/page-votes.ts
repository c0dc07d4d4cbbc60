/**
 * Votes on a page's comments: one per voter per comment, a vote the other way replacing it.
 * Counts change in memory at once and reach storage within `COUNTS_FLUSH_MS`; the votes are
 * the durable truth (see pending-counts.ts).
 */
import { clock, isoTime } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { newId } from '../../engine/ids.js';
import { type CommentDoc, changedComment, COMMENTS, copyComment } from './comment-doc.js';
import { voteEvent } from './page-events.js';
import type { PageHost } from './page-state.js';
import { PENDING_COUNTS, type PendingCountsDoc } from './pending-counts.js';
import { actorKey, PageKind, type PageProtocol, type VoteLists } from './protocol.js';
import { badgeEventOfVote } from './page-badges.js';
import { withAdjustment } from './page-vote-adjust.js';
import { isApplied, publicVote, pubSubVote, VOTE_KINDS, type VoteDoc, VOTES } from './vote-doc.js';

/**
 * How long a comment's stored vote counts may lag its votes. The votes are the durable truth
 * (counts are recomputed from them at activation), so a hot comment's document is rewritten
 * at most this often instead of in every batch. Meanwhile the page is marked in storage (see
 * pending-counts.ts), so that reads from storage can have the counts written first.
 */
export const COUNTS_FLUSH_MS = 250;

/** Records the voter's vote on the comment, replacing one the other way; refuses a repeat. */
export function castVote(host: PageHost, current: CommentDoc, { commentId, by, direction, kind }: PageProtocol['vote']['in']): PageProtocol['vote']['out'] {
  const { state } = host;
  const voterKey = actorKey(by);
  const previous = state.votes.of(commentId, voterKey);
  if (previous !== undefined && previous.direction === direction) {
    throw new ApiError('duplicate', `This user already voted ${direction > 0 ? 'up' : 'down'} on this comment.`);
  }
  let doc = current;
  if (previous !== undefined) {
    host.remove(VOTES, previous._id);
    state.votes.remove(previous);
    doc = withVote(doc, previous, -1);
    badgeEventOfVote(host, doc, previous, -1);
    host.publish(voteEvent('deleted-vote', pubSubVote(previous), countsOf(doc)));
  }
  const now = clock.now();
  const vote: VoteDoc = {
    _id: newId(now),
    tenantId: state.tenantId,
    urlId: state.urlId,
    commentId,
    userId: by.userId,
    anonUserId: by.userId ? null : by.anonUserId,
    voterKey,
    direction,
    kind: kind ?? VOTE_KINDS.authorized,
    createdAt: isoTime(now),
  };
  host.put(VOTES, vote);
  state.votes.add(vote);
  doc = withVote(doc, vote, 1);
  badgeEventOfVote(host, doc, vote, 1);
  countVote(host, doc);
  host.publish(voteEvent('new-vote', pubSubVote(vote), countsOf(doc)));
  return { voteId: vote._id };
}

/** Removes a vote the page holds; its comment's counts follow. */
export function removeVote(host: PageHost, vote: VoteDoc): PageProtocol['deleteVote']['out'] {
  const { state } = host;
  const current = state.comments.get(vote.commentId);
  host.remove(VOTES, vote._id);
  state.votes.remove(vote);
  if (current !== undefined) {
    const doc = withVote(current, vote, -1);
    badgeEventOfVote(host, doc, vote, -1);
    countVote(host, doc);
    host.publish(voteEvent('deleted-vote', pubSubVote(vote), countsOf(doc)));
  }
  return { wasPendingVote: !isApplied(vote) };
}

/** The page's votes in the API's three lists, all or one voter's, oldest first. */
export function listVotes(host: PageHost, voterKey: string | null): VoteLists {
  const lists: VoteLists = { appliedAuthorizedVotes: [], appliedAnonymousVotes: [], pendingVotes: [] };
  const votes = [...host.state.votes.values()].filter((v) => voterKey === null || v.voterKey === voterKey);
  votes.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a._id < b._id ? -1 : 1));
  for (const vote of votes) {
    const list = vote.kind === VOTE_KINDS.pending ? lists.pendingVotes : vote.kind === VOTE_KINDS.anonymous ? lists.appliedAnonymousVotes : lists.appliedAuthorizedVotes;
    list.push(publicVote(vote));
  }
  return lists;
}

/** Writes the counts that lag their votes, and removes the page's pending-counts marker. */
export function flushCounts(host: PageHost): null {
  const { state } = host;
  clearTimeout(state.flushTimer);
  state.flushTimer = undefined;
  for (const id of state.countsDirty) {
    const doc = state.comments.get(id);
    if (doc !== undefined) host.put(COMMENTS, doc);
  }
  state.countsDirty.clear();
  host.remove(PENDING_COUNTS, host.actorId);
  return null;
}

/** Makes every comment's counts those of its applied votes (a crash may have left them behind). */
export function recount(host: PageHost): void {
  const { state } = host;
  const totals = state.votes.totals();
  for (const doc of [...state.comments.values()]) {
    const t = withAdjustment(totals.get(doc._id) ?? { votes: 0, votesUp: 0, votesDown: 0 }, doc);
    if (doc.votes === t.votes && doc.votesUp === t.votesUp && doc.votesDown === t.votesDown) continue;
    state.comments.set(doc._id, changedComment(doc, t));
    state.countsDirty.add(doc._id);
  }
  scheduleFlush(host);
}

/** New vote counts: in memory at once, in storage within `COUNTS_FLUSH_MS` (see there). */
function countVote(host: PageHost, doc: CommentDoc): void {
  const { state } = host;
  state.comments.set(doc._id, doc);
  state.touch(doc._id);
  // Written with the vote, so that it is durable before the count lags: it names every comment
  // whose stored counts lag, which lets a restart trust the others (page-head.ts).
  if (!state.countsDirty.has(doc._id)) {
    state.countsDirty.add(doc._id);
    markPending(host);
  }
  scheduleFlush(host);
}

/** Stores the page's pending-counts marker, naming the comments whose stored counts lag. */
function markPending(host: PageHost): void {
  const { state } = host;
  host.put(PENDING_COUNTS, { _id: host.actorId, tenantId: state.tenantId, urlId: state.urlId, commentIds: [...state.countsDirty] } satisfies PendingCountsDoc);
}

function scheduleFlush(host: PageHost): void {
  const { state } = host;
  if (state.flushTimer !== undefined || state.countsDirty.size === 0) return;
  state.flushTimer = setTimeout(() => host.system.tell(PageKind, host.actorId, 'flushCounts', null), COUNTS_FLUSH_MS);
  state.flushTimer.unref();
}

/** The comment with one vote added (`sign` 1) or taken back (-1). Pending votes do not count. */
function withVote(doc: CommentDoc, vote: VoteDoc, sign: 1 | -1): CommentDoc {
  if (!isApplied(vote)) return doc;
  const up = vote.direction > 0 ? sign : 0;
  const down = vote.direction < 0 ? sign : 0;
  const next = copyComment(doc);
  next.votes = doc.votes + sign * vote.direction;
  next.votesUp = doc.votesUp + up;
  next.votesDown = doc.votesDown + down;
  return next;
}

function countsOf(doc: CommentDoc): { commentId: string; votes: number; votesUp: number; votesDown: number } {
  return { commentId: doc._id, votes: doc.votes, votesUp: doc.votesUp, votesDown: doc.votesDown };
}
