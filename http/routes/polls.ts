import { PollKind, pollActorId } from '../../actors/poll/protocol.js';
import { POLL_INPUT_SCHEMA, POLL_LIMITS, type PollInput } from '../../actors/poll/poll-model.js';
import type { PollPatch } from '../../actors/poll/poll-rules.js';
import { route, type Schema } from '../route.js';

/** Comment ids are the page's (24 hex today); any reasonable string is looked up. */
export const COMMENT_ID: Schema = { type: 'string', minLength: 1, maxLength: 128 };

const BY_COMMENT: Schema = { type: 'object', properties: { commentId: COMMENT_ID }, required: ['commentId'] };

const PATCH_SCHEMA: Schema = {
  type: 'object',
  properties: {
    question: POLL_INPUT_SCHEMA.properties.question,
    options: {
      type: 'array',
      minItems: 1,
      maxItems: POLL_LIMITS.optionsMax,
      items: {
        type: 'object',
        properties: {
          id: { type: 'string', minLength: 1, maxLength: 64 },
          label: { type: 'string', minLength: 1, maxLength: POLL_LIMITS.labelMax },
        },
        required: ['id', 'label'],
      },
    },
    closesAt: POLL_INPUT_SCHEMA.properties.closesAt,
    privacy: POLL_INPUT_SCHEMA.properties.privacy,
    requireVoteToSeeResults: POLL_INPUT_SCHEMA.properties.requireVoteToSeeResults,
  },
  minProperties: 1,
};

interface ReplaceQuery {
  replaceVotes?: boolean;
}

/** `/api/v1/polls/:commentId`: the poll attached to a comment. Rules in docs/polls.md. */
export const pollRoutes = [
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/api/v1/polls/:commentId',
    access: 'tenant',
    params: BY_COMMENT,
    handle: async ({ app, tenantId, params }) => ({
      poll: await app.system.ask(PollKind, pollActorId(tenantId, params['commentId']!), 'get', null),
    }),
  }),
  route<ReplaceQuery, PollInput>({
    method: 'PUT',
    path: '/api/v1/polls/:commentId',
    access: 'tenant',
    params: BY_COMMENT,
    query: { type: 'object', properties: { replaceVotes: { type: 'boolean' } } },
    body: POLL_INPUT_SCHEMA,
    handle: async ({ app, tenantId, params, query, body }) => ({
      poll: await app.system.ask(PollKind, pollActorId(tenantId, params['commentId']!), 'put', {
        input: body,
        replaceVotes: query.replaceVotes === true,
      }),
    }),
  }),
  route<Record<string, unknown>, PollPatch>({
    method: 'PATCH',
    path: '/api/v1/polls/:commentId',
    access: 'tenant',
    params: BY_COMMENT,
    body: PATCH_SCHEMA,
    handle: async ({ app, tenantId, params, body }) => ({
      poll: await app.system.ask(PollKind, pollActorId(tenantId, params['commentId']!), 'patch', body),
    }),
  }),
  route<Record<string, unknown>, undefined>({
    method: 'DELETE',
    path: '/api/v1/polls/:commentId',
    access: 'tenant',
    params: BY_COMMENT,
    handle: async ({ app, tenantId, params }) => {
      await app.system.ask(PollKind, pollActorId(tenantId, params['commentId']!), 'remove', null);
      return {};
    },
  }),
];
