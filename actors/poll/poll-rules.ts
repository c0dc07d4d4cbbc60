/**
 * The rules of polls and poll votes as pure functions: each takes the current state and a
 * request and returns the next state (new objects, never mutated ones) or throws the
 * `ApiError` that refuses it. The poll actor calls them and writes what they return.
 */
import { isoTime } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import {
  assertText,
  assertUniqueLabels,
  type PollDoc,
  type PollInput,
  type PollOption,
  type PollPrivacy,
  type PollVoteDoc,
} from './poll-model.js';

/** A partial change of a poll (PATCH): options only relabel, by id. */
export interface PollPatch {
  question?: string;
  options?: { id: string; label: string }[];
  closesAt?: string | null;
  privacy?: PollPrivacy;
  requireVoteToSeeResults?: boolean;
}

/** A full replacement and what it does to the votes. */
export interface Replacement {
  readonly poll: PollDoc;
  /** Every vote is deleted (the poll's generation moved on). */
  readonly dropAllVotes: boolean;
  /** Options removed with their votes (empty when `dropAllVotes`). */
  readonly removedOptionIds: ReadonlySet<string>;
}

/** A vote request that passed the checks that need no poll state. */
export interface VoteRequest {
  readonly voteId: string;
  readonly voterId: string;
  readonly optionId: string;
  readonly userId: string | null;
  readonly anonUserId: string | null;
  readonly ip: string | null;
}

/** The outcome of a vote: the voter's vote and the poll, and whether anything changed. */
export interface VoteOutcome {
  readonly poll: PollDoc;
  readonly vote: PollVoteDoc;
  readonly changed: boolean;
}

/** True once `closesAt` has passed. */
export function isClosed(poll: PollDoc, nowMs: number): boolean {
  return poll.closesAt !== null && Date.parse(poll.closesAt) <= nowMs;
}

/**
 * Privacy can be narrowed (everyone → admins and moderators → anonymous) at any time, but
 * widened only while no vote would be exposed by it: votes were cast under the promise of the
 * narrower privacy.
 */
export function assertPrivacyChange(from: PollPrivacy, to: PollPrivacy, votesAfter: number): void {
  if (to > from && votesAfter > 0) {
    throw new ApiError('poll-privacy-locked', `The poll has ${votesAfter} vote(s): its privacy can be narrowed (to a lower value) but not widened.`);
  }
}

function duplicateIds(ids: readonly string[]): string | undefined {
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) return id;
    seen.add(id);
  }
  return undefined;
}

function total(options: readonly PollOption[]): number {
  return options.reduce((sum, o) => sum + o.votes, 0);
}

/**
 * Replaces a poll in full (PUT on a comment that has one). Options given with an `id` keep
 * that option and its votes, in the order given; options without one are new. Options left
 * out are removed with their votes. When no option carries an id and the poll has votes, the
 * caller must say `replaceVotes`, and every vote is deleted. Omitted settings go back to their
 * defaults.
 */
export function replacePoll(
  current: PollDoc,
  input: PollInput,
  at: { replaceVotes: boolean; nowMs: number; newOptionId: () => string },
): Replacement {
  assertText('question', input.question);
  const givenIds = input.options.flatMap((o) => (o.id === undefined ? [] : [o.id]));
  const repeated = duplicateIds(givenIds);
  if (repeated !== undefined) throw new ApiError('poll-invalid', `The option id "${repeated}" appears twice.`);
  const existing = new Map(current.options.map((o) => [o.id, o]));
  const unknown = givenIds.find((id) => !existing.has(id));
  if (unknown !== undefined) throw new ApiError('poll-invalid', `The poll has no option with id "${unknown}".`);
  assertUniqueLabels(input.options.map((o) => o.label));

  const dropAllVotes = givenIds.length === 0 && current.totalVotes > 0;
  if (dropAllVotes && !at.replaceVotes) {
    throw new ApiError(
      'replace-votes-required',
      `The poll has ${current.totalVotes} vote(s) and no option keeps its id: send replaceVotes=true to replace the options and delete every vote.`,
    );
  }
  const options: PollOption[] = input.options.map((o) =>
    o.id === undefined ? { id: at.newOptionId(), label: o.label, votes: 0 } : { id: o.id, label: o.label, votes: existing.get(o.id)!.votes },
  );
  const kept = new Set(givenIds);
  const removedOptionIds = new Set(dropAllVotes ? [] : current.options.filter((o) => !kept.has(o.id)).map((o) => o.id));
  const totalVotes = total(options);
  const privacy = input.privacy ?? 0;
  assertPrivacyChange(current.privacy, privacy, totalVotes);

  const poll: PollDoc = {
    ...current,
    question: input.question,
    options,
    totalVotes,
    closesAt: input.closesAt ?? null,
    privacy,
    requireVoteToSeeResults: input.requireVoteToSeeResults ?? false,
    updatedAt: new Date(at.nowMs).toISOString(),
    generation: dropAllVotes ? current.generation + 1 : current.generation,
  };
  return { poll, dropAllVotes, removedOptionIds };
}

/**
 * Changes some fields of a poll (PATCH). Options are relabelled by id and keep their votes and
 * positions; `closesAt` may lie in the past (the poll closes) or be null (it reopens).
 */
export function patchPoll(current: PollDoc, patch: PollPatch, nowMs: number): PollDoc {
  if (patch.question !== undefined) assertText('question', patch.question);
  let options = current.options;
  if (patch.options !== undefined) {
    const repeated = duplicateIds(patch.options.map((o) => o.id));
    if (repeated !== undefined) throw new ApiError('poll-invalid', `The option id "${repeated}" appears twice.`);
    const labels = new Map(patch.options.map((o) => [o.id, o.label]));
    const unknown = patch.options.find((o) => !current.options.some((c) => c.id === o.id));
    if (unknown !== undefined) throw new ApiError('poll-invalid', `The poll has no option with id "${unknown.id}".`);
    options = current.options.map((o) => (labels.has(o.id) ? { ...o, label: labels.get(o.id)! } : o));
    assertUniqueLabels(options.map((o) => o.label));
  }
  const privacy = patch.privacy ?? current.privacy;
  assertPrivacyChange(current.privacy, privacy, current.totalVotes);
  return {
    ...current,
    question: patch.question ?? current.question,
    options,
    closesAt: patch.closesAt !== undefined ? patch.closesAt : current.closesAt,
    privacy,
    requireVoteToSeeResults: patch.requireVoteToSeeResults ?? current.requireVoteToSeeResults,
    updatedAt: new Date(nowMs).toISOString(),
  };
}

function withCount(poll: PollDoc, optionId: string, delta: number): PollOption[] {
  return poll.options.map((o) => (o.id === optionId ? { ...o, votes: o.votes + delta } : o));
}

/** The options with one vote moved from one option to another (one pass: this is the hot path). */
function withMove(poll: PollDoc, from: string, to: string): PollOption[] {
  return poll.options.map((o) => (o.id === from ? { ...o, votes: o.votes - 1 } : o.id === to ? { ...o, votes: o.votes + 1 } : o));
}

/** Refuses a vote for an option the poll does not have. */
export function assertOption(poll: PollDoc, optionId: string): void {
  if (!poll.options.some((o) => o.id === optionId)) {
    throw new ApiError('poll-invalid-option', `The poll has no option with id "${optionId}".`);
  }
}

/**
 * Records the voter's vote, or moves it to another option, or (same option again) changes
 * nothing. A vote that moves keeps its id and `createdAt`; `updatedAt` is set.
 */
export function castVote(
  poll: PollDoc,
  existing: PollVoteDoc | undefined,
  request: VoteRequest,
  nowMs: number,
): VoteOutcome {
  assertOption(poll, request.optionId);
  if (existing !== undefined && existing.optionId === request.optionId) return { poll, vote: existing, changed: false };
  const now = isoTime(nowMs);
  if (existing !== undefined) {
    const moved = withMove(poll, existing.optionId, request.optionId);
    const vote: PollVoteDoc = {
      ...existing,
      optionId: request.optionId,
      userId: request.userId ?? existing.userId,
      anonUserId: request.anonUserId ?? existing.anonUserId,
      ip: request.ip ?? existing.ip,
      updatedAt: now,
    };
    return { poll: { ...poll, options: moved }, vote, changed: true };
  }
  const vote: PollVoteDoc = {
    _id: request.voteId,
    tenantId: poll.tenantId,
    commentId: poll.commentId,
    urlId: poll.urlId,
    voterId: request.voterId,
    optionId: request.optionId,
    userId: request.userId,
    anonUserId: request.anonUserId,
    ip: request.ip,
    createdAt: now,
    updatedAt: now,
    generation: poll.generation,
  };
  return { poll: { ...poll, options: withCount(poll, request.optionId, 1), totalVotes: poll.totalVotes + 1 }, vote, changed: true };
}

/** The poll once `vote` is retracted: its option gives the vote back. */
export function retractVote(poll: PollDoc, vote: PollVoteDoc): PollDoc {
  return { ...poll, options: withCount(poll, vote.optionId, -1), totalVotes: poll.totalVotes - 1 };
}

/** Whether a stored vote still counts in `poll`: same generation, and its option still there. */
export function voteCounts(poll: PollDoc, vote: PollVoteDoc): boolean {
  return vote.generation === poll.generation && poll.options.some((o) => o.id === vote.optionId);
}

/**
 * The poll with its counts taken from its votes. Counts and votes are written in one atomic
 * batch, so they agree; this is what makes a disagreement (from an older version, or a bug)
 * heal itself on the next activation instead of living on.
 */
export function recount(poll: PollDoc, votes: Iterable<PollVoteDoc>): PollDoc {
  const counts = new Map(poll.options.map((o) => [o.id, 0]));
  let totalVotes = 0;
  for (const vote of votes) {
    counts.set(vote.optionId, (counts.get(vote.optionId) ?? 0) + 1);
    totalVotes++;
  }
  const options = poll.options.map((o) => (o.votes === counts.get(o.id) ? o : { ...o, votes: counts.get(o.id)! }));
  return options.every((o, i) => o === poll.options[i]) && totalVotes === poll.totalVotes ? poll : { ...poll, options, totalVotes };
}
