/**
 * Who is calling a widget route (docs/public-api.md, "Sessions"): the one place every public
 * route resolves its reader, so every route agrees on identity.
 *
 * - Anonymous, no session: nothing identifies the reader; a read never makes a session.
 * - Anonymous session: a random 128-bit id, carried by the `sessionId` parameter and, where
 *   the browser sends it, by the `fc_anon` cookie (http/anon-session.ts). It is a credential
 *   and never shown to others; the reader's public id is `anonUserId`, a hash of it bound to
 *   the tenant. A session is made at the reader's first write (`ensureSession`).
 * - Simple SSO (unsigned) and secure SSO (HMAC with the tenant's API secret, timestamp
 *   checked): http/sso.ts. Both forms the official clients send are accepted: the flat user
 *   object and `{simpleSSOUser: {...}}`; a secure payload with empty user data is a signed-out
 *   reader under SSO rules (anonymous), not an error.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { BLOCK_VIEWS, BlockKind, blockActorId } from '../../actors/block/protocol.js';
import { actorKey } from '../../actors/page/protocol.js';
import type { PublicReader } from '../../actors/page/public-listing.js';
import { ApiError } from '../../engine/errors.js';
import { ANON_COOKIE, anonSession, cookieValue } from '../anon-session.js';
import type { RouteRequest } from '../route.js';
import { type SsoUser, ssoUser } from '../sso.js';

const SESSION_ID = /^[A-Za-z0-9_-]{22}$/;

/** The identity parameters every widget route may carry. */
export interface ReaderQuery {
  readonly sso?: string;
  readonly sessionId?: string;
}

/** A widget route's caller. */
export interface Reader {
  readonly tenantId: string;
  readonly sso: SsoUser | undefined;
  /** The anonymous session id (a credential), when the reader has a session and no SSO. */
  readonly sessionId: string | undefined;
  /** The reader's public anonymous id (with a session), else null. */
  readonly anonUserId: string | null;
  /** The SSO user's id, else null. */
  readonly userId: string | null;
  /** Site administrators: secure SSO users with `isAdmin`. */
  readonly isAdmin: boolean;
  /** Moderators: secure SSO users with `isModerator` (or `isAdmin`). */
  readonly isModerator: boolean;
}

/** The anonymous id of a session: public, stable per tenant, and useless as a credential. */
export function anonUserIdOf(tenantId: string, sessionId: string): string {
  return `anon-${createHash('sha256').update(`${tenantId}\u0000${sessionId}`).digest('base64url').slice(0, 22)}`;
}

/**
 * The `sso` parameter in the form http/sso.ts reads: `{simpleSSOUser}` unwrapped (its `avatar`
 * as `avatarSrc`), a signed-out secure payload dropped. Undefined when there is no user.
 */
function normalizedSso(raw: string | undefined): string | undefined {
  if (raw === undefined || raw.trim() === '' || raw === 'null' || raw === 'undefined') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return raw; // http/sso.ts refuses it with its own reason.
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return raw;
  const sso = value as Record<string, unknown>;
  if ('userDataJSONBase64' in sso || 'verificationHash' in sso) {
    return sso['userDataJSONBase64'] ? raw : undefined;
  }
  const nested = sso['simpleSSOUser'];
  if (typeof nested === 'object' && nested !== null && !Array.isArray(nested)) {
    const user = { ...(nested as Record<string, unknown>) };
    if (user['avatarSrc'] === undefined && user['avatar'] !== undefined) user['avatarSrc'] = user['avatar'];
    return JSON.stringify(user);
  }
  if (!sso['email'] && !sso['username']) return undefined; // only loginURL / logoutURL: no user
  return raw;
}

/** The session id a request carries (parameter first, then cookie), if well formed. */
function carriedSession(req: RouteRequest<ReaderQuery, unknown>): string | undefined {
  const given = req.query.sessionId;
  if (given !== undefined && given !== '') {
    if (!SESSION_ID.test(given)) throw new ApiError('invalid-param', 'sessionId is not a session this server issued.');
    return given;
  }
  const cookie = cookieValue(req.headers['cookie'], ANON_COOKIE);
  return cookie !== undefined && SESSION_ID.test(cookie) ? cookie : undefined;
}

/** Whether the request carries no identity at all: the anonymous read that is served from cache. */
export function carriesNoIdentity(req: RouteRequest<ReaderQuery, unknown>): boolean {
  const q = req.query;
  return (q.sso === undefined || q.sso === '') && (q.sessionId === undefined || q.sessionId === '') && cookieValue(req.headers['cookie'], ANON_COOKIE) === undefined;
}

/**
 * Resolves the caller of a widget route (creating or updating its SSO user; never a session).
 * `urlId`: the page the request is about, so a signed payload's `pageBadgeIds` reach that page.
 */
export async function resolveReader(req: RouteRequest<ReaderQuery, unknown>, tenantId: string, urlId: string | null = null): Promise<Reader> {
  const sso = await ssoUser(req.app, tenantId, normalizedSso(req.query.sso), urlId);
  if (sso !== undefined) {
    const admin = sso.secure && sso.user.isAdmin === true;
    return {
      tenantId,
      sso,
      sessionId: undefined,
      anonUserId: null,
      userId: sso.user._id,
      isAdmin: admin,
      isModerator: admin || (sso.secure && sso.user.isModerator === true),
    };
  }
  const sessionId = carriedSession(req);
  return {
    tenantId,
    sso: undefined,
    sessionId,
    anonUserId: sessionId === undefined ? null : anonUserIdOf(tenantId, sessionId),
    userId: null,
    isAdmin: false,
    isModerator: false,
  };
}

/**
 * The reader with a session, made now if it has none (a write by an anonymous reader): the
 * cookie is set, and the answer's `user.sessionId` carries it where cookies are blocked. New
 * sessions are limited per client (`ANON_SESSIONS_PER_HOUR`).
 */
export function ensureSession(req: RouteRequest<ReaderQuery, unknown>, reader: Reader): Reader {
  if (reader.sso !== undefined || reader.sessionId !== undefined) return reader;
  const sessionId = anonSession(req);
  return { ...reader, sessionId, anonUserId: anonUserIdOf(reader.tenantId, sessionId) };
}

/** The reader's key for votes, flags and blocks (`u:` or `a:`), or null without identity. */
export function readerKey(reader: Reader): string | null {
  if (reader.userId === null && reader.anonUserId === null) return null;
  return actorKey({ userId: reader.userId, anonUserId: reader.anonUserId });
}

/** Whether the reader is anyone at all (an SSO user or a session). */
export function isIdentified(reader: Reader): boolean {
  return reader.userId !== null || reader.anonUserId !== null;
}

/** The authors the reader blocked (author keys, see `CommentDoc.authorKey`). */
export async function blockedBy(req: RouteRequest<unknown, unknown>, reader: Reader): Promise<string[]> {
  const key = readerKey(reader);
  if (key === null) return [];
  const id = blockActorId(reader.tenantId, key);
  const published = req.app.system.peek(BlockKind, id, BLOCK_VIEWS.list, '') as string[] | undefined;
  return published ?? req.app.system.ask(BlockKind, id, 'list', null);
}

/** Edit secrets of recent readers (an HMAC each), per server. */
const secrets = new WeakMap<object, LRUCache<string, string>>();

function editSecretOf(req: RouteRequest<unknown, unknown>, tenantId: string, anonUserId: string): string {
  let cache = secrets.get(req.app.liveIds);
  if (cache === undefined) secrets.set(req.app.liveIds, (cache = new LRUCache({ max: 10_000 })));
  const key = `${tenantId}\u0000${anonUserId}`;
  let secret = cache.get(key);
  if (secret === undefined) {
    secret = req.app.liveIds.authorEditSecret(tenantId, anonUserId);
    cache.set(key, secret);
  }
  return secret;
}

/** The reader as the page actor's personal listing takes it. */
export function listingReader(req: RouteRequest<unknown, unknown>, reader: Reader, blocked: readonly string[]): PublicReader {
  return {
    userId: reader.userId,
    anonUserId: reader.anonUserId,
    voterKey: readerKey(reader),
    blocked,
    editSecret: reader.anonUserId === null ? null : editSecretOf(req, reader.tenantId, reader.anonUserId),
  };
}

/**
 * The API's `UserSessionInfo` of the reader, or null for an anonymous reader without a session.
 * `name`/`email`: what an anonymous reader typed on this request, if anything.
 */
export function sessionInfo(reader: Reader, hasBlockedUsers: boolean, typed?: { name: string | null; email: string | null }): Record<string, unknown> | null {
  if (reader.sso !== undefined) {
    const u = reader.sso.user;
    const info: Record<string, unknown> = {
      id: u._id,
      authorized: true,
      username: u.username,
      displayName: u.displayName ?? u.username,
      email: u.email,
      avatarSrc: u.avatarSrc,
      groupIds: u.groupIds ?? [],
      hasBlockedUsers,
      isAnonSession: false,
      sessionId: null,
    };
    if (u.displayLabel) info['displayLabel'] = u.displayLabel;
    if (u.websiteUrl) info['websiteUrl'] = u.websiteUrl;
    return info;
  }
  if (reader.anonUserId === null) return null;
  const info: Record<string, unknown> = { id: reader.anonUserId, authorized: true, hasBlockedUsers, isAnonSession: true, sessionId: reader.sessionId ?? null };
  if (typed?.name) info['username'] = typed.name;
  if (typed?.email) info['email'] = typed.email;
  return info;
}
