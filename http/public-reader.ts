/**
 * Who a public (widget) request acts for: the one place the reader's account routes, presence
 * and the live channel's user lookups resolve identity, so that one function decides it.
 *
 * - An `sso` parameter naming a user (secure or simple single sign-on, `http/sso.ts`) wins.
 *   A payload that names nobody (a signed-out reader: `userDataJSONBase64` null or empty, or a
 *   simple payload holding only `loginURL`/`logoutURL`) means an anonymous reader. The
 *   `{simpleSSOUser: {...}}` form of some clients is read as the flat form.
 * - Otherwise the anonymous session: the `sessionId` query parameter (for browsers that block
 *   third-party cookies), else the `fc_anon` cookie (`http/anon-session.ts`). Readers without
 *   either have no session; routes that must remember something for them start one (a cookie).
 */
import type { UserDoc } from '../actors/user/protocol.js';
import { recipientKey } from '../actors/notify/notification-doc.js';
import { ApiError } from '../engine/errors.js';
import { ANON_COOKIE, anonSession, cookieValue } from './anon-session.js';
import type { RouteRequest } from './route.js';
import { assertSiteAllowed, requestSite } from './site-check.js';
import { tenantSettings } from '../actors/tenant/tenant-actor.js';
import { ssoUser } from './sso.js';

/** The reader of a public request. */
export interface PublicReader {
  readonly tenantId: string;
  /** The signed-on user's id, or null for an anonymous reader. */
  readonly userId: string | null;
  /** The anonymous session id, or null (a signed-on reader, or a reader without a session). */
  readonly anonId: string | null;
  /** The signed-on user. */
  readonly user: UserDoc | null;
  /** Whether the user's payload was signed (secure SSO). */
  readonly secure: boolean;
}

const SESSION_ID = /^[A-Za-z0-9_-]{22}$/;
const SSO_KEYS = ['userDataJSONBase64', 'verificationHash', 'simpleSSOUser', 'email', 'username'] as const;

/** The reader's key in notification and subscription documents (`u:`/`a:`), or null without identity. */
export function readerRecipient(reader: PublicReader): string | null {
  if (reader.userId === null && reader.anonId === null) return null;
  return recipientKey({ userId: reader.userId, anonUserId: reader.anonId });
}

/** The `sso` text that names a user, or undefined for a payload naming nobody. */
function namingPayload(raw: string | undefined): string | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return raw; // ssoUser refuses it with its reason.
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return raw;
  const sso = parsed as Record<string, unknown>;
  if ('userDataJSONBase64' in sso && (sso['userDataJSONBase64'] === null || sso['userDataJSONBase64'] === '')) return undefined;
  const nested = sso['simpleSSOUser'];
  if (typeof nested === 'object' && nested !== null && !Array.isArray(nested)) return JSON.stringify(nested);
  if (!SSO_KEYS.some((key) => sso[key] !== undefined && sso[key] !== null && sso[key] !== '')) return undefined;
  return raw;
}

/**
 * Checks the site of a browser request to a route that names its tenant in the query (routes
 * naming it in the path are checked at the door, `http/public-access.ts`), and that the
 * tenant exists (`invalid-tenant-id`).
 */
export async function admitTenant(req: RouteRequest<unknown, unknown>, tenantId: string): Promise<void> {
  const settings = await tenantSettings(req.app.system, tenantId, null);
  assertSiteAllowed(settings.allowedDomains, requestSite(req.headers));
}

/**
 * The reader of a request to `tenantId`. With `start`, an anonymous reader without a session
 * is given one (a cookie, counted against the client's budget of new sessions).
 */
export async function publicReader(req: RouteRequest<{ sso?: string; sessionId?: string }, unknown>, tenantId: string, options: { start?: boolean } = {}): Promise<PublicReader> {
  const payload = namingPayload(req.query.sso);
  if (payload !== undefined) {
    const sso = await ssoUser(req.app, tenantId, payload);
    if (sso !== undefined) return { tenantId, userId: sso.user._id, anonId: null, user: sso.user, secure: sso.secure };
  }
  const given = req.query.sessionId;
  if (given !== undefined && given !== '' && !SESSION_ID.test(given)) throw new ApiError('invalid-param', 'sessionId is not a session id this server issued.');
  const cookie = cookieValue(req.headers['cookie'], ANON_COOKIE);
  const anonId = given || (cookie !== undefined && SESSION_ID.test(cookie) ? cookie : undefined) || (options.start ? anonSession(req) : null);
  return { tenantId, userId: null, anonId, user: null, secure: false };
}
