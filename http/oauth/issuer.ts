/**
 * The issuer identifier of the authorization server and its metadata (RFC 8414). The issuer is
 * `PUBLIC_URL` when set (set it in production: it must be the URL clients reach); otherwise it
 * is taken from the request (`Host`, and `https` behind a trusted proxy that says so).
 */
import { SCOPES } from '../../actors/oauth/token-store.js';
import { AUTH_METHODS } from '../../actors/oauth/client-model.js';
import { forwardedProto } from '../client-address.js';
import type { AppServices } from '../services.js';

/** The paths of the authorization server. */
export const OAUTH_PATHS = {
  metadata: '/.well-known/oauth-authorization-server',
  register: '/oauth/register',
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  revoke: '/oauth/revoke',
  connectedApps: '/oauth/connected-apps',
  revokeApp: '/oauth/connected-apps/revoke',
} as const;

const HOST = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/** The issuer identifier: an https (or http) URL without a trailing slash. */
export function issuerOf(app: AppServices, headers: Readonly<Record<string, string>>): string {
  if (app.config.publicUrl !== undefined) return app.config.publicUrl.replace(/\/+$/, '');
  const host = headers['host'];
  const scheme = app.config.trustProxy && forwardedProto(headers) === 'https' ? 'https' : 'http';
  return `${scheme}://${host !== undefined && HOST.test(host) ? host : 'localhost'}`;
}

/** The authorization server metadata document. */
export function serverMetadata(issuer: string): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: issuer + OAUTH_PATHS.authorize,
    token_endpoint: issuer + OAUTH_PATHS.token,
    revocation_endpoint: issuer + OAUTH_PATHS.revoke,
    registration_endpoint: issuer + OAUTH_PATHS.register,
    scopes_supported: [...SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: [...AUTH_METHODS],
    revocation_endpoint_auth_methods_supported: [...AUTH_METHODS],
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
  };
}

/**
 * Whether `resource` (RFC 8707) names this server: an absolute URL without a fragment, the
 * issuer itself or under it.
 */
export function isOwnResource(issuer: string, resource: string): boolean {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return false;
  }
  if (resource.includes('#')) return false;
  const base = new URL(issuer);
  const basePath = base.pathname.endsWith('/') ? base.pathname : `${base.pathname}/`;
  return url.origin === base.origin && `${url.pathname}/`.startsWith(basePath);
}
