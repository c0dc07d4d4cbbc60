import { TenantKind } from '../../actors/tenant/tenant-actor.js';
import { UserKind, userActorId } from '../../actors/user/protocol.js';
import { route } from '../route.js';

/**
 * `GET /api/v1/me`: the tenant of the calling credential, to test a connection. An access
 * token also names the user who authorized it (null fields when the user is gone) and the
 * scopes granted.
 */
export const meRoutes = [
  route({
    method: 'GET',
    path: '/api/v1/me',
    access: 'tenant',
    handle: async ({ app, auth, tenantId }) => {
      const tenant = await app.system.ask(TenantKind, tenantId, 'describe', null);
      const base = { tenantId, tenant: { id: tenant.id, name: tenant.name }, credential: auth!.credential };
      if (auth!.credential !== 'access-token') return base;
      const user = await app.system.ask(UserKind, userActorId(tenantId, auth!.userId!), 'get', null);
      return { ...base, user: { id: auth!.userId, username: user?.username ?? null, email: user?.email ?? null, displayName: user?.displayName ?? null }, scopes: auth!.scopes };
    },
  }),
];
