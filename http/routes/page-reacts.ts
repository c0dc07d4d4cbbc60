import { PageKind, pageActorId, type ReactState, type ReactUser } from '../../actors/page/protocol.js';
import { REACT_KINDS, type ReactKind } from '../../actors/page/react-doc.js';
import type { Settings } from '../../actors/tenant/widget-config.js';
import { type UserDoc, UserKind, userActorId } from '../../actors/user/protocol.js';
import { ApiError } from '../../engine/errors.js';
import { ANON_COOKIE, anonSession, cookieValue } from '../anon-session.js';
import { route, type RouteRequest, type Schema } from '../route.js';
import type { AppServices } from '../services.js';
import { type SsoUser, ssoUser } from '../sso.js';
import { requireUrlId, text, URL_ID } from './page-context.js';
import { tenantSettings } from '../../actors/tenant/tenant-actor.js';
import { assertNotBanned } from '../moderation/ban-check.js';
import { anonUserIdOf } from '../public/reader.js';

/** Reactions looked up for user lists, most recent first. */
export const REACT_USERS_LOOKED_UP = 100;
/** Longest reaction id a caller may choose. */
export const REACT_ID_MAX = 36;

/** `includeUserInfo`: leave private profiles out, or include them (API keys only). */
export type UserInfoMode = 'public' | 'include-private';

interface ReactQuery {
  urlId: string;
  sso?: string;
  title?: string;
  includeUserInfo?: string;
  id?: string;
  sessionId?: string;
}

const TENANT_PARAM: Schema = { type: 'object', properties: { tenantId: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } }, required: ['tenantId'] };
const base = { urlId: URL_ID, sso: text(16_384), sessionId: text(64) };
const READ_QUERY: Schema = { type: 'object', properties: { ...base, includeUserInfo: text(32) }, required: ['urlId'] };
const WRITE_QUERY: Schema = { type: 'object', properties: { ...base, title: text(1000) }, required: ['urlId'] };
const REACT_ID: Schema = text(REACT_ID_MAX, 1);
const V2_WRITE_QUERY: Schema = { type: 'object', properties: { ...base, title: text(1000), id: REACT_ID }, required: ['urlId', 'id'] };
const V2_LIST_QUERY: Schema = { type: 'object', properties: { ...base, id: REACT_ID }, required: ['urlId', 'id'] };
const missingCodes = { urlId: 'missing-url-id' } as const;

/** A public user entry of a reaction list. */
export function userEntry(user: UserDoc, withPrivacy: boolean): Record<string, unknown> {
  const entry: Record<string, unknown> = { id: user._id, username: user.username, displayName: user.displayName ?? user.username, avatarSrc: user.avatarSrc };
  if (withPrivacy) entry['isPrivate'] = user.isProfileActivityPrivate;
  return entry;
}

/**
 * The users behind the most recent reactions (already at most 100): anonymous readers are not
 * in `recent`; private profiles are left out unless `mode` is `include-private`.
 */
export async function reactUsers(app: AppServices, tenantId: string, state: ReactState, mode: UserInfoMode): Promise<{ user: UserDoc; reactId: string }[]> {
  const ids = [...new Set(state.recent.map((r) => r.userId))];
  const users = new Map<string, UserDoc>();
  await Promise.all(
    ids.map(async (id) => {
      const user = await app.system.ask(UserKind, userActorId(tenantId, id), 'get', null);
      if (user !== null && (mode === 'include-private' || !user.isProfileActivityPrivate)) users.set(id, user);
    }),
  );
  const out: { user: UserDoc; reactId: string }[] = [];
  for (const r of state.recent) {
    const user = users.get(r.userId);
    if (user !== undefined) out.push({ user, reactId: r.reactId });
  }
  return out;
}

/** `includeUserInfo` of a public read: only `public`; `include-private` needs an API key. */
function publicMode(value: string | undefined): 'public' | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'include-private') throw new ApiError('include-private-forbidden');
  if (value !== 'public') throw new ApiError('invalid-param', 'includeUserInfo must be public (include-private is only for the API).');
  return 'public';
}

interface Reader {
  readonly user: ReactUser;
  readonly sso: SsoUser | undefined;
  /** A session this request made (no cookie, no `sessionId`): answered to writers, whose browser may refuse the cookie. */
  readonly issued?: string;
}

const SESSION_ID = /^[A-Za-z0-9_-]{22}$/;

async function readerOf(req: RouteRequest<ReactQuery, undefined>, tenantId: string): Promise<Reader> {
  const sso = await ssoUser(req.app, tenantId, req.query.sso);
  if (sso !== undefined) return { user: { key: `u:${sso.user._id}`, userId: sso.user._id }, sso };
  // The widget's cookie-less session (as the comment routes take it), where third-party cookies are blocked.
  const given = req.query.sessionId;
  if (given !== undefined && given !== '') {
    if (!SESSION_ID.test(given)) throw new ApiError('invalid-param', 'sessionId is not a session this server issued.');
    return { user: { key: `a:${given}`, userId: null }, sso: undefined };
  }
  const had = cookieValue(req.headers['cookie'], ANON_COOKIE);
  const session = anonSession(req);
  return { user: { key: `a:${session}`, userId: null }, sso: undefined, ...(had === session ? {} : { issued: session }) };
}

/**
 * On pages that require single sign-on, who reacted is shown only to signed-on readers who may
 * view the page: `sso-required` without (secure) SSO, `page-forbidden` outside the page's groups.
 */
function checkMayViewUsers(settings: Settings, state: ReactState, reader: Reader): void {
  if (!settings.requireSSO) return;
  if (reader.sso === undefined || !reader.sso.secure) throw new ApiError('sso-required');
  const groups = state.accessibleByGroupIds;
  if (groups.length === 0) return;
  const mine = reader.sso.user.groupIds ?? [];
  if (!groups.some((g) => mine.includes(g))) throw new ApiError('page-forbidden');
}

async function context(req: RouteRequest<ReactQuery, undefined>) {
  const tenantId = req.params['tenantId']!;
  const urlId = requireUrlId(req.query.urlId);
  // Also proves the tenant exists (invalid-tenant-id otherwise).
  const settings = await tenantSettings(req.app.system, tenantId, urlId);
  const reader = await readerOf(req, tenantId);
  return { tenantId, urlId, settings, reader, page: pageActorId(tenantId, urlId) };
}

function write(path: string, method: 'POST' | 'DELETE', kind: ReactKind) {
  return route<ReactQuery, undefined>({
    method,
    path,
    access: 'public',
    params: TENANT_PARAM,
    query: kind === REACT_KINDS.like ? WRITE_QUERY : method === 'POST' ? V2_WRITE_QUERY : { ...V2_WRITE_QUERY, properties: { ...base, id: REACT_ID } },
    missingCodes,
    handle: async (req) => {
      const { tenantId, settings, reader, page } = await context(req);
      if (method === 'POST') {
        const session = reader.user.userId === null ? reader.user.key.slice(2) : null;
        await assertNotBanned(req.app, tenantId, { userId: reader.user.userId, anonUserId: session === null ? null : anonUserIdOf(tenantId, session), email: reader.sso?.user.email ?? null, ip: req.ip });
      }
      // As the live channels: a page that requires single sign-on takes nothing from anyone else.
      if (settings.requireSSO && (reader.sso === undefined || !reader.sso.secure)) {
        throw new ApiError('sso-required', 'This page requires single sign-on: likes and reactions need a signed sso payload.');
      }
      const { code } = await req.app.system.ask(PageKind, page, 'react', {
        kind,
        reactId: kind === REACT_KINDS.like ? '' : req.query.id!,
        user: reader.user,
        remove: method === 'DELETE',
        title: method === 'POST' ? (req.query.title ?? null) : null,
        url: null,
        rules: {
          maxReactionIds: settings.maxReactionIdsPerPage,
          pagesPerHour: req.app.config.anonPagesPerHour,
          readerGroups: settings.requireSSO ? (reader.sso!.user.groupIds ?? []) : null,
        },
      });
      return { ...(code === null ? {} : { code }), ...(reader.issued === undefined ? {} : { sessionId: reader.issued }) };
    },
  });
}

/** Page likes (v1) and reactions (v2): public, no API key, no credits. */
export const pageReactRoutes = [
  route<ReactQuery, undefined>({
    method: 'GET',
    path: '/page-reacts/v1/likes/:tenantId',
    access: 'public',
    params: TENANT_PARAM,
    query: READ_QUERY,
    missingCodes,
    handle: async (req) => {
      const mode = publicMode(req.query.includeUserInfo);
      const { tenantId, urlId, settings, reader, page } = await context(req);
      const state = await req.app.system.ask(PageKind, page, 'reactState', { userKey: reader.user.key, kind: REACT_KINDS.like, reactId: null, recent: mode === undefined ? 0 : REACT_USERS_LOOKED_UP });
      const answer: Record<string, unknown> = {
        urlIdWS: req.app.liveIds.urlIdWS(tenantId, urlId),
        didLike: state.pageExists && state.didLike,
        commentCount: state.commentCount,
        likeCount: state.pageExists ? state.likeCount : 0,
      };
      if (mode !== undefined) {
        checkMayViewUsers(settings, state, reader);
        answer['users'] = state.pageExists ? (await reactUsers(req.app, tenantId, state, mode)).map((u) => userEntry(u.user, false)) : [];
      }
      return answer;
    },
  }),
  write('/page-reacts/v1/likes/:tenantId', 'POST', REACT_KINDS.like),
  write('/page-reacts/v1/likes/:tenantId', 'DELETE', REACT_KINDS.like),

  route<ReactQuery, undefined>({
    method: 'GET',
    path: '/page-reacts/v2/:tenantId',
    access: 'public',
    params: TENANT_PARAM,
    query: READ_QUERY,
    missingCodes,
    handle: async (req) => {
      const mode = publicMode(req.query.includeUserInfo);
      const { tenantId, settings, reader, page } = await context(req);
      const state = await req.app.system.ask(PageKind, page, 'reactState', { userKey: reader.user.key, kind: REACT_KINDS.react, reactId: null, recent: mode === undefined ? 0 : REACT_USERS_LOOKED_UP });
      const answer: Record<string, unknown> = { reactedIds: state.pageExists ? state.reactedIds : [], counts: state.pageExists ? state.counts : {} };
      if (mode !== undefined) {
        checkMayViewUsers(settings, state, reader);
        const users = state.pageExists ? await reactUsers(req.app, tenantId, state, mode) : [];
        answer['users'] = users.map((u) => ({ reactId: u.reactId, ...userEntry(u.user, false) }));
      }
      return answer;
    },
  }),
  route<ReactQuery, undefined>({
    method: 'GET',
    path: '/page-reacts/v2/:tenantId/list',
    access: 'public',
    params: TENANT_PARAM,
    query: V2_LIST_QUERY,
    missingCodes,
    handle: async (req) => {
      const { tenantId, settings, reader, page } = await context(req);
      const state = await req.app.system.ask(PageKind, page, 'reactState', { userKey: reader.user.key, kind: REACT_KINDS.react, reactId: req.query.id!, recent: REACT_USERS_LOOKED_UP });
      checkMayViewUsers(settings, state, reader);
      const users = state.pageExists ? await reactUsers(req.app, tenantId, state, 'public') : [];
      const names = [...new Set(users.map((u) => u.user.displayName ?? u.user.username))];
      return { userNames: names.sort((a, b) => a.localeCompare(b)) };
    },
  }),
  write('/page-reacts/v2/:tenantId', 'POST', REACT_KINDS.react),
  write('/page-reacts/v2/:tenantId', 'DELETE', REACT_KINDS.react),
];
