/**
 * Who a reader of a public route is: the single sign-on user of its `sso` parameter, else the
 * anonymous session (cookie). One key per reader for what readers own (reactions, posts):
 * `u:<userId>` or `a:<session>`.
 */
import type { UserDoc } from '../actors/user/protocol.js';
import { anonSession } from './anon-session.js';
import type { RouteRequest } from './route.js';
import { ssoUser } from './sso.js';

/** A reader of a public route. */
export interface Reader {
  /** `u:<userId>` or `a:<anonymous session>`. */
  readonly key: string;
  /** The SSO user, if any. */
  readonly user: UserDoc | null;
  /** Whether the user's payload was signed (secure SSO). */
  readonly secure: boolean;
}

/** Identifies the reader of a request to a public route of `tenantId` (`urlId`: the page, for page-scoped badges). */
export async function identifyReader(req: RouteRequest<{ sso?: string }, unknown>, tenantId: string, urlId: string | null = null): Promise<Reader> {
  const sso = await ssoUser(req.app, tenantId, req.query.sso, urlId);
  if (sso !== undefined) return { key: `u:${sso.user._id}`, user: sso.user, secure: sso.secure };
  return { key: `a:${anonSession(req)}`, user: null, secure: false };
}
