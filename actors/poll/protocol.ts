/**
 * How other actors and routes reach a poll actor (`poll:<tenantId>:<commentId>`), and the
 * small actor that finds the poll of a vote id (`poll-vote:<tenantId>:<voteId>`).
 *
 * Deadlock rule: the page actor may `ask` a poll actor; a poll actor only ever `tell`s the page
 * actor. Never the other way round. A poll actor asks the tenant actor (settings), which asks
 * nobody.
 */
import { defineKind } from '../../engine/actor.js';
import type { PollInput, PollView, PollVoteView, PublicPollVoteView } from './poll-model.js';
import type { PollPatch } from './poll-rules.js';

/** A vote as the route hands it over, after the checks that need no poll state. */
export interface VoteMessage {
  readonly optionId: string;
  /** A user of the tenant (already checked to exist), or null for an anonymous voter. */
  readonly userId: string | null;
  readonly anonUserId: string | null;
  /** The voter's address as the caller gave it (stored only as a keyed hash), or null. */
  readonly ip: string | null;
  /** The address anonymous votes are rate limited by: `ip`, else the request's own. */
  readonly rateKey: string;
}

/** Who reads votes: an API credential, or anyone (everyone-polls only). */
export type VoteReader = 'api' | 'public';

export interface VoteListQuery {
  readonly voterId?: string;
  readonly optionId?: string;
  readonly skip: number;
  readonly limit: number;
  readonly reader: VoteReader;
}

/** A widget reader as a voter: an SSO user, or an anonymous session's public id. */
export interface ReaderVoter {
  readonly userId: string | null;
  readonly anonUserId: string | null;
}

/** What a widget reader may know of a poll: the poll, their own choice, and whether it closed. */
export interface ReaderPoll {
  readonly poll: PollView;
  readonly optionId: string | null;
  readonly closed: boolean;
}

export type PollProtocol = {
  /**
   * From the page actor, when a comment that has a poll is locked or unlocked, moved to another
   * page, or deleted. Answered once the poll actor's state reflects it; a deleted comment's poll
   * and votes are removed durably before the answer.
   */
  commentChanged: { in: { isLocked: boolean; urlId: string; deleted: boolean }; out: null };
  /** The poll with its counts (`poll-not-found` without one). */
  get: { in: null; out: PollView };
  /** Attaches a poll, or replaces it in full (PUT). */
  put: { in: { input: PollInput; replaceVotes: boolean }; out: PollView };
  /** Changes some fields (PATCH). */
  patch: { in: PollPatch; out: PollView };
  /** Removes the poll and all its votes; the comment stays. */
  remove: { in: null; out: null };
  /** Records, moves or repeats a voter's vote. */
  vote: { in: VoteMessage; out: { pollVote: PollVoteView; poll: PollView } };
  /** Votes oldest first, filtered. */
  listVotes: { in: VoteListQuery; out: PollVoteView[] | PublicPollVoteView[] };
  getVote: { in: { voteId: string }; out: PollVoteView };
  /** Deletes one vote; its option gives the vote back. Answers the poll after it. */
  retractVote: { in: { voteId: string }; out: PollView };
  /** The reader's own vote with the poll (docs/polls.md, "Voting from the widget"). */
  readerVote: { in: ReaderVoter; out: ReaderPoll };
  /** Retracts the reader's own vote (`not-found` without one); answers the poll after it. */
  retractReaderVote: { in: ReaderVoter; out: ReaderPoll };
  /**
   * Sent by the poll actor to itself after a change: answered (and its live event published)
   * once everything written before it is durable, with the poll as it then stands, which the
   * actor then tells the page. One is in flight at a time, so a burst of votes costs one.
   */
  announce: {
    in: null;
    out: {
      /** Which activation answered: only that one may follow up (an older one was reset). */
      readonly activation: symbol;
      /** What to tell the page, or null when there is no page to tell. */
      readonly news: { readonly urlId: string; readonly poll: PollView | null } | null;
    };
  };
};

export const PollKind = defineKind<PollProtocol>('poll');

/** The id of a poll actor (its key without the `poll:` prefix). */
export function pollActorId(tenantId: string, commentId: string): string {
  return `${tenantId}:${commentId}`;
}

export type PollVoteLocatorProtocol = {
  /** The comment id of the vote's poll, or null when this tenant has no vote with this id. */
  locate: { in: null; out: string | null };
};

/**
 * Vote ids are global, and only the poll actor knows its votes: this kind maps a vote id to its
 * poll from the vote's durable document. The mapping never changes once a vote exists, so it
 * is kept; an id not found is looked up again next time (and another tenant's vote is, for
 * this tenant, not found).
 */
export const PollVoteLocatorKind = defineKind<PollVoteLocatorProtocol>('poll-vote');

/** The id of a vote locator actor. */
export function pollVoteLocatorId(tenantId: string, voteId: string): string {
  return `${tenantId}:${voteId}`;
}
