/**
 * Reaching one comment from a widget route, and deciding whether the reader may manage it: the
 * rules every public comment action shares (docs/public-api.md, "Ownership").
 */
import { editKeyMatches } from '../../actors/page/edit-key.js';
import { pageLocator } from '../../actors/page/locator.js';
import { TenantKind, tenantSettings } from '../../actors/tenant/tenant-actor.js';
import type { Settings } from '../../actors/tenant/widget-config.js';
import { ApiError } from '../../engine/errors.js';
import type { RouteRequest, Schema } from '../route.js';
import type { AppServices } from '../services.js';
import type { Reader } from './reader.js';

/** The `:tenantId` of widget paths. */
export const TENANT_ID: Schema = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' };
/** A comment or vote id in a widget path or query. */
export const OBJECT_ID: Schema = { type: 'string', minLength: 1, maxLength: 128 };
/** A client's `broadcastId` (any UUID-like text). */
export const BROADCAST_ID: Schema = { type: 'string', maxLength: 64 };

/** The "no such comment" refusal (another tenant's ids get it too). */
export const commentNotFound = (id: string) => () => new ApiError('not-found', `No comment ${id}.`);

/** A comment of the tenant as the API views it, with the page it is on and that page's settings. */
export interface FoundComment {
  readonly urlId: string;
  readonly view: Readonly<Record<string, unknown>>;
  readonly settings: Settings;
}

/** Finds a comment of the tenant (404 `not-found` otherwise, whatever other tenant holds the id). */
export async function findComment(app: AppServices, tenantId: string, commentId: string): Promise<FoundComment> {
  const locator = pageLocator(app.system);
  const urlId = await locator.urlIdOf('comment', tenantId, commentId);
  if (urlId === undefined) throw commentNotFound(commentId)();
  const view = await locator.ask('comment', tenantId, commentId, 'getComment', { commentId }, commentNotFound(commentId));
  return { urlId: String(view['urlId'] ?? urlId), view, settings: await tenantSettings(app.system, tenantId, urlId) };
}

/**
 * The page of a comment of the tenant and that page's settings, without reading the comment
 * (404 `not-found` for an id the tenant does not hold): for writes the page actor checks
 * itself, such as a vote, so the hot page answers one message per request, not two.
 */
export async function locateComment(app: AppServices, tenantId: string, commentId: string): Promise<Omit<FoundComment, 'view'>> {
  const urlId = await pageLocator(app.system).urlIdOf('comment', tenantId, commentId);
  if (urlId === undefined) throw commentNotFound(commentId)();
  return { urlId, settings: await tenantSettings(app.system, tenantId, urlId) };
}

/** Whether the reader wrote the comment: same SSO user, or same anonymous session. */
export function isAuthor(reader: Reader, view: Readonly<Record<string, unknown>>): boolean {
  if (reader.userId !== null && view['userId'] === reader.userId) return true;
  return reader.anonUserId !== null && view['anonUserId'] === reader.anonUserId;
}

/**
 * Refuses (403 `edit-key-invalid`) unless the reader may change or delete the comment: its
 * author by identity, its anonymous author by the comment's `editKey`, or a moderator.
 */
export function assertMayManage(req: RouteRequest<unknown, unknown>, reader: Reader, view: Readonly<Record<string, unknown>>, editKey: string | undefined): void {
  if (reader.isModerator || isAuthor(reader, view)) return;
  const anonUserId = view['anonUserId'];
  if (editKey && typeof anonUserId === 'string') {
    const secret = req.app.liveIds.authorEditSecret(reader.tenantId, anonUserId);
    if (editKeyMatches(secret, String(view['_id']), editKey)) return;
  }
  throw new ApiError('edit-key-invalid');
}

/** Refuses (403 `moderator-required`) unless the reader is a site administrator or moderator. */
export function assertModerator(reader: Reader): void {
  if (!reader.isModerator) throw new ApiError('moderator-required');
}

/** Refuses writes on pages that require secure single sign-on from anyone else. */
export function assertMayWrite(settings: Settings, reader: Reader): void {
  if (settings.requireSSO && (reader.sso === undefined || !reader.sso.secure)) {
    throw new ApiError('sso-required', 'This page requires single sign-on: sign in to take part.');
  }
}

/** The tenant-wide switches the widget API applies to every reader's comment (the tenant record's). */
export interface TenantRules {
  /** `enableSpamFilter` (on unless turned off): spam rules and the repeat check. */
  readonly spamFilter: boolean;
  /** `commentsRequireApproval`: readers' comments (and edits) wait for a moderator. */
  readonly requireApproval: boolean;
  /** `enableProfanityFilter`. */
  readonly profanity: boolean;
}

/** Reads the tenant's rules from its record. */
export async function tenantRules(app: AppServices, tenantId: string): Promise<TenantRules> {
  const { tenant } = await app.system.ask(TenantKind, tenantId, 'read', null);
  const doc = tenant as unknown as Record<string, unknown>;
  return { spamFilter: doc['enableSpamFilter'] !== false, requireApproval: doc['commentsRequireApproval'] === true, profanity: doc['enableProfanityFilter'] === true };
}
