/**
 * The authorization request (`/oauth/authorize`, docs/oauth.md), read the same way when the
 * consent page is shown (GET) and when the user answers it (POST): first what must be right
 * before anything is sent back to the client (a known client, one of its redirect URIs; errors
 * are shown on the page, never redirected), then the rest (errors redirected to the client
 * with `error`, `state` and `iss`). Also the sign-in and the form's CSRF token.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ClientDoc } from '../../actors/oauth/client-model.js';
import { redirectMatches } from '../../actors/oauth/client-model.js';
import { CODE_CHALLENGE, holdsApiAdmin, parseScopes } from '../../actors/oauth/grant-rules.js';
import type { Scope } from '../../actors/oauth/token-store.js';
import { ApiError } from '../../engine/errors.js';
import { cookieValue } from '../anon-session.js';
import { redirectTo } from '../html.js';
import { oauthError } from '../respond.js';
import type { CustomReply, Schema } from '../route.js';
import type { AppServices } from '../services.js';
import { TENANT_SESSION_COOKIE, type TenantSession, signedInTenantUser } from '../tenant-session.js';
import { findClient } from './clients.js';
import { isOwnResource } from './issuer.js';

/** The parameters of an authorization request, as received. */
export interface AuthorizeParams {
  readonly response_type?: string;
  readonly client_id?: string;
  readonly redirect_uri?: string;
  readonly scope?: string;
  readonly state?: string;
  readonly code_challenge?: string;
  readonly code_challenge_method?: string;
  readonly resource?: string;
}

const field = (maxLength: number): Schema => ({ type: 'string', maxLength });

/** Their schema: text, bounded; other parameters are ignored (RFC 6749 §3.1), a repeated one refused. */
export const AUTHORIZE_FIELDS: Readonly<Record<keyof AuthorizeParams, Schema>> = {
  response_type: field(64),
  client_id: field(2000),
  redirect_uri: field(2000),
  scope: field(200),
  state: field(1000),
  code_challenge: field(128),
  code_challenge_method: field(16),
  resource: field(2000),
};

/** An authorization request found valid. */
export interface AuthorizationRequest {
  readonly client: ClientDoc;
  readonly redirectUri: string;
  /** Whether the request named the redirect URI (the client may omit it when it registered one only). */
  readonly redirectUriGiven: boolean;
  readonly scopes: Scope[];
  readonly state: string | null;
  readonly codeChallenge: string;
  readonly resource: string | null;
}

/** Where the client is sent back to: the redirect URI with the answer's parameters, `state` and `iss` added. */
export function backToClient(redirectUri: string, issuer: string, state: string | null, params: Readonly<Record<string, string>>, status: 302 | 303): CustomReply {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  if (state !== null) url.searchParams.set('state', state);
  url.searchParams.set('iss', issuer);
  return redirectTo(status, url.href);
}

/**
 * Reads an authorization request: the request, or the redirect that refuses it. Throws (shown
 * on the page) when the client or the redirect URI is not right.
 */
export async function readAuthorization(app: AppServices, issuer: string, params: AuthorizeParams, status: 302 | 303): Promise<AuthorizationRequest | CustomReply> {
  if (!params.client_id) throw new ApiError('oauth-invalid-request', 'The authorization request has no client_id.');
  const client = await findClient(app, params.client_id);
  if (client === null) throw new ApiError('oauth-invalid-client', 'No client has this client_id.');
  let redirectUri: string;
  if (params.redirect_uri !== undefined) {
    if (!redirectMatches(client.redirectUris, params.redirect_uri)) throw new ApiError('oauth-invalid-request', 'redirect_uri is not one of the redirect URIs this client registered (they must match exactly).');
    redirectUri = params.redirect_uri;
  } else if (client.redirectUris.length === 1) redirectUri = client.redirectUris[0]!;
  else throw new ApiError('oauth-invalid-request', 'redirect_uri is required: the client registered several.');
  const state = params.state ?? null;
  const refuse = (error: ApiError) => backToClient(redirectUri, issuer, state, { error: oauthError(error), error_description: error.message }, status);
  if (params.response_type !== 'code') return refuse(new ApiError('oauth-unsupported-response-type', 'response_type must be code (the authorization code flow is the only one).'));
  if (params.code_challenge_method !== 'S256') {
    return refuse(new ApiError('oauth-invalid-request', params.code_challenge_method === undefined ? 'PKCE is required: send code_challenge with code_challenge_method=S256.' : 'code_challenge_method must be S256 (plain is refused).'));
  }
  if (params.code_challenge === undefined || !CODE_CHALLENGE.test(params.code_challenge)) {
    return refuse(new ApiError('oauth-invalid-request', 'code_challenge must be the base64url SHA-256 of the code_verifier (43 characters).'));
  }
  let scopes: Scope[];
  try {
    scopes = parseScopes(params.scope);
  } catch (err) {
    return refuse(err as ApiError);
  }
  const resource = params.resource ?? null;
  if (resource !== null && !isOwnResource(issuer, resource)) return refuse(new ApiError('oauth-invalid-target', `resource must be an absolute URL of this server (${issuer}).`));
  return { client, redirectUri, redirectUriGiven: params.redirect_uri !== undefined, scopes, state, codeChallenge: params.code_challenge, resource };
}

/** The signed-in tenant user, who must hold API Admin; otherwise the page says so (401, 403). */
export async function consentingUser(app: AppServices, headers: Readonly<Record<string, string>>): Promise<TenantSession> {
  const session = await signedInUser(app, headers);
  if (!holdsApiAdmin(session.user)) {
    throw new ApiError('api-admin-required', `You are signed in as ${session.user.username}, who does not hold the API Admin permission of this account: only an API administrator can connect applications.`);
  }
  return session;
}

/** The signed-in tenant user, or the page says to sign in (401). */
export async function signedInUser(app: AppServices, headers: Readonly<Record<string, string>>): Promise<TenantSession> {
  const session = await signedInTenantUser(app, headers);
  if (session === null) throw new ApiError('not-signed-in', 'Sign in first: open the login link your account sent you by email in this browser, then come back to this page.');
  return session;
}

/**
 * The CSRF token of the forms of a signed-in browser: a keyed hash of its session secret, so
 * that it works only with that session (and another site, which cannot read the cookie, cannot
 * make it). Empty without a session cookie.
 */
export function csrfToken(headers: Readonly<Record<string, string>>): string {
  const secret = cookieValue(headers['cookie'], TENANT_SESSION_COOKIE);
  return secret === undefined || secret === '' ? '' : createHmac('sha256', secret).update('oauth-forms').digest('base64url');
}

/** Refuses a form whose CSRF token is not this session's (403 `csrf-invalid`). */
export function checkCsrf(headers: Readonly<Record<string, string>>, given: string | undefined): void {
  const expected = Buffer.from(csrfToken(headers));
  const sent = Buffer.from(given ?? '');
  if (expected.length === 0 || sent.length !== expected.length || !timingSafeEqual(sent, expected)) throw new ApiError('csrf-invalid');
}
