/**
 * A widget reader's own vote in a poll (`/poll-votes/v1/:tenantId/mine`): read it, cast or move
 * it, take it back. No API key, no credits; the reader is who http/public/reader.ts resolves
 * (an SSO user, or the anonymous session, made at the first vote), and only that reader's vote
 * is ever reached. Counts of a poll that requires a vote to see them are answered only to a
 * reader who voted, or once the poll has closed (docs/polls.md, "Voting from the widget").
 */
import { PollKind, pollActorId, type ReaderPoll } from '../../actors/poll/protocol.js';
import { publicPoll } from '../../actors/live/public-projection.js';
import { ApiError } from '../../engine/errors.js';
import { limitKey } from '../client-address.js';
import { assertNotBanned } from '../moderation/ban-check.js';
import { assertMayWrite, locateComment, TENANT_ID } from '../public/comment-access.js';
import { ensureSession, isIdentified, type ReaderQuery, resolveReader } from '../public/reader.js';
import { route, type RouteRequest, type Schema } from '../route.js';
import { text } from './page-context.js';
import { COMMENT_ID } from './polls.js';

interface MineQuery extends ReaderQuery {
  commentId: string;
  optionId?: string;
}

const PARAMS: Schema = { type: 'object', properties: { tenantId: TENANT_ID }, required: ['tenantId'] };
const identity = { sso: text(16_384), sessionId: text(64) };
const READ_QUERY: Schema = { type: 'object', properties: { ...identity, commentId: COMMENT_ID }, required: ['commentId'] };
const VOTE_QUERY: Schema = { type: 'object', properties: { ...identity, commentId: COMMENT_ID, optionId: { type: 'string', minLength: 1, maxLength: 64 } }, required: ['commentId', 'optionId'] };
const missingCodes = { commentId: 'missing-comment-id' } as const;

/** The poll as this reader may see it, with the reader's choice (`myOptionId`). */
function forReader({ poll, optionId, closed }: ReaderPoll): Record<string, unknown> {
  const shown = optionId !== null || closed ? { ...poll, resultsHidden: false } : publicPoll(poll);
  return { poll: shown, myOptionId: optionId, isClosed: closed };
}

/** The comment's page, its rules, and the reader (anyone may read; writing follows the page's rules). */
async function context(req: RouteRequest<MineQuery, undefined>) {
  const tenantId = req.params['tenantId']!;
  const found = await locateComment(req.app, tenantId, req.query.commentId);
  const reader = await resolveReader(req, tenantId, found.urlId);
  return { tenantId, found, reader, poll: pollActorId(tenantId, req.query.commentId) };
}

/** The widget's own-vote routes of polls. */
export const publicPollVoteRoutes = [
  route<MineQuery, undefined>({
    method: 'GET',
    path: '/poll-votes/v1/:tenantId/mine',
    access: 'public',
    params: PARAMS,
    query: READ_QUERY,
    missingCodes,
    handle: async (req) => {
      const { reader, poll } = await context(req);
      const voter = isIdentified(reader) ? { userId: reader.userId, anonUserId: reader.anonUserId } : { userId: null, anonUserId: null };
      return forReader(await req.app.system.ask(PollKind, poll, 'readerVote', voter));
    },
  }),
  route<MineQuery, undefined>({
    method: 'POST',
    path: '/poll-votes/v1/:tenantId/mine',
    access: 'public',
    params: PARAMS,
    query: VOTE_QUERY,
    missingCodes,
    handle: async (req) => {
      const { tenantId, found, reader: before, poll } = await context(req);
      assertMayWrite(found.settings, before);
      // A guest votes through a session of their own; without anonymous votes the poll refuses it.
      const reader = before.sso === undefined && found.settings.allowAnonVotes ? ensureSession(req, before) : before;
      if (!isIdentified(reader)) throw new ApiError('poll-login-required');
      await assertNotBanned(req.app, tenantId, { userId: reader.userId, anonUserId: reader.anonUserId, email: reader.sso?.user.email ?? null });
      const { poll: after } = await req.app.system.ask(PollKind, poll, 'vote', {
        optionId: req.query.optionId!,
        userId: reader.userId,
        anonUserId: reader.userId === null ? reader.anonUserId : null,
        ip: null,
        rateKey: limitKey(req.ip),
      });
      const answer = forReader({ poll: after, optionId: req.query.optionId!, closed: false });
      return { ...answer, user: { sessionId: reader.sessionId ?? null } };
    },
  }),
  route<MineQuery, undefined>({
    method: 'DELETE',
    path: '/poll-votes/v1/:tenantId/mine',
    access: 'public',
    params: PARAMS,
    query: READ_QUERY,
    missingCodes,
    handle: async (req) => {
      const { reader, poll } = await context(req);
      if (!isIdentified(reader)) throw new ApiError('not-found', 'You have no vote in this poll.');
      return forReader(await req.app.system.ask(PollKind, poll, 'retractReaderVote', { userId: reader.userId, anonUserId: reader.anonUserId }));
    },
  }),
];
