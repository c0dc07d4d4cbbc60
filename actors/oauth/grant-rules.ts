/** The rules of a grant as pure functions: scopes, PKCE, who may authorize (docs/oauth.md). */
import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../engine/errors.js';
import type { UserDoc } from '../user/protocol.js';
import { SCOPES, type Scope } from './token-store.js';

/**
 * The scopes a `scope` parameter asks for: `read`, `write` or both (space-separated, in any
 * order, repeats ignored); none asked for means both. Anything else is `invalid_scope`.
 */
export function parseScopes(scope: string | undefined): Scope[] {
  if (scope === undefined || scope.trim() === '') return [...SCOPES];
  const asked = new Set(scope.split(' ').filter((s) => s !== ''));
  for (const name of asked) {
    if (!(SCOPES as readonly string[]).includes(name)) throw new ApiError('oauth-invalid-scope', `Unknown scope "${name.slice(0, 40)}": the scopes are read and write.`);
  }
  return SCOPES.filter((s) => asked.has(s));
}

/** Scopes as the `scope` parameter writes them. */
export function scopeText(scopes: readonly Scope[]): string {
  return scopes.join(' ');
}

/** A PKCE `code_challenge` of method S256: the unpadded base64url of a SHA-256. */
export const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** A PKCE `code_verifier` (RFC 7636): 43 to 128 unreserved characters. */
export const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** Whether `verifier` is the one the S256 `challenge` was made from (compared in constant time). */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!CODE_VERIFIER.test(verifier)) return false;
  const made = Buffer.from(createHash('sha256').update(verifier).digest('base64url'));
  const expected = Buffer.from(challenge);
  return made.length === expected.length && timingSafeEqual(made, expected);
}

/** Whether a user may authorize clients: a tenant user holding the API Admin permission. */
export function holdsApiAdmin(user: UserDoc | null): boolean {
  return user !== null && user.kind === 'tenant' && user['isAPIAdmin'] === true;
}
