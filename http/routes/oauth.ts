/**
 * The endpoints of the OAuth 2.1 authorization server that clients call (docs/oauth.md):
 * metadata (RFC 8414), dynamic registration (RFC 7591), the token endpoint (authorization code
 * with PKCE, refresh) and revocation (RFC 7009). Refusals are RFC 6749 `{error,
 * error_description}`; no credential, no credits; every request spends the client's public
 * request budget, and registrations their own.
 */
import { ClientKind } from '../../actors/oauth/client-actor.js';
import { clientMetadata, newClient, registrationAnswer } from '../../actors/oauth/client-model.js';
import { GrantKind, type TokenOutcome } from '../../actors/oauth/grant-protocol.js';
import { CODE_VERIFIER, parseScopes, scopeText } from '../../actors/oauth/grant-rules.js';
import { parseToken } from '../../actors/oauth/oauth-tokens.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { limitKey } from '../client-address.js';
import { CustomReply, route, type RouteRequest, type Schema } from '../route.js';
import { authenticateClient } from '../oauth/clients.js';
import { isOwnResource, issuerOf, OAUTH_PATHS, serverMetadata } from '../oauth/issuer.js';

const field = (maxLength: number): Schema => ({ type: 'string', maxLength });

interface TokenForm {
  grant_type?: string;
  code?: string;
  redirect_uri?: string;
  code_verifier?: string;
  refresh_token?: string;
  scope?: string;
  resource?: string;
  client_id?: string;
  client_secret?: string;
}

interface RevokeForm {
  token?: string;
  token_type_hint?: string;
  client_id?: string;
  client_secret?: string;
}

/** Form fields: text, bounded; unknown ones ignored (RFC 6749 §3.2), repeated ones refused. */
const CLIENT_FIELDS = { client_id: field(2000), client_secret: field(200) };
const TOKEN_FORM: Schema = {
  type: 'object',
  additionalProperties: true,
  maxProperties: 40,
  properties: { grant_type: field(64), code: field(256), redirect_uri: field(2000), code_verifier: field(256), refresh_token: field(256), scope: field(200), resource: field(2000), ...CLIENT_FIELDS },
};
const REVOKE_FORM: Schema = { type: 'object', additionalProperties: true, maxProperties: 40, properties: { token: field(4096), token_type_hint: field(64), ...CLIENT_FIELDS } };
/** RFC 7591 metadata: the fields used are checked by `clientMetadata`, the others ignored. */
const REGISTRATION: Schema = { type: 'object', additionalProperties: true, maxProperties: 50 };

/** Token answers are never cached (RFC 6749 §5.1). */
function noStore(req: RouteRequest<unknown, unknown>): void {
  req.setHeader('cache-control', 'no-store');
  req.setHeader('pragma', 'no-cache');
}

function tokenAnswer(outcome: TokenOutcome): Record<string, unknown> {
  if (!outcome.ok) throw new ApiError(outcome.code, outcome.reason);
  const { tokens } = outcome;
  return { access_token: tokens.accessToken, token_type: 'bearer', expires_in: tokens.expiresIn, refresh_token: tokens.refreshToken, scope: scopeText(tokens.scopes) };
}

function required(value: string | undefined, name: string): string {
  if (value === undefined || value === '') throw new ApiError('oauth-invalid-request', `${name} is required.`);
  return value;
}

export const oauthRoutes = [
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: OAUTH_PATHS.metadata,
    access: 'oauth',
    answers: 'oauth',
    cors: 'anyone',
    handle: ({ app, headers }) => serverMetadata(issuerOf(app, headers)),
  }),

  route<Record<string, unknown>, Record<string, unknown>>({
    method: 'POST',
    path: OAUTH_PATHS.register,
    access: 'oauth',
    answers: 'oauth',
    cors: 'anyone',
    body: REGISTRATION,
    handle: async (req) => {
      const { app, body } = req;
      app.limits.registrations.spend(limitKey(req.ip), 'client registrations');
      const { client, secret } = newClient(clientMetadata(body), false, clock.now());
      await app.system.ask(ClientKind, client._id, 'register', { client });
      return new CustomReply(201, JSON.stringify(registrationAnswer(client, secret)), 'application/json; charset=utf-8', [['cache-control', 'no-store']]);
    },
  }),

  route<Record<string, unknown>, TokenForm>({
    method: 'POST',
    path: OAUTH_PATHS.token,
    access: 'oauth',
    answers: 'oauth',
    cors: 'anyone',
    form: true,
    body: TOKEN_FORM,
    handle: async (req) => {
      const { app, body, headers } = req;
      noStore(req);
      const grantType = required(body.grant_type, 'grant_type');
      if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
        throw new ApiError('oauth-unsupported-grant-type', `grant_type ${grantType.slice(0, 64)} is not supported: use authorization_code or refresh_token.`);
      }
      const client = await authenticateClient(app, headers, body, (name, value) => req.setHeader(name, value));
      const resource = body.resource ?? null;
      if (resource !== null && !isOwnResource(issuerOf(app, headers), resource)) throw new ApiError('oauth-invalid-target', 'resource must be an absolute URL of this server.');
      if (grantType === 'authorization_code') {
        const code = parseToken(required(body.code, 'code'));
        const verifier = required(body.code_verifier, 'code_verifier (PKCE)');
        if (!CODE_VERIFIER.test(verifier)) throw new ApiError('oauth-invalid-request', 'code_verifier must be 43 to 128 unreserved characters.');
        if (code === undefined || code.kind !== 'code') throw new ApiError('oauth-invalid-grant', 'The authorization code is not valid.');
        const outcome = await app.system.ask(GrantKind, code.grantKey, 'exchange', { codeHash: code.hash, clientId: client._id, redirectUri: body.redirect_uri ?? null, verifier, resource });
        return tokenAnswer(outcome);
      }
      const token = required(body.refresh_token, 'refresh_token');
      const scopes = body.scope === undefined ? null : parseScopes(body.scope);
      const ref = parseToken(token);
      if (ref === undefined || ref.kind !== 'refresh') throw new ApiError('oauth-invalid-grant', 'The refresh token is not valid.');
      return tokenAnswer(await app.system.ask(GrantKind, ref.grantKey, 'refresh', { token, clientId: client._id, scopes, resource }));
    },
  }),

  route<Record<string, unknown>, RevokeForm>({
    method: 'POST',
    path: OAUTH_PATHS.revoke,
    access: 'oauth',
    answers: 'oauth',
    cors: 'anyone',
    form: true,
    body: REVOKE_FORM,
    handle: async (req) => {
      const { app, body, headers } = req;
      const token = required(body.token, 'token');
      const client = await authenticateClient(app, headers, body, (name, value) => req.setHeader(name, value));
      const ref = parseToken(token);
      // Codes are not revoked here (RFC 7009 covers access and refresh tokens); unknown tokens are answered alike.
      if (ref !== undefined && ref.kind !== 'code') await app.system.ask(GrantKind, ref.grantKey, 'revokeToken', { hash: ref.hash, clientId: client._id });
      return {};
    },
  }),
];
