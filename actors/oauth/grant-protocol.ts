/**
 * A grant (`oauth-grant:<tenantId>:<grantId>`): one user's consent to one client, with its
 * authorization code and the tokens it issued. One actor per grant, so using a code once and
 * rotating a refresh token are atomic however many requests race (docs/oauth.md).
 */
import { defineKind } from '../../engine/actor.js';
import type { ErrorCode } from '../../engine/errors.js';
import type { Doc } from '../../storage/store.js';
import type { Scope } from './token-store.js';

/** A refresh token replaced by rotation: its hash, when, and (within the grace window) its successors sealed under it. */
export interface RotatedToken {
  hash: string;
  /** ms since 1970. */
  rotatedAt: number;
  /** The pair that replaced it, readable only with the token itself (`seal`); dropped once the grace window is over. */
  sealed: string | null;
}

/** A grant as stored: hashes of its secrets, never the secrets. */
export interface GrantDoc extends Doc {
  tenantId: string;
  userId: string;
  clientId: string;
  /** The client's name when the user consented (shown in the connected apps). */
  clientName: string;
  /** A client the operator registered: its refresh token is extended, not rotated. */
  partner: boolean;
  scopes: Scope[];
  /** The `resource` (RFC 8707) the client asked for, if any. */
  resource: string | null;
  redirectUri: string;
  /** Whether the authorization request named the redirect URI (the token request must then repeat it). */
  redirectUriGiven: boolean;
  codeChallenge: string;
  codeHash: string;
  /** ms since 1970, as are all times below. */
  createdAt: number;
  codeUsedAt: number | null;
  lastUsedAt: number | null;
  refreshHash: string | null;
  refreshExpiresAt: number;
  /** Refresh tokens rotated away, newest first (at most `MAX_ROTATED`), so a replay is recognised. */
  rotated: RotatedToken[];
  revokedAt: number | null;
  /** When the grant can no longer be used (its code's or refresh token's end): the sweeper removes it then. */
  expiresAt: number;
}

/** What the consent page records when the user approves. */
export interface NewGrant {
  readonly tenantId: string;
  readonly userId: string;
  readonly clientId: string;
  readonly clientName: string;
  readonly partner: boolean;
  readonly scopes: Scope[];
  readonly resource: string | null;
  readonly redirectUri: string;
  readonly redirectUriGiven: boolean;
  readonly codeChallenge: string;
  readonly codeHash: string;
}

/** Tokens as the token endpoint answers them. */
export interface IssuedTokens {
  readonly accessToken: string;
  readonly refreshToken: string;
  /** Seconds the access token has left. */
  readonly expiresIn: number;
  readonly scopes: Scope[];
}

/**
 * A token request's outcome. Refusals are answered, not thrown: a refusal that revoked the
 * grant (a replayed code or refresh token) must not undo the revocation.
 */
export type TokenOutcome = { readonly ok: true; readonly tokens: IssuedTokens } | { readonly ok: false; readonly code: ErrorCode; readonly reason: string };

export type GrantProtocol = {
  /** Records the grant and its code (the consent page's approval). */
  create: { in: NewGrant; out: null };
  /** Exchanges the code (`authorization_code`); a second exchange revokes every token the first produced. */
  exchange: { in: { codeHash: string; clientId: string; redirectUri: string | null; verifier: string; resource: string | null }; out: TokenOutcome };
  /** Uses a refresh token (`refresh_token`): rotates it, or extends it for a partner client. */
  refresh: { in: { token: string; clientId: string; scopes: Scope[] | null; resource: string | null }; out: TokenOutcome };
  /** RFC 7009: revokes the grant (a refresh token) or one access token, when they are this client's; otherwise nothing. */
  revokeToken: { in: { hash: string; clientId: string }; out: null };
  /** Revokes the whole grant when it is `userId`'s (any user's when null); answers whether it was live. */
  revoke: { in: { userId: string | null }; out: boolean };
};

/** `oauth-grant:<tenantId>:<grantId>` */
export const GrantKind = defineKind<GrantProtocol>('oauth-grant');
