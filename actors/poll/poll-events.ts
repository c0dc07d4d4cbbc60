/**
 * The live event of a poll change (`poll-update`, documented in docs/polls.md), published on
 * the page's topic once the change is durable.
 */
import { LIVE_EVENT_TYPES, type LiveEvent } from '../live/live-events.js';
import { publicPoll } from '../live/public-projection.js';
import { type PollDoc, pollView } from './poll-model.js';

/**
 * The poll as every subscriber of the page may see it. A poll that requires a vote to see its
 * results goes out without counts (`resultsHidden: true`): the channel cannot tell voters from
 * the rest, and widgets fetch counts through the page once their reader has voted.
 */
export function livePoll(poll: PollDoc): Record<string, unknown> {
  return publicPoll(pollView(poll));
}

/** A `poll-update` event: the poll now, or `poll: null` once it was removed. */
export function pollUpdateEvent(commentId: string, urlId: string, poll: PollDoc | null, nowMs: number): LiveEvent {
  return {
    type: LIVE_EVENT_TYPES.pollUpdate,
    timestamp: nowMs,
    ts: nowMs,
    commentId,
    urlId,
    poll: poll === null ? null : livePoll(poll),
  } as LiveEvent;
}
