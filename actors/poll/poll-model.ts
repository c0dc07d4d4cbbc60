/**
 * Polls: the stored shape, the limits, and the rules for a new poll. Shared by the poll actor
 * and by comment creation, which writes a new poll in the same durable batch as its comment.
 */
import { hash } from 'node:crypto';
import { ApiError } from '../../engine/errors.js';
import type { CollectionSpec, Doc } from '../../storage/store.js';

export const POLL_COLLECTIONS = { polls: 'polls', pollVotes: 'pollVotes' } as const;

/**
 * Polls are keyed by their comment's id. Votes have global ids of their own and are loaded
 * by poll; the poll actor is the only writer of both, so "one vote per voter" needs no
 * unique index (it would cost a query per batch on MongoDB).
 */
export const pollCollections: readonly CollectionSpec[] = [
  { name: POLL_COLLECTIONS.polls, indexes: [{ name: 'by_page', fields: ['tenantId', 'urlId'] }] },
  { name: POLL_COLLECTIONS.pollVotes, indexes: [{ name: 'by_poll', fields: ['tenantId', 'commentId'] }] },
];

export const POLL_LIMITS = { questionMax: 200, optionsMin: 2, optionsMax: 10, labelMax: 100 } as const;

/** Who may read individual votes: 0 nobody (anonymous, the default), 1 admins and moderators, 2 everyone. */
export const POLL_PRIVACY = { anonymous: 0, adminsAndModerators: 1, everyone: 2 } as const;
export type PollPrivacy = (typeof POLL_PRIVACY)[keyof typeof POLL_PRIVACY];

export interface PollOption {
  readonly id: string;
  readonly label: string;
  readonly votes: number;
}

export interface PollDoc extends Doc {
  tenantId: string;
  commentId: string;
  urlId: string;
  question: string;
  /** In display order. */
  options: PollOption[];
  totalVotes: number;
  /** ISO date-time, or null for no closing time. */
  closesAt: string | null;
  privacy: PollPrivacy;
  requireVoteToSeeResults: boolean;
  createdAt: string;
  updatedAt: string;
  /** Bumped when all votes are replaced; votes of an older generation no longer count. */
  generation: number;
  /**
   * Key of the keyed hash that stands for voters' addresses in this poll's votes. Made with
   * the first vote that gives an address, so that `createPoll` stays a pure function.
   */
  ipKey?: string;
}

/** One voter's vote in one poll. A voter has at most one; moving it rewrites `optionId`. */
export interface PollVoteDoc extends Doc {
  tenantId: string;
  commentId: string;
  urlId: string;
  /** `userId` for a logged-in voter, `anonUserId` otherwise. */
  voterId: string;
  optionId: string;
  userId: string | null;
  anonUserId: string | null;
  /** Keyed hash (see `PollDoc.ipKey`) of the address the caller gave, never the address itself. */
  ip: string | null;
  createdAt: string;
  updatedAt: string;
  /** The poll generation the vote was cast in. */
  generation: number;
}

/** The API shape of a vote. */
export type PollVoteView = {
  id: string;
  tenantId: string;
  commentId: string;
  urlId: string;
  voterId: string;
  optionId: string;
  userId: string | null;
  anonUserId: string | null;
  ip: string | null;
  createdAt: string;
  updatedAt: string;
};

export function pollVoteView(doc: PollVoteDoc): PollVoteView {
  return {
    id: doc._id,
    tenantId: doc.tenantId,
    commentId: doc.commentId,
    urlId: doc.urlId,
    voterId: doc.voterId,
    optionId: doc.optionId,
    userId: doc.userId,
    anonUserId: doc.anonUserId,
    ip: doc.ip,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

/**
 * What an unauthenticated reader of an everyone-poll sees of a vote: who (a logged-in user's
 * id) voted for what. An anonymous voter's `anonUserId` identifies their session, and the
 * address hash is for operators, so neither is shown.
 */
export type PublicPollVoteView = {
  id: string;
  commentId: string;
  urlId: string;
  voterId: string | null;
  optionId: string;
  userId: string | null;
  createdAt: string;
  updatedAt: string;
};

export function publicPollVoteView(doc: PollVoteDoc): PublicPollVoteView {
  return {
    id: doc._id,
    commentId: doc.commentId,
    urlId: doc.urlId,
    voterId: doc.userId,
    optionId: doc.optionId,
    userId: doc.userId,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

export interface PollOptionInput {
  id?: string;
  label: string;
}

export interface PollInput {
  question: string;
  options: PollOptionInput[];
  closesAt?: string | null;
  privacy?: PollPrivacy;
  requireVoteToSeeResults?: boolean;
}

/** Body schema of a full poll (PUT, and the `poll` field of a new comment). */
export const POLL_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    question: { type: 'string', minLength: 1, maxLength: POLL_LIMITS.questionMax },
    options: {
      type: 'array',
      minItems: POLL_LIMITS.optionsMin,
      maxItems: POLL_LIMITS.optionsMax,
      items: {
        type: 'object',
        properties: {
          id: { type: 'string', minLength: 1, maxLength: 64 },
          label: { type: 'string', minLength: 1, maxLength: POLL_LIMITS.labelMax },
        },
        required: ['label'],
      },
    },
    closesAt: { type: ['string', 'null'], format: 'date-time' },
    privacy: { type: 'integer', enum: [0, 1, 2] },
    requireVoteToSeeResults: { type: 'boolean' },
  },
  required: ['question', 'options'],
} as const;

/** The API shape of a poll. */
export type PollView = {
  question: string;
  options: { id: string; label: string; votes: number }[];
  totalVotes: number;
  closesAt: string | null;
  privacy: PollPrivacy;
  requireVoteToSeeResults: boolean;
};

export function pollView(doc: PollDoc): PollView {
  return {
    question: doc.question,
    options: doc.options.map((o) => ({ id: o.id, label: o.label, votes: o.votes })),
    totalVotes: doc.totalVotes,
    closesAt: doc.closesAt,
    privacy: doc.privacy,
    requireVoteToSeeResults: doc.requireVoteToSeeResults,
  };
}

/** Refuses a question or label that is only white space (the schema only counts characters). */
export function assertText(what: string, text: string): void {
  if (text.trim().length === 0) throw new ApiError('poll-invalid', `The ${what} must not be blank.`);
}

/** Refuses labels that repeat, ignoring case, and blank labels. */
export function assertUniqueLabels(labels: readonly string[]): void {
  const seen = new Set<string>();
  for (const label of labels) {
    assertText('option label', label);
    const key = label.trim().toLocaleLowerCase();
    if (seen.has(key)) throw new ApiError('poll-invalid', `The option label "${label}" appears twice (labels are unique ignoring case).`);
    seen.add(key);
  }
}

/**
 * A poll for a comment that has none: options get fresh ids (none may be given), labels must be
 * unique ignoring case, and `closesAt` must lie in the future.
 */
export function createPoll(
  input: PollInput,
  at: { tenantId: string; commentId: string; urlId: string; nowMs: number; newOptionId: () => string },
): PollDoc {
  if (input.options.some((o) => o.id !== undefined)) {
    throw new ApiError('poll-invalid', 'A new poll takes options without ids; ids are assigned by the server.');
  }
  assertText('question', input.question);
  assertUniqueLabels(input.options.map((o) => o.label));
  const closesAt = input.closesAt ?? null;
  if (closesAt !== null && Date.parse(closesAt) <= at.nowMs) {
    throw new ApiError('poll-invalid', 'closesAt must be in the future when a poll is created.');
  }
  const now = new Date(at.nowMs).toISOString();
  return {
    _id: at.commentId,
    tenantId: at.tenantId,
    commentId: at.commentId,
    urlId: at.urlId,
    question: input.question,
    options: input.options.map((o) => ({ id: at.newOptionId(), label: o.label, votes: 0 })),
    totalVotes: 0,
    closesAt,
    privacy: input.privacy ?? POLL_PRIVACY.anonymous,
    requireVoteToSeeResults: input.requireVoteToSeeResults ?? false,
    createdAt: now,
    updatedAt: now,
    generation: 0,
  };
}

/**
 * The keyed hash stored instead of a voter's address: SHA-256 over a secret key of the poll and
 * the address. Keyed per poll, so votes from one address can be told apart within the poll, but
 * the address cannot be recovered by hashing every IPv4 address, and hashes do not link voters
 * across polls. (A one-shot hash rather than an HMAC: nothing is ever verified against it, and
 * it is four times cheaper on the vote path.)
 */
export function hashAddress(key: string, ip: string): string {
  return hash('sha256', `${key}\u0000${ip}`, 'hex').slice(0, 32);
}
