/**
 * Login links of tenant users (docs/identity.md): sent by the API through the email outbox,
 * opened in a browser. A link works once, within 30 days, and opens a session (see
 * http/tenant-session.ts). Links and sessions are stored only as hashes of their secrets.
 * Opened by a browser (it accepts text/html), the link lands on a page (http/login-link-landing.ts).
 */
import { TenantKind } from '../../actors/tenant/tenant-actor.js';
import { UserKind, userActorId } from '../../actors/user/protocol.js';
import { LOGIN_LINK_MS, SESSION_MS, USER_TOKENS, type UserTokenDoc } from '../../actors/user/user-tokens.js';
import { userView } from '../../actors/user/user-view.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { hashSecret, newSecret } from '../../engine/ids.js';
import { landingPage, refusedLinkPage, wantsPage } from '../login-link-landing.js';
import { CustomReply, route, type RouteRequest } from '../route.js';
import { reserveEmail, sendReserved } from '../transactional-email.js';
import { sessionCookie, signedInTenantUser } from '../tenant-session.js';
import { link, text } from './page-context.js';

/** The public path of login links: `/auth/login-link/<secret>`. */
export const LOGIN_LINK_PATH = '/auth/login-link';
const SECRET = /^[A-Za-z0-9_-]{43}$/;

/** Opens a session with a login link (once); a browser is answered by a page (http/login-link-landing.ts). */
async function useLoginLink(req: RouteRequest<Record<string, unknown>, undefined>): Promise<Record<string, unknown> | CustomReply> {
  const { app, params, headers } = req;
  if (!SECRET.test(params['secret']!)) throw new ApiError('login-link-invalid');
  const hash = hashSecret(params['secret']!);
  // Whose link: looked up by its hash; the user's actor then uses it once.
  const stored = await app.store.get<UserTokenDoc>(USER_TOKENS, hash);
  if (stored === undefined || stored.type !== 'login-link') throw new ApiError('login-link-invalid');
  const token = newSecret(32);
  const user = await app.system.ask(UserKind, userActorId(stored.tenantId, stored.userId), 'useLoginLink', { hash, sessionHash: hashSecret(token), sessionExpiresAt: clock.now() + SESSION_MS });
  req.setHeader('set-cookie', sessionCookie(app, headers, token));
  if (wantsPage(headers)) return landingPage(req, user.tenantId, user.username, token, stored.redirectURL ?? null);
  return { tenantId: user.tenantId, user: userView(user), redirectURL: stored.redirectURL ?? null };
}

export const tenantSignInRoutes = [
  route<{ redirectURL?: string }, undefined>({
    method: 'POST',
    path: '/api/v1/tenant-users/:id/send-login-link',
    access: 'tenant',
    params: { type: 'object', properties: { id: text(64, 1) }, required: ['id'] },
    query: { type: 'object', properties: { redirectURL: link(2048) } },
    handle: async ({ app, tenantId, params, query }) => {
      const user = await app.system.ask(UserKind, userActorId(tenantId, params['id']!), 'get', null);
      if (user === null || user.kind !== 'tenant' || !user.email) throw new ApiError('not-found', `No tenant user ${params['id']}.`);
      await reserveEmail(app, tenantId);
      const { tenant } = await app.system.ask(TenantKind, tenantId, 'read', null);
      const secret = newSecret(32);
      await app.system.ask(UserKind, userActorId(tenantId, user._id), 'addLoginLink', { hash: hashSecret(secret), expiresAt: clock.now() + LOGIN_LINK_MS, redirectURL: query.redirectURL ?? null });
      const locale = typeof user['locale'] === 'string' ? user['locale'] : null;
      const loginUrl = `${app.email.links.baseUrl}${LOGIN_LINK_PATH}/${secret}`;
      await sendReserved(app, tenantId, user.email, 'tenant-user-login-link', locale, { username: user.username, tenantName: tenant.name, loginUrl });
      return {};
    },
  }),
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: `${LOGIN_LINK_PATH}/:secret`,
    access: 'public',
    params: { type: 'object', properties: { secret: text(64, 1) }, required: ['secret'] },
    handle: (req) => useLoginLink(req).catch((err: unknown) => {
      const page = refusedLinkPage(req, err);
      if (page === undefined) throw err;
      return page;
    }),
  }),
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/auth/tenant-session',
    access: 'public',
    handle: async ({ app, headers }) => {
      const session = await signedInTenantUser(app, headers);
      if (session === null) throw new ApiError('not-signed-in');
      return { tenantId: session.tenantId, user: userView(session.user) };
    },
  }),
  route<Record<string, unknown>, undefined>({
    method: 'POST',
    path: '/auth/sign-out',
    access: 'public',
    handle: async (req) => {
      const { app, headers } = req;
      const session = await signedInTenantUser(app, headers);
      if (session !== null) await app.system.ask(UserKind, userActorId(session.tenantId, session.user._id), 'endSession', { sessionHash: session.sessionHash });
      req.setHeader('set-cookie', sessionCookie(app, headers, null));
      return {};
    },
  }),
];

