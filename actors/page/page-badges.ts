/**
 * What a page does for badges (docs/badges.md): it writes a progress event for each change that
 * moves a user toward an automatic badge (a comment, an up-vote received, a reply received), in
 * its own batch with the change, and announces them once durable; it shows the badges a
 * user's badge actor tells it on that user's comments; and it gives new comments their
 * author's badges.
 */
import { clock } from '../../engine/clock.js';
import { newId } from '../../engine/ids.js';
import { log } from '../../engine/log.js';
import { BADGE_COLLECTIONS, BADGE_TYPES, type BadgeEventDoc, badgeUserActorId } from '../badge/badge-model.js';
import { BadgeUserKind } from '../badge/protocol.js';
import { LIVE_EVENT_TYPES } from '../live/live-events.js';
import { changedComment, type CommentDoc, isVisible } from './comment-doc.js';
import { commentEvent } from './page-events.js';
import { type PageHost, saveComment } from './page-state.js';
import { isApplied, type VoteDoc } from './vote-doc.js';

/** Queues one progress event of `userId` in the page's batch, announced once durable. */
export function queueBadgeEvent(host: PageHost, userId: string, type: number, delta: number, commentId: string): void {
  const at = clock.now();
  const doc: BadgeEventDoc = { _id: newId(at), tenantId: host.state.tenantId, userId, type, delta, commentId, at };
  host.insert(BADGE_COLLECTIONS.events, doc);
  host.announceBadges([doc]);
}

/** A new visible comment: one more comment for its author, one more reply for its parent's (another user). */
export function badgeEventsOfComment(host: PageHost, doc: CommentDoc, parentUserId: string | null): void {
  if (!isVisible(doc) || doc.userId === null) return;
  queueBadgeEvent(host, doc.userId, BADGE_TYPES.commentCount, 1, doc._id);
  if (parentUserId !== null && parentUserId !== doc.userId) queueBadgeEvent(host, parentUserId, BADGE_TYPES.commentReplies, 1, doc._id);
}

/** An applied up-vote added (`sign` 1) or taken back (-1): the comment's author's count of up-votes received (not their own). */
export function badgeEventOfVote(host: PageHost, comment: CommentDoc, vote: VoteDoc, sign: 1 | -1): void {
  if (comment.userId === null || vote.direction <= 0 || !isApplied(vote) || vote.userId === comment.userId) return;
  queueBadgeEvent(host, comment.userId, BADGE_TYPES.commentUpVotes, sign, comment._id);
}

/** The badges a new comment of `userId` shows; none if the badge actor cannot answer (the comment is not refused for it). */
export async function badgesOfAuthor(host: PageHost, userId: string | null): Promise<unknown[] | null> {
  if (userId === null) return null;
  try {
    const badges = await host.system.ask(BadgeUserKind, badgeUserActorId(host.state.tenantId, userId), 'displayed', { urlId: host.state.urlId });
    return badges.length === 0 ? null : badges;
  } catch (err) {
    log.warn('comment-badges-unavailable', { tenantId: host.state.tenantId, err });
    return null;
  }
}

/**
 * `setUserBadges`: the user's comments on this page show `badges`; readers see each visible
 * one change (`updated-comment`), then one `update-badges` event with the ids of the comments.
 */
export function setUserBadges(host: PageHost, userId: string, badges: readonly Record<string, unknown>[]): null {
  const { state } = host;
  const value = badges.length === 0 ? null : [...badges];
  const changed: string[] = [];
  // Only the user's comments, from the page's author index.
  for (const id of [...state.comments.index.byAuthor('userId', userId)]) {
    const doc = state.comments.get(id)!;
    if (doc.userId !== userId || JSON.stringify(doc.badges) === JSON.stringify(value)) continue;
    const next = changedComment(doc, { badges: value });
    saveComment(host, next);
    if (isVisible(next)) {
      changed.push(next._id);
      host.publish(commentEvent('updated-comment', state.view(next)));
    }
  }
  if (changed.length > 0) {
    const now = clock.now();
    host.publish({ type: LIVE_EVENT_TYPES.updateBadges, timestamp: now, ts: now, userId, badges: value ?? [], commentIds: changed });
  }
  return null;
}
