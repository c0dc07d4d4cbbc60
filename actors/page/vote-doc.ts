/**
 * Votes on comments, owned by the page actor of the comment's page (they move with it).
 */
import type { Doc } from '../../storage/store.js';

/** Collection of votes. */
export const VOTES = 'votes';

/** +1 up, -1 down. */
export const VOTE_DIRECTION = { up: 1, down: -1 } as const;
/** `up` or `down`, as the API names directions. */
export type VoteDirectionName = keyof typeof VOTE_DIRECTION;
/** 1 or -1, as votes store directions. */
export type VoteDirection = (typeof VOTE_DIRECTION)[VoteDirectionName];

/**
 * The three kinds the API lists apart: authorized votes applied to the comment (every vote made
 * through the API with a key, anonymous ones included), authorized votes pending verification
 * (not applied), and anonymous votes applied (anonymous commenting in widgets).
 */
export const VOTE_KINDS = { authorized: 'authorized', pending: 'pending', anonymous: 'anonymous' } as const;
/** `authorized`, `pending` or `anonymous`. */
export type VoteKind = (typeof VOTE_KINDS)[keyof typeof VOTE_KINDS];

/** One vote of one voter on one comment. */
export interface VoteDoc extends Doc {
  tenantId: string;
  urlId: string;
  commentId: string;
  userId: string | null;
  anonUserId: string | null;
  /** `u:<userId>` or `a:<anonUserId>`: one vote per voter per comment. */
  voterKey: string;
  direction: VoteDirection;
  kind: VoteKind;
  /** ISO date-time. */
  createdAt: string;
}

/** Applied votes count toward the comment's `votes`, `votesUp` and `votesDown`. */
export function isApplied(vote: { readonly kind: VoteKind }): boolean {
  return vote.kind !== VOTE_KINDS.pending;
}

/** The API's `PublicVote`. */
export function publicVote(vote: VoteDoc): Record<string, unknown> {
  return {
    id: vote._id,
    urlId: vote.urlId,
    commentId: vote.commentId,
    userId: vote.userId ?? vote.anonUserId,
    direction: vote.direction === VOTE_DIRECTION.up ? 'up' : 'down',
    createdAt: vote.createdAt,
  };
}

/** The live events' `PubSubVote`. */
export function pubSubVote(vote: VoteDoc): Record<string, unknown> {
  return {
    _id: vote._id,
    tenantId: vote.tenantId,
    urlId: vote.urlId,
    urlIdRaw: vote.urlId,
    commentId: vote.commentId,
    userId: vote.userId ?? vote.anonUserId,
    direction: vote.direction,
    createdAt: Date.parse(vote.createdAt),
    verificationId: null,
  };
}
