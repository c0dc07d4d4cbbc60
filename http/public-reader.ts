/**
 * The reader of the account, presence, page-list and activity routes, in the form those routes
 * use. Identity itself is decided in one place, `http/public/reader.ts`: the same `sso`
 * forms, the same `sessionId` parameter and `fc_anon` cookie, and the same public anonymous id
 * (`anonUserId`, a hash of the session bound to the tenant), so a reader who posts a comment
 * is the reader whose notifications, votes and feed reactions these routes find.
 */
import type { UserDoc } from '../actors/user/protocol.js';
import { recipientKey } from '../actors/notify/notification-doc.js';
import { tenantSettings } from '../actors/tenant/tenant-actor.js';
import { ensureSession, type ReaderQuery, resolveReader } from './public/reader.js';
import type { RouteRequest } from './route.js';
import { assertSiteAllowed, requestSite } from './site-check.js';

/** The reader of a public request. */
export interface PublicReader {
  readonly tenantId: string;
  /** The signed-on user's id, or null for an anonymous reader. */
  readonly userId: string | null;
  /** The reader's public anonymous id (`anonUserId`), or null (a signed-on reader, or a reader without a session). */
  readonly anonId: string | null;
  /** The signed-on user. */
  readonly user: UserDoc | null;
  /** Whether the user's payload was signed (secure SSO). */
  readonly secure: boolean;
}

/** The reader's key in notification and subscription documents (`u:`/`a:`), or null without identity. */
export function readerRecipient(reader: PublicReader): string | null {
  if (reader.userId === null && reader.anonId === null) return null;
  return recipientKey({ userId: reader.userId, anonUserId: reader.anonId });
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
export async function publicReader(req: RouteRequest<ReaderQuery, unknown>, tenantId: string, options: { start?: boolean; urlId?: string | null } = {}): Promise<PublicReader> {
  let reader = await resolveReader(req, tenantId, options.urlId ?? null);
  if (options.start === true) reader = ensureSession(req, reader);
  return { tenantId, userId: reader.userId, anonId: reader.anonUserId, user: reader.sso?.user ?? null, secure: reader.sso?.secure === true };
}
