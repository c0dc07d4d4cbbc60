/**
 * `/api/v1/sso-users`: the tenant's single sign-on users, the same records the widget's `sso`
 * payload makes (docs/identity.md). Ids in paths and answers are the tenant's own ids; users
 * are stored as `<tenantId>:<id>`, which is the `userId` their comments carry.
 */
import { DirectoryKind, USER_PAGE_SIZE } from '../../actors/user/directory-actor.js';
import { UserKind, userActorId } from '../../actors/user/protocol.js';
import { MAX_BADGE_IDS, ssoStoredId, ssoUserView } from '../../actors/user/sso-users.js';
import { ApiError } from '../../engine/errors.js';
import { perObjects, route, type Schema } from '../route.js';
import { text } from './page-context.js';
import { bool, DELETE_USER_QUERY, type DeleteUserQuery, deleteUser, USER_FIELDS, writeUser } from './user-fields.js';

const idList = (max: number): Schema => ({ type: 'array', items: text(256, 1), maxItems: max });

const SSO_FIELDS: Record<string, Schema> = {
  ...USER_FIELDS,
  id: text(256, 1),
  createdFromUrlId: text(4096),
  optedInSubscriptionNotifications: bool,
  isAccountOwner: bool,
  isAdminAdmin: bool,
  isCommentModeratorAdmin: bool,
  isProfileActivityPrivate: bool,
  isProfileCommentsPrivate: bool,
  isProfileDMDisabled: bool,
  hasBlockedUsers: bool,
  groupIds: { type: ['array', 'null'], items: text(256, 1), maxItems: 100 },
  badgeConfig: {
    type: ['object', 'null'],
    properties: { badgeIds: idList(MAX_BADGE_IDS * 10), pageBadgeIds: idList(MAX_BADGE_IDS * 10), override: bool, update: bool },
    required: ['badgeIds'],
  },
};

const CREATE_BODY: Schema = { type: 'object', properties: SSO_FIELDS, required: ['id', 'username', 'email'] };
const UPDATE_BODY: Schema = { type: 'object', properties: SSO_FIELDS, minProperties: 1 };
const ID_PARAM: Schema = { type: 'object', properties: { id: text(256, 1) }, required: ['id'] };
const UPDATE_QUERY: Schema = { type: 'object', properties: { updateComments: bool } };

function checkBody(body: Record<string, unknown>, pathId?: string): void {
  if (pathId !== undefined && body['id'] !== undefined && body['id'] !== pathId) throw new ApiError('id-immutable');
  if (body['email'] === '' && pathId === undefined) throw new ApiError('email-required');
}

function updateRoute(method: 'PATCH' | 'PUT') {
  return route<{ updateComments?: boolean }, Record<string, unknown>>({
    method,
    path: '/api/v1/sso-users/:id',
    access: 'tenant',
    params: ID_PARAM,
    query: UPDATE_QUERY,
    body: UPDATE_BODY,
    handle: async ({ app, tenantId, params, query, body }) => {
      checkBody(body, params['id']);
      const user = await writeUser(app, tenantId, ssoStoredId(tenantId, params['id']!), 'sso', method === 'PATCH' ? 'patch' : 'replace', body, query.updateComments);
      return { user: ssoUserView(user) };
    },
  });
}

export const ssoUserRoutes = [
  route<{ skip?: number }, undefined, { users: Record<string, unknown>[] }>({
    method: 'GET',
    path: '/api/v1/sso-users',
    access: 'tenant',
    query: { type: 'object', properties: { skip: { type: 'integer', minimum: 0, maximum: 100_000_000 } } },
    credits: (_req, result) => perObjects(result.users.length, 10),
    handle: async ({ app, tenantId, query }) => {
      const users = await app.system.ask(DirectoryKind, tenantId, 'list', { kind: 'sso', skip: query.skip ?? 0, limit: USER_PAGE_SIZE });
      return { users: users.map(ssoUserView) };
    },
  }),
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/api/v1/sso-users/by-id/:id',
    access: 'tenant',
    params: ID_PARAM,
    handle: async ({ app, tenantId, params }) => {
      const user = await app.system.ask(UserKind, userActorId(tenantId, ssoStoredId(tenantId, params['id']!)), 'get', null);
      if (user === null || user.kind !== 'sso') throw new ApiError('not-found', `No SSO user ${params['id']}.`);
      return { user: ssoUserView(user) };
    },
  }),
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/api/v1/sso-users/by-email/:email',
    access: 'tenant',
    params: { type: 'object', properties: { email: text(320, 1) }, required: ['email'] },
    handle: async ({ app, tenantId, params }) => {
      const user = await app.system.ask(DirectoryKind, tenantId, 'byEmail', { kind: 'sso', email: params['email']! });
      if (user === null) throw new ApiError('not-found', 'No SSO user has this email.');
      return { user: ssoUserView(user) };
    },
  }),
  route<Record<string, unknown>, Record<string, unknown>>({
    method: 'POST',
    path: '/api/v1/sso-users',
    access: 'tenant',
    body: CREATE_BODY,
    missingCodes: { username: 'username-required', email: 'email-required' },
    handle: async ({ app, tenantId, body }) => {
      checkBody(body);
      return { user: ssoUserView(await writeUser(app, tenantId, ssoStoredId(tenantId, body['id'] as string), 'sso', 'create', body)) };
    },
  }),
  updateRoute('PATCH'),
  updateRoute('PUT'),
  route<DeleteUserQuery, undefined>({
    method: 'DELETE',
    path: '/api/v1/sso-users/:id',
    access: 'tenant',
    params: ID_PARAM,
    query: DELETE_USER_QUERY,
    credits: (req) => (req.query.deleteComments === true ? 2 : 1),
    handle: async ({ app, tenantId, params, query }) => ({ user: ssoUserView(await deleteUser(app, tenantId, ssoStoredId(tenantId, params['id']!), 'sso', query)) }),
  }),
];
