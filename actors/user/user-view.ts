/**
 * The API's `User` shape, for every kind of user (commenters, single sign-on users, tenant
 * users): what `GET /api/v1/users/:id` and the tenant-user endpoints answer. Only the public
 * projection: no session, login link or claim ever appears in it.
 */
import type { UserDoc } from './protocol.js';
import { TENANT_USER_FLAGS } from './tenant-users.js';

/** Settings a `User` carries when set. */
const OPTIONAL = ['locale', 'displayLabel', 'moderatorIds', 'digestEmailFrequency', 'karma'] as const;

export function userView(user: UserDoc): Record<string, unknown> {
  const view: Record<string, unknown> = {
    _id: user._id,
    id: user._id,
    tenantId: user.tenantId,
    username: user.username,
    websiteUrl: user.websiteUrl,
    email: user.email,
    avatarSrc: user.avatarSrc,
    signUpDate: user.signUpDate ?? Date.parse(user.createdAt),
    createdFromTenantId: typeof user['createdFromTenantId'] === 'string' ? user['createdFromTenantId'] : user.tenantId,
    createdFromUrlId: typeof user['createdFromUrlId'] === 'string' ? user['createdFromUrlId'] : null,
    createdFromIpHashed: '',
    verified: user['verified'] === true,
    loginId: '',
    loginIdDate: 0,
    loginCount: typeof user['loginCount'] === 'number' ? user['loginCount'] : 0,
    isProfileActivityPrivate: user.isProfileActivityPrivate,
  };
  if (user.displayName !== null) view['displayName'] = user.displayName;
  for (const field of OPTIONAL) if (user[field] !== undefined && user[field] !== null) view[field] = user[field];
  if (user.kind === 'tenant') {
    for (const field of TENANT_USER_FLAGS) view[field] = user[field] === true;
    if (typeof user['lastLoginDate'] === 'number') view['lastLoginDate'] = new Date(user['lastLoginDate']).toISOString();
  }
  return view;
}
