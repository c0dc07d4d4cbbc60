/**
 * The live events a page publishes (documented in docs/live-events.md). Built here so that
 * every event of a type has the same shape.
 */
import { clock } from '../../engine/clock.js';
import { newId } from '../../engine/ids.js';
import { LIVE_EVENT_TYPES, type LiveEvent, type LiveEventType } from '../live/live-events.js';

function base(type: LiveEventType): { type: LiveEventType; timestamp: number; ts: number; broadcastId: string } {
  const now = clock.now();
  return { type, timestamp: now, ts: now, broadcastId: newId(now) };
}

/** Live event types about one comment. */
export type CommentEventType = 'new-comment' | 'updated-comment' | 'deleted-comment';

/** A comment appeared, changed, or left readers' view (deleted, moved away, or hidden by flags). */
export function commentEvent(type: CommentEventType, comment: Record<string, unknown>): LiveEvent {
  return { ...base(type), comment };
}

/** A comment was locked (`isClosed` true) or unlocked. */
export function threadStateEvent(comment: Record<string, unknown>, locked: boolean): LiveEvent {
  return { ...base(LIVE_EVENT_TYPES.threadStateChange), comment, isClosed: locked };
}

/** A comment's vote counts, as vote events carry them. */
export interface VoteCounts {
  readonly commentId: string;
  readonly votes: number;
  readonly votesUp: number;
  readonly votesDown: number;
}

/** A vote was applied or removed; `counts` are the comment's counts after it. */
export function voteEvent(type: 'new-vote' | 'deleted-vote', vote: Record<string, unknown>, counts: VoteCounts): LiveEvent {
  const now = clock.now();
  return { type, timestamp: now, ts: now, broadcastId: newId(now), vote, counts };
}

/** What a `page-react` event says changed: the page's like count, or one reaction id's count. */
export type PageReactChange = { readonly kind: 'like'; readonly likeCount: number } | { readonly kind: 'react'; readonly reactId: string; readonly count: number };

/**
 * A like or reaction was added or removed: the new count of what changed only. An event never
 * carries the whole page's counts, which would grow every event (and the event log) with the
 * number of reaction ids.
 */
export function pageReactEvent(urlId: string, change: PageReactChange): LiveEvent {
  return { ...base(LIVE_EVENT_TYPES.pageReact), urlId, ...change };
}

/** The whole page's thread was closed (`isClosed` true: no new comments) or reopened by a moderator. */
export function pageThreadStateEvent(urlId: string, isClosed: boolean): LiveEvent {
  return { ...base(LIVE_EVENT_TYPES.threadStateChange), urlId, isClosed };
}
