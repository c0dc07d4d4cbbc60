import { limitKey, normalizeAddress } from '../client-address.js';
import { PollKind, pollActorId, PollVoteLocatorKind, pollVoteLocatorId } from '../../actors/poll/protocol.js';
import { UserKind, userActorId } from '../../actors/user/protocol.js';
import { ApiError } from '../../engine/errors.js';
import type { AppServices } from '../services.js';
import { perObjects, RawJson, route, type Schema } from '../route.js';
import { COMMENT_ID } from './polls.js';

/** Most votes one list call returns. */
export const POLL_VOTES_PAGE_SIZE = 1000;

const VOTER_ID: Schema = { type: 'string', minLength: 1, maxLength: 256 };
const OPTION_ID: Schema = { type: 'string', minLength: 1, maxLength: 64 };
const BY_ID: Schema = { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 64 } }, required: ['id'] };

interface VoteBody {
  commentId: string;
  optionId: string;
  userId?: string;
  anonUserId?: string;
  ip?: string;
}

interface ListQuery {
  commentId: string;
  voterId?: string;
  optionId?: string;
  skip?: number;
}

const LIST_QUERY: Schema = {
  type: 'object',
  properties: { commentId: COMMENT_ID, voterId: VOTER_ID, optionId: OPTION_ID, skip: { type: 'integer', minimum: 0 } },
  required: ['commentId'],
};

/** The comment id of a vote's poll, or `not-found` (also for another tenant's vote). */
async function pollOfVote(app: AppServices, tenantId: string, voteId: string): Promise<string> {
  const commentId = await app.system.ask(PollVoteLocatorKind, pollVoteLocatorId(tenantId, voteId), 'locate', null);
  if (commentId === null) throw new ApiError('not-found', 'No poll vote has this id.');
  return commentId;
}

/** `/api/v1/poll-votes`, and the public list of an everyone-poll's votes. Rules in docs/polls.md. */
export const pollVoteRoutes = [
  route<Record<string, unknown>, VoteBody>({
    method: 'POST',
    path: '/api/v1/poll-votes',
    access: 'tenant',
    body: {
      type: 'object',
      properties: { commentId: COMMENT_ID, optionId: OPTION_ID, userId: VOTER_ID, anonUserId: VOTER_ID, ip: { type: 'string', maxLength: 64 } },
      required: ['commentId', 'optionId'],
    },
    missingCodes: { commentId: 'missing-comment-id' },
    handle: async (req) => {
      const { app, tenantId, body } = req;
      if (body.userId === undefined && body.anonUserId === undefined) throw new ApiError('missing-user-id');
      // One address has many spellings; the limit and the stored hash must see one.
      const ip = body.ip === undefined ? null : normalizeAddress(body.ip);
      if (ip === undefined) throw new ApiError('invalid-param', 'Field "ip" in the body must be an IPv4 or IPv6 address.');
      if (body.userId !== undefined) {
        // Outside the poll's mailbox: a user's first lookup may wait on storage.
        const user = await app.system.ask(UserKind, userActorId(tenantId, body.userId), 'get', null);
        if (user === null) throw new ApiError('invalid-user', `This tenant has no user with id "${body.userId}".`);
      }
      const { pollVote, poll } = await app.system.ask(PollKind, pollActorId(tenantId, body.commentId), 'vote', {
        optionId: body.optionId,
        userId: body.userId ?? null,
        anonUserId: body.anonUserId ?? null,
        ip,
        rateKey: limitKey(ip ?? req.ip),
      });
      // The hottest route of polls: serialised here in one go rather than spread and re-read.
      return new RawJson(`{"status":"success","pollVote":${JSON.stringify(pollVote)},"poll":${JSON.stringify(poll)}}`);
    },
  }),
  route<ListQuery, undefined, { pollVotes: unknown[] }>({
    method: 'GET',
    path: '/api/v1/poll-votes',
    access: 'tenant',
    query: LIST_QUERY,
    missingCodes: { commentId: 'missing-comment-id' },
    credits: (_req, result) => perObjects(result.pollVotes.length, 100),
    handle: async ({ app, tenantId, query }) => ({
      pollVotes: await app.system.ask(PollKind, pollActorId(tenantId, query.commentId), 'listVotes', {
        ...(query.voterId !== undefined ? { voterId: query.voterId } : {}),
        ...(query.optionId !== undefined ? { optionId: query.optionId } : {}),
        skip: query.skip ?? 0,
        limit: POLL_VOTES_PAGE_SIZE,
        reader: 'api',
      }),
    }),
  }),
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/api/v1/poll-votes/:id',
    access: 'tenant',
    params: BY_ID,
    handle: async ({ app, tenantId, params }) => {
      const commentId = await pollOfVote(app, tenantId, params['id']!);
      return { pollVote: await app.system.ask(PollKind, pollActorId(tenantId, commentId), 'getVote', { voteId: params['id']! }) };
    },
  }),
  route<Record<string, unknown>, undefined>({
    method: 'DELETE',
    path: '/api/v1/poll-votes/:id',
    access: 'tenant',
    params: BY_ID,
    handle: async ({ app, tenantId, params }) => {
      const commentId = await pollOfVote(app, tenantId, params['id']!);
      return { poll: await app.system.ask(PollKind, pollActorId(tenantId, commentId), 'retractVote', { voteId: params['id']! }) };
    },
  }),
  route<Omit<ListQuery, 'voterId'>, undefined, { pollVotes: unknown[] }>({
    method: 'GET',
    path: '/poll-votes/v1/:tenantId',
    access: 'public',
    params: { type: 'object', properties: { tenantId: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } }, required: ['tenantId'] },
    query: {
      type: 'object',
      properties: { commentId: COMMENT_ID, optionId: OPTION_ID, skip: { type: 'integer', minimum: 0 } },
      required: ['commentId'],
    },
    missingCodes: { commentId: 'missing-comment-id' },
    handle: async ({ app, params, query }) => ({
      pollVotes: await app.system.ask(PollKind, pollActorId(params['tenantId']!, query.commentId), 'listVotes', {
        ...(query.optionId !== undefined ? { optionId: query.optionId } : {}),
        skip: query.skip ?? 0,
        limit: POLL_VOTES_PAGE_SIZE,
        reader: 'public',
      }),
    }),
  }),
];
