import { TenantKind } from '../../actors/tenant/tenant-actor.js';
import { route } from '../route.js';

/**
 * `GET /api/v1/me`: the tenant of the calling credential, to test a connection. An access
 * token also names the user who authorized it and the scopes granted.
 */
export const meRoutes = [
  route({
    method: 'GET',
    path: '/api/v1/me',
    access: 'tenant',
    handle: async ({ app, auth, tenantId }) => {
      const tenant = await app.system.ask(TenantKind, tenantId, 'describe', null);
      const base = { tenantId, tenant: { id: tenant.id, name: tenant.name }, credential: auth!.credential };
      return auth!.credential === 'access-token' ? { ...base, user: { id: auth!.userId }, scopes: auth!.scopes } : base;
    },
  }),
];
