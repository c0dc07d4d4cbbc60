/**
 * Polls: the stored shape, the limits, and the rules for a new poll. Shared by the poll actor
 * and by comment creation, which writes a new poll in the same durable batch as its comment.
 */
import { ApiError } from '../../engine/errors.js';
import type { CollectionSpec, Doc } from '../../storage/store.js';

export const POLL_COLLECTIONS = { polls: 'polls' } as const;

/** Polls are keyed by their comment's id. */
export const pollCollections: readonly CollectionSpec[] = [
  { name: POLL_COLLECTIONS.polls, indexes: [{ name: 'by_page', fields: ['tenantId', 'urlId'] }] },
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

/** Refuses labels that repeat, ignoring case. */
export function assertUniqueLabels(labels: readonly string[]): void {
  const seen = new Set<string>();
  for (const label of labels) {
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
