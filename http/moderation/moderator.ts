/**
 * Who may call the moderation routes (docs/moderation.md, "Who may moderate"): a tenant user
 * signed in by login link with the administrator or comment-moderator permission, or who is an
 * accepted moderator of the tenant; a secure single sign-on user with `isAdmin`, `isModerator`
 * or `isCommentModeratorAdmin`. An accepted moderator with moderation groups sees only the
 * comments of those groups. Anyone else is refused: 401 `not-signed-in` without a credential,
 * 403 `moderation-forbidden` with one that may not moderate this tenant.
 */
import { ModeratorsKind } from '../../actors/moderator/protocol.js';
import { ApiError } from '../../engine/errors.js';
import { resolveReader } from '../public/reader.js';
import type { RouteRequest, Schema } from '../route.js';
import { signedInTenantUser } from '../tenant-session.js';

/** The identity parameters every moderation route takes. */
export interface ModeratorQuery {
  readonly tenantId?: string;
  readonly sso?: string;
}

/** Query properties of every moderation route. */
export const MODERATOR_QUERY_PROPS: Record<string, Schema> = {
  tenantId: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
  sso: { type: 'string', maxLength: 16384 },
};

/** The caller of a moderation route. */
export interface Moderator {
  readonly tenantId: string;
  readonly userId: string;
  readonly username: string;
  /** Null: every comment of the tenant; else only comments in one of these groups. */
  readonly groups: readonly string[] | null;
}

const ADMIN_FLAGS = ['isAccountOwner', 'isAdminAdmin', 'isCommentModeratorAdmin'] as const;

/** The `isCommentModeratorAdmin` of a secure SSO payload (already verified by `resolveReader`). */
function ssoCommentModeratorAdmin(raw: string): boolean {
  try {
    const outer = JSON.parse(raw) as Record<string, unknown>;
    const data = JSON.parse(Buffer.from(String(outer['userDataJSONBase64'] ?? ''), 'base64').toString('utf8')) as Record<string, unknown>;
    return data['isCommentModeratorAdmin'] === true;
  } catch {
    return false;
  }
}

/** Resolves the moderator calling, or refuses. */
export async function requireModerator(req: RouteRequest<ModeratorQuery, unknown>): Promise<Moderator> {
  const { app, query } = req;
  if (query.sso !== undefined && query.sso !== '') {
    if (query.tenantId === undefined) throw new ApiError('missing-tenant-id', 'Moderating by single sign-on needs the tenantId parameter.');
    const reader = await resolveReader(req as RouteRequest<{ sso?: string }, unknown>, query.tenantId);
    const sso = reader.sso;
    if (sso === undefined) throw new ApiError('not-signed-in');
    if (!sso.secure || !(reader.isModerator || ssoCommentModeratorAdmin(query.sso))) throw new ApiError('moderation-forbidden');
    return { tenantId: query.tenantId, userId: sso.user._id, username: sso.user.username, groups: null };
  }
  const session = await signedInTenantUser(app, req.headers);
  if (session === null) throw new ApiError('not-signed-in');
  if (query.tenantId !== undefined && query.tenantId !== session.tenantId) throw new ApiError('moderation-forbidden');
  const user = session.user as unknown as Record<string, unknown>;
  const base = { tenantId: session.tenantId, userId: session.user._id, username: session.user.username };
  if (ADMIN_FLAGS.some((flag) => user[flag] === true)) return { ...base, groups: null };
  const moderators = await app.system.ask(ModeratorsKind, session.tenantId, 'list', { skip: 0, limit: 100_000 });
  const email = session.user.email?.toLowerCase() ?? null;
  const mine = moderators.filter((m) => m.acceptedInvite && (m.userId === session.user._id || (email !== null && m.email === email)));
  if (mine.length === 0) throw new ApiError('moderation-forbidden');
  if (mine.some((m) => !m.moderationGroupIds || m.moderationGroupIds.length === 0)) return { ...base, groups: null };
  return { ...base, groups: [...new Set(mine.flatMap((m) => m.moderationGroupIds ?? []))] };
}

/** Whether the moderator may see a comment (its moderation groups meet the moderator's). */
export function maySee(moderator: Moderator, comment: Readonly<Record<string, unknown>>): boolean {
  if (moderator.groups === null) return true;
  const groups = comment['moderationGroupIds'];
  return Array.isArray(groups) && groups.some((g) => moderator.groups!.includes(g as string));
}
