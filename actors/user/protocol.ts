/**
 * Users of a tenant (`user:<tenantId>:<userId>`): commenters created from comments with an
 * email, single sign-on users, and tenant users. SSO user ids have the form
 * `<tenantId>:<ssoUserId>`.
 */
import { defineKind } from '../../engine/actor.js';
import type { Doc } from '../../storage/store.js';

export const USERS = 'users';

export type UserKindName = 'commenter' | 'sso' | 'tenant';

export interface UserDoc extends Doc {
  tenantId: string;
  kind: UserKindName;
  username: string;
  email: string | null;
  displayName: string | null;
  avatarSrc: string | null;
  websiteUrl: string | null;
  /** Profile activity (reactions, comments) hidden from other users. */
  isProfileActivityPrivate: boolean;
  createdAt: string;
}

export type UserProtocol = {
  /** The user, or null when this tenant has no user with this id. */
  get: { in: null; out: UserDoc | null };
  /** Creates or replaces the user. */
  put: { in: { user: UserDoc }; out: UserDoc };
};

export const UserKind = defineKind<UserProtocol>('user');

/** The id of a user actor (its key without the `user:` prefix). */
export function userActorId(tenantId: string, userId: string): string {
  return `${tenantId}:${userId}`;
}
