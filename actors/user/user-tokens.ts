/**
 * Tenant users' login links and sessions, stored only as SHA-256 hashes of their secrets (the
 * secret travels once: in the email, in the cookie). Owned by the user's actor, which uses a
 * link once and deletes them all with the user.
 */
import type { CollectionSpec, Doc } from '../../storage/store.js';

export const USER_TOKENS = 'userTokens';

export const userTokenCollections: readonly CollectionSpec[] = [
  { name: USER_TOKENS, indexes: [{ name: 'by_user', fields: ['tenantId', 'userId', 'expiresAt'] }] },
];

/** How long a login link may be used: 30 days. */
export const LOGIN_LINK_MS = 30 * 24 * 60 * 60 * 1000;
/** How long a session lasts from sign-in: 14 days. */
export const SESSION_MS = 14 * 24 * 60 * 60 * 1000;
/** Live sessions one user may hold; signing in again ends the oldest beyond this. */
export const MAX_SESSIONS = 20;

export interface UserTokenDoc extends Doc {
  /** `_id` is the SHA-256 (hex) of the secret. */
  type: 'login-link' | 'session';
  tenantId: string;
  userId: string;
  /** ms since 1970. */
  createdAt: number;
  expiresAt: number;
  /** Login links: when it was used (a link signs in once). */
  usedAt?: number | null;
  /** Login links: where the caller of `send-login-link` asked the user to go once signed in. */
  redirectURL?: string | null;
}
