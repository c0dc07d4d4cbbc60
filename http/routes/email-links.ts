import { EmailOutboxKind, EmailVerifyKind, emailVerifyId } from '../../actors/email/protocol.js';
import { SlidingWindowLimit } from '../../actors/poll/vote-rate-limit.js';
import { ApiError } from '../../engine/errors.js';
import type { AppServices } from '../services.js';
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

/** Link openings one client address may make per minute (a reader opens one or two). */
export const LINK_RATE_LIMIT = { openings: 30, windowMs: 60_000 } as const;

const limits = new WeakMap<AppServices, SlidingWindowLimit>();

/** Counts an opening from `ip`, or refuses it with `rate-limited`. */
function admitOpening(app: AppServices, ip: string): void {
  let limit = limits.get(app);
  if (limit === undefined) limits.set(app, (limit = new SlidingWindowLimit(LINK_RATE_LIMIT.openings, LINK_RATE_LIMIT.windowMs)));
  const now = clock.now();
  if (!limit.allows(ip, now)) throw new ApiError('rate-limited', `At most ${LINK_RATE_LIMIT.openings} email links per minute from one address.`);
  limit.record(ip, now);
}

interface UnsubscribeQuery {
  tenantId: string;
  email: string;
  sig: string;
}

/**
 * The links emails carry, opened by their readers (no key, no credits): each is signed, and
 * anything not signed by this server is refused with `invalid-link` before any actor is asked.
 * Openings are limited per client address.
 */
export const emailLinkRoutes = [
  route<{ tenantId: string; userId: string; exp: string; sig: string }, undefined>({
    method: 'GET',
    path: LINK_PATHS.verify,
    access: 'public',
    query: VERIFY_QUERY,
    handle: async ({ app, query, ip }) => {
      admitOpening(app, ip);
      app.email.links.checkVerify(query.tenantId, query.userId, query.exp, query.sig, clock.now());
      return app.system.ask(EmailVerifyKind, emailVerifyId(query.tenantId, query.userId), 'verify', null);
    },
  }),
  route<UnsubscribeQuery, undefined>({
    method: 'GET',
    path: LINK_PATHS.unsubscribe,
    access: 'public',
    query: UNSUBSCRIBE_QUERY,
    handle: async ({ app, query, ip }) => {
      admitOpening(app, ip);
      app.email.links.checkUnsubscribe(query.tenantId, query.email, query.sig);
      await app.system.ask(EmailOutboxKind, query.tenantId, 'unsubscribe', { email: query.email });
      return { unsubscribed: true };
    },
  }),
];
