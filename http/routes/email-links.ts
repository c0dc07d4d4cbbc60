import { EmailOutboxKind, EmailVerifyKind, emailVerifyId } from '../../actors/email/protocol.js';
import { LINK_PATHS } from '../../email/links.js';
import { clock } from '../../engine/clock.js';
import { route, type Schema } from '../route.js';
import { text } from './page-context.js';

const SIG = text(100, 1);
const VERIFY_QUERY: Schema = {
  type: 'object',
  properties: { tenantId: text(64, 1), userId: text(256, 1), exp: text(20, 1), sig: SIG },
  required: ['tenantId', 'userId', 'exp', 'sig'],
};
const UNSUBSCRIBE_QUERY: Schema = {
  type: 'object',
  properties: { tenantId: text(64, 1), email: text(1000, 1), sig: SIG },
  required: ['tenantId', 'email', 'sig'],
};

interface UnsubscribeQuery {
  tenantId: string;
  email: string;
  sig: string;
}

/**
 * The links emails carry, opened by their readers (no key, no credits): each is signed, and
 * anything not signed by this server is refused with `invalid-link` before any actor is asked.
 * Openings are limited per client address like every public route (the pipeline's limits).
 */
export const emailLinkRoutes = [
  route<{ tenantId: string; userId: string; exp: string; sig: string }, undefined>({
    method: 'GET',
    path: LINK_PATHS.verify,
    access: 'public',
    query: VERIFY_QUERY,
    handle: async ({ app, query }) => {
      app.email.links.checkVerify(query.tenantId, query.userId, query.exp, query.sig, clock.now());
      return app.system.ask(EmailVerifyKind, emailVerifyId(query.tenantId, query.userId), 'verify', null);
    },
  }),
  route<UnsubscribeQuery, undefined>({
    method: 'GET',
    path: LINK_PATHS.unsubscribe,
    access: 'public',
    query: UNSUBSCRIBE_QUERY,
    handle: async ({ app, query }) => {
      app.email.links.checkUnsubscribe(query.tenantId, query.email, query.sig);
      await app.system.ask(EmailOutboxKind, query.tenantId, 'unsubscribe', { email: query.email });
      return { unsubscribed: true };
    },
  }),
];
