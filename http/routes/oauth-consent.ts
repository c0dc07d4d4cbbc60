/**
 * The pages of the authorization server that people use (docs/oauth.md): the consent page of
 * `/oauth/authorize` and the connected apps. The signed-in user is the tenant user of the
 * session a login link opened (http/tenant-session.ts); forms carry the session's CSRF token;
 * pages are never framed.
 */
import { GrantKind } from '../../actors/oauth/grant-protocol.js';
import { grantKey, newToken, parseToken } from '../../actors/oauth/oauth-tokens.js';
import { TenantKind } from '../../actors/tenant/tenant-actor.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { newId } from '../../engine/ids.js';
import { redirectTo } from '../html.js';
import { type AuthorizeParams, AUTHORIZE_FIELDS, backToClient, checkCsrf, consentingUser, csrfToken, readAuthorization, signedInUser } from '../oauth/authorization.js';
import { issuerOf, OAUTH_PATHS } from '../oauth/issuer.js';
import { connectedAppsPage, consentPage } from '../oauth/pages.js';
import { liveGrants } from '../oauth/user-grants.js';
import { route, type Schema } from '../route.js';

const AUTHORIZE_QUERY: Schema = { type: 'object', additionalProperties: true, maxProperties: 40, properties: { ...AUTHORIZE_FIELDS } };
const CONSENT_FORM: Schema = {
  type: 'object',
  additionalProperties: true,
  maxProperties: 40,
  properties: { ...AUTHORIZE_FIELDS, csrf: { type: 'string', maxLength: 100 }, decision: { type: 'string', enum: ['approve', 'deny'] } },
  required: ['decision'],
};
const REVOKE_APP_FORM: Schema = {
  type: 'object',
  properties: { grant_id: { type: 'string', pattern: '^[0-9a-f]{24}$' }, csrf: { type: 'string', maxLength: 100 } },
  required: ['grant_id'],
};
/** Connected apps listed at most. */
const MAX_LISTED = 100;

type ConsentForm = AuthorizeParams & { csrf?: string; decision: 'approve' | 'deny' };

export const oauthConsentRoutes = [
  route<AuthorizeParams, undefined>({
    method: 'GET',
    path: OAUTH_PATHS.authorize,
    access: 'oauth',
    answers: 'page',
    query: AUTHORIZE_QUERY,
    handle: async ({ app, headers, query }) => {
      const request = await readAuthorization(app, issuerOf(app, headers), query, 302);
      if (!('client' in request)) return request;
      const session = await consentingUser(app, headers);
      const { tenant } = await app.system.ask(TenantKind, session.tenantId, 'read', null);
      return consentPage(request, query, { username: session.user.username, tenantName: tenant.name }, csrfToken(headers));
    },
  }),

  route<Record<string, unknown>, ConsentForm>({
    method: 'POST',
    path: OAUTH_PATHS.authorize,
    access: 'oauth',
    answers: 'page',
    form: true,
    body: CONSENT_FORM,
    handle: async ({ app, headers, body }) => {
      const issuer = issuerOf(app, headers);
      const request = await readAuthorization(app, issuer, body, 303);
      if (!('client' in request)) return request;
      const session = await consentingUser(app, headers);
      checkCsrf(headers, body.csrf);
      if (body.decision === 'deny') {
        return backToClient(request.redirectUri, issuer, request.state, { error: 'access_denied', error_description: 'The user denied the authorization.' }, 303);
      }
      const grantId = newId(clock.now());
      const code = newToken('code', session.tenantId, grantId);
      await app.system.ask(GrantKind, grantKey(session.tenantId, grantId), 'create', {
        tenantId: session.tenantId,
        userId: session.user._id,
        clientId: request.client._id,
        clientName: request.client.clientName ?? request.client._id,
        partner: request.client.partner,
        scopes: request.scopes,
        resource: request.resource,
        redirectUri: request.redirectUri,
        redirectUriGiven: request.redirectUriGiven,
        codeChallenge: request.codeChallenge,
        codeHash: parseToken(code)!.hash,
      });
      return backToClient(request.redirectUri, issuer, request.state, { code }, 303);
    },
  }),

  route<{ revoked?: string }, undefined>({
    method: 'GET',
    path: OAUTH_PATHS.connectedApps,
    access: 'oauth',
    answers: 'page',
    query: { type: 'object', additionalProperties: true, properties: { revoked: { type: 'string', maxLength: 10 } } },
    handle: async ({ app, headers, query }) => {
      const session = await signedInUser(app, headers);
      const grants = await liveGrants(app, session.tenantId, session.user._id, MAX_LISTED);
      return connectedAppsPage(grants, session.user, csrfToken(headers), query.revoked === '1' ? 'The application was disconnected.' : null);
    },
  }),

  route<Record<string, unknown>, { grant_id: string; csrf?: string }>({
    method: 'POST',
    path: OAUTH_PATHS.revokeApp,
    access: 'oauth',
    answers: 'page',
    form: true,
    body: REVOKE_APP_FORM,
    handle: async ({ app, headers, body }) => {
      const session = await signedInUser(app, headers);
      checkCsrf(headers, body.csrf);
      const revoked = await app.system.ask(GrantKind, grantKey(session.tenantId, body.grant_id), 'revoke', { userId: session.user._id });
      if (!revoked) throw new ApiError('not-found', 'You have no connected application with this id.');
      return redirectTo(303, `${OAUTH_PATHS.connectedApps}?revoked=1`);
    },
  }),
];
