/**
 * Users of a tenant (`user:<tenantId>:<userId>`): commenters created from comments with an
 * email, single sign-on users, and tenant users. SSO user ids have the form
 * `<tenantId>:<ssoUserId>`.
 */
import { defineKind } from '../../engine/actor.js';
import type { Doc } from '../../storage/store.js';

/** Collection of users. */
export const USERS = 'users';

/** How a user came to be: from a comment's email, single sign-on, or the tenant. */
export type UserKindName = 'commenter' | 'sso' | 'tenant';

/** A user as stored. */
export interface UserDoc extends Doc {
  tenantId: string;
  kind: UserKindName;
  username: string;
  /** Lower-cased, so users can be found by email. */
  email: string | null;
  displayName: string | null;
  avatarSrc: string | null;
  websiteUrl: string | null;
  /** Profile activity (reactions, comments) hidden from other users. */
  isProfileActivityPrivate: boolean;
  createdAt: string;
  /** Single sign-on extras, as last sent by the payload. */
  displayLabel?: string | null;
  groupIds?: string[] | null;
  isAdmin?: boolean;
  isModerator?: boolean;
  optedInNotifications?: boolean;
  /** SSO users: subscription emails are sent only while true (docs/notifications.md). */
  optedInSubscriptionNotifications?: boolean;
  /**
   * SSO users: true when made or last changed by a signed (secure) payload. Unsigned (simple)
   * payloads may only change users that simple single sign-on made. Absent on users stored
   * before it was recorded: their id says (`simple-` ids come from simple single sign-on).
   */
  ssoSecure?: boolean;
  /** ms since 1970: when the user signed up (the API's `signUpDate`). Absent on users stored before it was kept: then `createdAt`. */
  signUpDate?: number;
}

/**
 * Fields a single sign-on payload carries. A field absent from the payload leaves the stored
 * value alone; a field sent as null clears it.
 */
export interface SsoUserFields {
  readonly username?: string | null;
  readonly email?: string | null;
  readonly displayName?: string | null;
  readonly displayLabel?: string | null;
  readonly avatarSrc?: string | null;
  readonly websiteUrl?: string | null;
  readonly groupIds?: string[] | null;
  readonly isAdmin?: boolean | null;
  readonly isModerator?: boolean | null;
  readonly optedInNotifications?: boolean | null;
  readonly optedInSubscriptionNotifications?: boolean | null;
  readonly isProfileActivityPrivate?: boolean | null;
}

/** Every message of a user actor. */
export type UserProtocol = {
  /** The user, or null when this tenant has no user with this id. */
  get: { in: null; out: UserDoc | null };
  /** Creates or replaces the user. */
  put: { in: { user: UserDoc }; out: UserDoc };
  /**
   * Creates or updates a single sign-on user from a payload, `secure` when it was signed;
   * writes only on change. An unsigned payload cannot change a user made by a signed one.
   */
  upsertSso: { in: { fields: SsoUserFields; secure: boolean }; out: UserDoc };
  /**
   * A write of the management API to a single sign-on or tenant user: `create` (refused with
   * `user-exists` when the id is taken), `patch` (the fields given) or `replace` (every field;
   * omitted ones reset), each checked by the kind's rules. Global claims (a tenant user's
   * username and email) change in the same durable batch: `username-taken` / `email-taken`.
   */
  apiWrite: { in: { kind: ApiUserKind; mode: ApiWriteMode; input: Readonly<Record<string, unknown>> }; out: UserDoc };
  /** Deletes the user of this kind, with its claims, sessions and login links; answers what was deleted. */
  remove: { in: { kind: ApiUserKind }; out: UserDoc };
  /** Stores a login link (its hash) for this tenant user, valid until `expiresAt`. */
  addLoginLink: { in: { hash: string; expiresAt: number; redirectURL: string | null }; out: null };
  /** Uses a login link once: answers the session it opens (`sessionHash` stored), or refuses. */
  useLoginLink: { in: { hash: string; sessionHash: string; sessionExpiresAt: number }; out: UserDoc };
  /** Ends a session of this user (sign-out). */
  endSession: { in: { sessionHash: string }; out: null };
};

/** Users the management API writes. */
export type ApiUserKind = 'sso' | 'tenant';
export type ApiWriteMode = 'create' | 'patch' | 'replace';

/** `user:<tenantId>:<userId>` */
export const UserKind = defineKind<UserProtocol>('user');

/** The id of a user actor (its key without the `user:` prefix). */
export function userActorId(tenantId: string, userId: string): string {
  return `${tenantId}:${userId}`;
}

/** Username claims: one per username per tenant, binding it to one email. */
export const USERNAME_CLAIMS = 'usernameClaims';

/** A username bound to an email, and the user it made. */
export interface UsernameClaimDoc extends Doc {
  tenantId: string;
  username: string;
  email: string;
  userId: string;
  createdAt: string;
}

/** Every message of a username actor. */
export type UsernameProtocol = {
  /**
   * Binds the username to this email and creates its commenter user, or, when already bound
   * to the same email, answers that user. Another email gives `username-taken`.
   */
  claim: { in: { username: string; email: string; avatarSrc: string | null }; out: { user: UserDoc; created: boolean } };
};

/** `username:<tenantId>:<username key>`: serialises every claim of one username. */
export const UsernameKind = defineKind<UsernameProtocol>('username');

/** How usernames compare: trimmed, spacing collapsed, case ignored. */
export function usernameKey(username: string): string {
  return username.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** The id of a username's actor. */
export function usernameActorId(tenantId: string, username: string): string {
  return `${tenantId}:${usernameKey(username)}`;
}
