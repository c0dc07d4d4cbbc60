/**
 * OAuth clients (docs/oauth.md): the metadata of RFC 7591 checked as pure functions, shared by
 * dynamic registration, the operator's command and client metadata documents. A client's
 * secret is shown once and stored only as its SHA-256.
 */
import { ApiError } from '../../engine/errors.js';
import { hashSecret, newSecret } from '../../engine/ids.js';
import type { Doc } from '../../storage/store.js';
import { hasUnsafeCharacters, isHttpUrl } from '../text-rules.js';
import { parseScopes } from './grant-rules.js';

/** How a client authenticates at the token endpoint: `none` for public clients. */
export const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];

/** A client as stored (registered ones) or as fetched (metadata documents). */
export interface ClientDoc extends Doc {
  /** `_id` is the `client_id`. */
  clientName: string | null;
  clientUri: string | null;
  logoUri: string | null;
  redirectUris: string[];
  tokenEndpointAuthMethod: AuthMethod;
  /** SHA-256 of the secret; null for public clients. */
  secretHash: string | null;
  /** Registered by the operator: refresh tokens are extended rather than rotated. */
  partner: boolean;
  /** ms since 1970. */
  createdAt: number;
}

/** The metadata a client may set. */
export type ClientMetadata = Pick<ClientDoc, 'clientName' | 'clientUri' | 'logoUri' | 'redirectUris' | 'tokenEndpointAuthMethod'>;

/** Redirect URIs one client may register. */
export const MAX_REDIRECT_URIS = 10;
const MAX_URL = 2000;
const MAX_NAME = 200;
const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);
/** Schemes no redirect may use, private-use or not. */
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'about:', 'blob:', 'filesystem:', 'ws:', 'wss:', 'ftp:']);

/**
 * A redirect URI a client may register (RFC 8252, OAuth 2.1): an https URL; an http URL of a
 * loopback host (native apps); or a private-use scheme of a native app, which holds a dot
 * (`com.example.app:/callback`). Never a fragment or credentials.
 */
export function checkRedirectUri(raw: unknown): string {
  const bad = (why: string) => new ApiError('oauth-invalid-redirect-uri', `Redirect URI ${JSON.stringify(String(raw).slice(0, 100))}: ${why}`);
  if (typeof raw !== 'string' || raw === '' || raw.length > MAX_URL || hasUnsafeCharacters(raw) || raw.trim() !== raw) throw bad('not a URL of at most 2000 characters.');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad('not an absolute URL.');
  }
  if (raw.includes('#')) throw bad('a redirect URI may not have a fragment.');
  if (url.username !== '' || url.password !== '') throw bad('a redirect URI may not hold credentials.');
  if (url.protocol === 'https:') {
    if (url.hostname === '') throw bad('no host.');
    return raw;
  }
  if (url.protocol === 'http:') {
    if (!LOOPBACK.has(url.hostname)) throw bad('http is allowed only for loopback addresses (127.0.0.1, [::1], localhost); use https.');
    return raw;
  }
  if (FORBIDDEN_SCHEMES.has(url.protocol) || !url.protocol.slice(0, -1).includes('.')) {
    throw bad('the scheme must be https, http on a loopback address, or a private-use scheme in reverse domain form (com.example.app:).');
  }
  return raw;
}

/**
 * Whether `given` is one of the client's registered redirect URIs: exactly, except that an http
 * loopback IP redirect may name any port (RFC 8252 §7.3; native apps get a port at run time).
 */
export function redirectMatches(registered: readonly string[], given: string): boolean {
  if (registered.includes(given)) return true;
  const loose = loopbackWithoutPort(given);
  return loose !== undefined && registered.some((r) => loopbackWithoutPort(r) === loose);
}

function loopbackWithoutPort(raw: string): string | undefined {
  if (!raw.startsWith('http://127.0.0.1') && !raw.startsWith('http://[::1]')) return undefined;
  try {
    const url = new URL(raw);
    if (url.hostname !== '127.0.0.1' && url.hostname !== '[::1]') return undefined;
    url.port = '';
    return url.href;
  } catch {
    return undefined;
  }
}

function optionalUrl(input: Readonly<Record<string, unknown>>, field: string): string | null {
  const value = input[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > MAX_URL || !isHttpUrl(value)) throw new ApiError('oauth-invalid-client-metadata', `${field} must be an http(s) URL of at most ${MAX_URL} characters.`);
  return value;
}

function listOf(input: Readonly<Record<string, unknown>>, field: string, allowed: readonly string[]): void {
  const value = input[field];
  if (value === undefined) return;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || !allowed.includes(v))) {
    throw new ApiError('oauth-invalid-client-metadata', `${field} may hold only ${allowed.join(', ')}.`);
  }
}

/**
 * The metadata of a registration request or a metadata document (RFC 7591 names). Fields this
 * server does not use are ignored, as the RFC asks; those it uses must be valid. `defaultAuth`
 * is the method when none is named (RFC 7591: `client_secret_basic`).
 */
export function clientMetadata(input: Readonly<Record<string, unknown>>, defaultAuth: AuthMethod = 'client_secret_basic'): ClientMetadata {
  const uris = input['redirect_uris'];
  if (!Array.isArray(uris) || uris.length === 0) throw new ApiError('oauth-invalid-redirect-uri', 'redirect_uris must list at least one redirect URI.');
  if (uris.length > MAX_REDIRECT_URIS) throw new ApiError('oauth-invalid-redirect-uri', `At most ${MAX_REDIRECT_URIS} redirect URIs.`);
  const redirectUris = [...new Set(uris.map(checkRedirectUri))];
  const name = input['client_name'];
  if (name !== undefined && name !== null && (typeof name !== 'string' || name.length > MAX_NAME || hasUnsafeCharacters(name))) {
    throw new ApiError('oauth-invalid-client-metadata', `client_name must be text of at most ${MAX_NAME} characters.`);
  }
  const method = input['token_endpoint_auth_method'] ?? defaultAuth;
  if (typeof method !== 'string' || !(AUTH_METHODS as readonly string[]).includes(method)) {
    throw new ApiError('oauth-invalid-client-metadata', `token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}.`);
  }
  listOf(input, 'grant_types', ['authorization_code', 'refresh_token']);
  listOf(input, 'response_types', ['code']);
  const scope = input['scope'];
  if (scope !== undefined) {
    try {
      if (typeof scope !== 'string') throw new ApiError('oauth-invalid-scope');
      parseScopes(scope);
    } catch {
      throw new ApiError('oauth-invalid-client-metadata', 'scope may hold only read and write.');
    }
  }
  return {
    clientName: typeof name === 'string' && name.trim() !== '' ? name.trim() : null,
    clientUri: optionalUrl(input, 'client_uri'),
    logoUri: optionalUrl(input, 'logo_uri'),
    redirectUris,
    tokenEndpointAuthMethod: method as AuthMethod,
  };
}

/** A new registered client and its secret (null for a public client): the secret is shown once. */
export function newClient(metadata: ClientMetadata, partner: boolean, now: number): { client: ClientDoc; secret: string | null } {
  const secret = metadata.tokenEndpointAuthMethod === 'none' ? null : newSecret(32);
  const client: ClientDoc = { _id: `fcc_${newSecret(18)}`, ...metadata, redirectUris: [...metadata.redirectUris], secretHash: secret === null ? null : hashSecret(secret), partner, createdAt: now };
  return { client, secret };
}

/** The registration answer (RFC 7591 §3.2.1). */
export function registrationAnswer(client: ClientDoc, secret: string | null): Record<string, unknown> {
  return {
    client_id: client._id,
    client_id_issued_at: Math.floor(client.createdAt / 1000),
    ...(secret === null ? {} : { client_secret: secret, client_secret_expires_at: 0 }),
    client_name: client.clientName ?? undefined,
    client_uri: client.clientUri ?? undefined,
    logo_uri: client.logoUri ?? undefined,
    redirect_uris: client.redirectUris,
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    scope: 'read write',
  };
}
