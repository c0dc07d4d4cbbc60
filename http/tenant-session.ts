/**
 * Tenant users' sign-in sessions, opened by a login link (docs/identity.md). The session is a
 * random 256-bit secret in the `fc_tenant_session` cookie (HttpOnly, SameSite=Lax, Secure when
 * the request came over https through a trusted proxy, as the anonymous session decides it),
 * stored server-side only as its SHA-256, for 14 days; signing out or deleting the user ends
 * it. `signedInTenantUser` is what later features (the OAuth consent page) read.
 */
import { type UserDoc, UserKind, userActorId } from '../actors/user/protocol.js';
import { SESSION_MS, USER_TOKENS, type UserTokenDoc } from '../actors/user/user-tokens.js';
import { clock } from '../engine/clock.js';
import { hashSecret } from '../engine/ids.js';
import { cookieValue } from './anon-session.js';
import { forwardedProto } from './client-address.js';
import type { AppServices } from './services.js';

/** Name of the session cookie. */
export const TENANT_SESSION_COOKIE = 'fc_tenant_session';
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** A signed-in tenant user. */
export interface TenantSession {
  readonly tenantId: string;
  readonly user: UserDoc;
  /** The stored id of the session (the SHA-256 of its cookie), to end it. */
  readonly sessionHash: string;
}

/**
 * The tenant user signed in on a request (by its `Cookie` header), or null: no cookie, an
 * unknown, expired or ended session, or a user deleted since.
 */
export async function signedInTenantUser(app: AppServices, headers: Readonly<Record<string, string>>): Promise<TenantSession | null> {
  const token = cookieValue(headers['cookie'], TENANT_SESSION_COOKIE);
  if (token === undefined || !TOKEN.test(token)) return null;
  const sessionHash = hashSecret(token);
  const session = await app.store.get<UserTokenDoc>(USER_TOKENS, sessionHash);
  if (session === undefined || session.type !== 'session' || session.expiresAt <= clock.now()) return null;
  const user = await app.system.ask(UserKind, userActorId(session.tenantId, session.userId), 'get', null);
  if (user === null || user.kind !== 'tenant') return null;
  return { tenantId: session.tenantId, user, sessionHash };
}

/** The Set-Cookie value that opens (token) or clears (null) the session on this request's browser. */
export function sessionCookie(app: AppServices, headers: Readonly<Record<string, string>>, token: string | null): string {
  const https = app.config.trustProxy && forwardedProto(headers) === 'https';
  const maxAge = token === null ? 0 : Math.floor(SESSION_MS / 1000);
  return `${TENANT_SESSION_COOKIE}=${token ?? ''}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${https ? '; Secure' : ''}`;
}
