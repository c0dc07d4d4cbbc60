import { UserKind, userActorId, type UserDoc } from '../../actors/user/protocol.js';
import { ApiError } from '../../engine/errors.js';
import { route } from '../route.js';
import { text } from './page-context.js';

/** The API's `User` view of a commenter or SSO user (read only). */
function userView(user: UserDoc): Record<string, unknown> {
  return {
    _id: user._id,
    id: user._id,
    tenantId: user.tenantId,
    username: user.username,
    displayName: user.displayName ?? user.username,
    websiteUrl: user.websiteUrl,
    email: user.email,
    avatarSrc: user.avatarSrc,
    signUpDate: Date.parse(user.createdAt),
    createdFromTenantId: user.tenantId,
    createdFromUrlId: null,
    createdFromIpHashed: '',
    verified: false,
    loginId: '',
    loginIdDate: 0,
    displayLabel: user.displayLabel ?? undefined,
    isProfileActivityPrivate: user.isProfileActivityPrivate,
  };
}

/** Users of the tenant: commenters created from comments and single sign-on users. */
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
