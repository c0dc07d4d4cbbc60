/**
 * The reader of the feed's public routes, in the form those routes use: one key per reader for
 * what readers own (reactions, posts), `u:<userId>` or `a:<anonUserId>`. Identity itself is
 * decided in one place, `http/public/reader.ts` (the `sso` forms, the `sessionId` parameter and
 * the `fc_anon` cookie), so a reader reacting to a feed post is the reader who posts comments.
 */
import type { UserDoc } from '../actors/user/protocol.js';
import { ensureSession, type ReaderQuery, readerKey, resolveReader } from './public/reader.js';
import type { RouteRequest } from './route.js';

/** A reader of a public route. */
export interface Reader {
  /** `u:<userId>` or `a:<anonUserId>`; null for an anonymous reader without a session (reads only). */
  readonly key: string | null;
  /** The SSO user, if any. */
  readonly user: UserDoc | null;
  /** Whether the user's payload was signed (secure SSO). */
  readonly secure: boolean;
}

/**
 * Identifies the reader of a request to a public route of `tenantId` (`urlId`: the page, for
 * page-scoped badges). With `start` (a write), an anonymous reader without a session is given one.
 */
export async function identifyReader(req: RouteRequest<ReaderQuery, unknown>, tenantId: string, urlId: string | null = null, options: { start?: boolean } = {}): Promise<Reader> {
  let reader = await resolveReader(req, tenantId, urlId);
  if (options.start === true) reader = ensureSession(req, reader);
  return { key: readerKey(reader), user: reader.sso?.user ?? null, secure: reader.sso?.secure === true };
}
