import { UserKind, userActorId } from '../../actors/user/protocol.js';
import { userView } from '../../actors/user/user-view.js';
import { ApiError } from '../../engine/errors.js';
import { route } from '../route.js';
import { text } from './page-context.js';

/** Users of the tenant, of every kind (commenters, single sign-on and tenant users): read only. */
export const userRoutes = [
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/api/v1/users/:id',
    access: 'tenant',
    params: { type: 'object', properties: { id: text(512, 1) }, required: ['id'] },
    handle: async ({ app, tenantId, params }) => {
      const user = await app.system.ask(UserKind, userActorId(tenantId, params['id']!), 'get', null);
      if (user === null) throw new ApiError('not-found', `No user ${params['id']}.`);
      return { user: userView(user) };
    },
  }),
];
