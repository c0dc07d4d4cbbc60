/**
 * `/api/v1/tenant-users`: people a tenant manages itself (its administrators), with usernames
 * and emails unique across the whole service and a count limited by the package's
 * `maxTenantUsers`. Also readable through `GET /api/v1/users/:id`. docs/identity.md.
 */
import { TenantKind } from '../../actors/tenant/tenant-actor.js';
import { DirectoryKind, USER_PAGE_SIZE } from '../../actors/user/directory-actor.js';
import { UserKind, userActorId } from '../../actors/user/protocol.js';
import { TENANT_USER_FLAGS } from '../../actors/user/tenant-users.js';
import { userView } from '../../actors/user/user-view.js';
import { ApiError } from '../../engine/errors.js';
import { perObjects, route, type Schema } from '../route.js';
import { text } from './page-context.js';
import { bool, checkPersonFields, DELETE_USER_QUERY, type DeleteUserQuery, deleteUser, USER_FIELDS, writeUser } from './user-fields.js';

const FIELDS: Record<string, Schema> = {
  ...USER_FIELDS,
  ...Object.fromEntries(TENANT_USER_FLAGS.map((flag) => [flag, bool])),
  tenantId: text(64, 1),
  locale: text(16),
  moderatorIds: { type: 'array', items: text(64, 1), maxItems: 100 },
  digestEmailFrequency: { type: 'integer', enum: [-1, 0, 1, 2] },
  createdFromUrlId: text(4096),
  createdFromTenantId: text(64),
  lastLoginDate: { type: 'number', minimum: 0, maximum: 8_640_000_000_000_000 },
  karma: { type: 'number' },
};

const CREATE_BODY: Schema = { type: 'object', properties: FIELDS, required: ['username', 'email'] };
const PATCH_BODY: Schema = { type: 'object', properties: FIELDS, minProperties: 1 };
const ID_PARAM: Schema = { type: 'object', properties: { id: text(64, 1) }, required: ['id'] };
const UPDATE_QUERY: Schema = { type: 'object', properties: { updateComments: bool } };
const MISSING = { username: 'username-required', email: 'email-required' } as const;

function updateRoute(method: 'PATCH' | 'PUT') {
  return route<{ updateComments?: boolean }, Record<string, unknown>>({
    method,
    path: '/api/v1/tenant-users/:id',
    access: 'tenant',
    params: ID_PARAM,
    query: UPDATE_QUERY,
    body: method === 'PATCH' ? PATCH_BODY : CREATE_BODY,
    missingCodes: MISSING,
    handle: async ({ app, tenantId, params, query, body }) => ({
      tenantUser: userView(await writeUser(app, tenantId, params['id']!, 'tenant', method === 'PATCH' ? 'patch' : 'replace', body, query.updateComments)),
    }),
  });
}

export const tenantUserRoutes = [
  route<{ skip?: number }, undefined, { tenantUsers: Record<string, unknown>[] }>({
    method: 'GET',
    path: '/api/v1/tenant-users',
    access: 'tenant',
    query: { type: 'object', properties: { skip: { type: 'integer', minimum: 0, maximum: 100_000_000 } } },
    credits: (_req, result) => perObjects(result.tenantUsers.length, 10),
    handle: async ({ app, tenantId, query }) => {
      const users = await app.system.ask(DirectoryKind, tenantId, 'list', { kind: 'tenant', skip: query.skip ?? 0, limit: USER_PAGE_SIZE });
      return { tenantUsers: users.map(userView) };
    },
  }),
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/api/v1/tenant-users/:id',
    access: 'tenant',
    params: ID_PARAM,
    handle: async ({ app, tenantId, params }) => {
      const user = await app.system.ask(UserKind, userActorId(tenantId, params['id']!), 'get', null);
      if (user === null || user.kind !== 'tenant') throw new ApiError('not-found', `No tenant user ${params['id']}.`);
      return { tenantUser: userView(user) };
    },
  }),
  route<Record<string, unknown>, Record<string, unknown>>({
    method: 'POST',
    path: '/api/v1/tenant-users',
    access: 'tenant',
    body: CREATE_BODY,
    missingCodes: MISSING,
    handle: async ({ app, tenantId, body }) => {
      checkPersonFields(body);
      const { package: pkg } = await app.system.ask(TenantKind, tenantId, 'read', null);
      const max = pkg?.maxTenantUsers;
      const user = await app.system.ask(DirectoryKind, tenantId, 'createTenantUser', { input: body, maxTenantUsers: typeof max === 'number' ? max : null });
      return { tenantUser: userView(user) };
    },
  }),
  updateRoute('PATCH'),
  updateRoute('PUT'),
  route<DeleteUserQuery, undefined>({
    method: 'DELETE',
    path: '/api/v1/tenant-users/:id',
    access: 'tenant',
    params: ID_PARAM,
    query: DELETE_USER_QUERY,
    credits: (req) => (req.query.deleteComments === true ? 2 : 1),
    handle: async ({ app, tenantId, params, query }) => ({ tenantUser: userView(await deleteUser(app, tenantId, params['id']!, 'tenant', query)) }),
  }),
];
