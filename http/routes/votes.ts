import { notifyUpvote } from '../../actors/notify/index.js';
import { pageLocator } from '../../actors/page/locator.js';
import { actorKey, NotOnThisPage, PageKind, pageActorId } from '../../actors/page/protocol.js';
import { VOTE_DIRECTION } from '../../actors/page/vote-doc.js';
import { ApiError } from '../../engine/errors.js';
import { route, type RouteResult, type Schema } from '../route.js';
import type { AppServices } from '../services.js';
import type { Settings } from '../../actors/tenant/widget-config.js';
import { actorRef, requireUrlId, text, URL_ID, USER_ID } from './page-context.js';
import { tenantSettings } from '../../actors/tenant/tenant-actor.js';
import { assertNotBanned } from '../moderation/ban-check.js';

interface VoteParams {
  commentId?: string;
  direction?: string;
  userId?: string;
  anonUserId?: string;
}

const VOTE_FIELDS: Schema = { commentId: text(128), direction: text(16), userId: USER_ID, anonUserId: USER_ID };
const VOTE_QUERY: Schema = { type: 'object', properties: VOTE_FIELDS };

/**
 * The vote's parameters, from the query or the body (the query wins field by field), checked
 * in the order the API reports them.
 */
function voteParams(query: VoteParams, body: VoteParams) {
  const merged: VoteParams = { ...body, ...query };
  if (!merged.commentId) throw new ApiError('missing-comment-id');
  const direction = merged.direction;
  if (direction !== 'up' && direction !== 'down') throw new ApiError('invalid-direction', `The vote direction must be up or down, not ${JSON.stringify(direction ?? null)}.`);
  return { commentId: merged.commentId, direction: VOTE_DIRECTION[direction], by: actorRef(merged) };
}

const invalidComment = (id: string) => () => new ApiError('invalid-comment-id', `No comment ${id}.`);

type Vote = ReturnType<typeof voteParams>;

/** Checks the page's settings, then has the page record the vote. */
function castVote(app: AppServices, tenantId: string, urlId: string | undefined, vote: Vote): Promise<RouteResult> {
  if (urlId === undefined) throw invalidComment(vote.commentId)();
  const settings = tenantSettings(app.system, tenantId, urlId);
  if (settings instanceof Promise) return settings.then((found) => askToVote(app, tenantId, urlId, found, vote));
  return askToVote(app, tenantId, urlId, settings, vote);
}

/**
 * Asks the page the comment was last seen on; if it has moved since, the locator finds it
 * again. (The common case goes straight to the page: one await fewer on the hottest write.)
 */
async function askToVote(app: AppServices, tenantId: string, urlId: string, settings: Settings, { commentId, direction, by }: Vote): Promise<RouteResult> {
  if (settings.disableVoting) throw new ApiError('voting-disabled');
  if (by.userId === null && !settings.allowAnonVotes) throw new ApiError('login-required', 'This site does not take anonymous votes: give a userId.');
  await assertNotBanned(app, tenantId, { userId: by.userId, anonUserId: by.anonUserId });
  const payload = { commentId, by, direction };
  let voteId: string;
  try {
    ({ voteId } = await app.system.ask(PageKind, pageActorId(tenantId, urlId), 'vote', payload));
  } catch (err) {
    if (!(err instanceof NotOnThisPage)) throw err;
    const locator = pageLocator(app.system);
    locator.forget('comment', tenantId, commentId);
    ({ voteId } = await locator.ask('comment', tenantId, commentId, 'vote', payload, invalidComment(commentId)));
  }
  // The vote is durable: its comment's author hears of it in the background.
  if (direction > 0) notifyUpvote(app.system, tenantId, commentId, voteId, by.userId);
  return { status: 'success', voteId, isVerified: true, user: { sessionId: null } };
}

/**
 * Votes on comments. A user has at most one vote per comment: the same direction again is
 * `duplicate`; the other direction replaces the earlier vote (a new vote id).
 */
export const voteRoutes = [
  route<VoteParams, VoteParams>({
    method: 'POST',
    path: '/api/v1/votes',
    access: 'tenant',
    query: VOTE_QUERY,
    body: { type: 'object', properties: VOTE_FIELDS },
    usage: { voteCount: 1 },
    handle: ({ app, tenantId, query, body }) => {
      const vote = voteParams(query, body);
      // The hottest write of a page: with the comment's page remembered and the settings
      // published, as on a busy page, nothing is awaited before the page actor is asked.
      const locator = pageLocator(app.system);
      const urlId = locator.urlIdOf('comment', tenantId, vote.commentId);
      if (urlId instanceof Promise) return urlId.then((found) => castVote(app, tenantId, found, vote));
      return castVote(app, tenantId, urlId, vote);
    },
  }),

  route<Record<string, unknown>, undefined>({
    method: 'DELETE',
    path: '/api/v1/votes/:id',
    access: 'tenant',
    params: { type: 'object', properties: { id: text(128, 1) }, required: ['id'] },
    query: { type: 'object', properties: { editKey: text(256) } },
    handle: async ({ app, tenantId, params }) => {
      const id = params['id']!;
      const locator = pageLocator(app.system);
      const urlId = await locator.urlIdOf('vote', tenantId, id);
      const missing = () => new ApiError('not-found', `No vote ${id}.`);
      if (urlId === undefined) throw missing();
      const settings = await tenantSettings(app.system, tenantId, urlId);
      if (settings.disableVoting) throw new ApiError('voting-disabled');
      const { wasPendingVote } = await locator.ask('vote', tenantId, id, 'deleteVote', { voteId: id }, missing);
      return { wasPendingVote };
    },
  }),

  route<{ urlId: string }, undefined>({
    method: 'GET',
    path: '/api/v1/votes',
    access: 'tenant',
    query: { type: 'object', properties: { urlId: URL_ID }, required: ['urlId'] },
    missingCodes: { urlId: 'missing-url-id' },
    handle: async ({ app, tenantId, query }) => {
      const urlId = requireUrlId(query.urlId);
      return { ...(await app.system.ask(PageKind, pageActorId(tenantId, urlId), 'listVotes', { voterKey: null })) };
    },
  }),

  route<{ urlId: string; userId?: string; anonUserId?: string }, undefined>({
    method: 'GET',
    path: '/api/v1/votes/for-user',
    access: 'tenant',
    query: { type: 'object', properties: { urlId: URL_ID, userId: USER_ID, anonUserId: USER_ID }, required: ['urlId'] },
    missingCodes: { urlId: 'missing-url-id' },
    handle: async ({ app, tenantId, query }) => {
      const urlId = requireUrlId(query.urlId);
      const voterKey = actorKey(actorRef(query));
      return { ...(await app.system.ask(PageKind, pageActorId(tenantId, urlId), 'listVotes', { voterKey })) };
    },
  }),
];
