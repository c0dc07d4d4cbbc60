/**
 * Presence reads for the widget: who of a page's commenters is online
 * (`GET /user-presence-status`), the online and offline lists of a page, and names of ids
 * (`/pages/{tenantId}/users/...`). Driven by the page's live channel (`http/live/presence.ts`).
 * Public, no credits. On a page that requires single sign-on they need a signed-on reader
 * (`sso`, or the `userIdWS` the reader's page read returned), as its comments do.
 */
import { ReaderReadsKind } from '../../actors/reader/reader-reads-actor.js';
import type { UserDoc } from '../../actors/user/protocol.js';
import { tenantSettings } from '../../actors/tenant/tenant-actor.js';
import { ApiError } from '../../engine/errors.js';
import { assertMayListen } from '../live/page-access.js';
import { isNoUser } from '../live/sub-channel.js';
import { admitTenant, publicReader } from '../public-reader.js';
import { route, type RouteRequest, type Schema } from '../route.js';
import { text } from './page-context.js';

/** Users one online or offline list answers; ids one status or info read may ask about. */
export const PRESENCE_PAGE = { users: 50, statusIds: 500, infoIds: 100 } as const;

interface PresenceQuery {
  tenantId?: string;
  urlId?: string;
  urlIdWS?: string;
  userIds?: string;
  ids?: string;
  afterName?: string;
  afterUserId?: string;
  sso?: string;
  sessionId?: string;
  userIdWS?: string;
}

const TENANT_ID: Schema = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' };
const WHO = { sso: text(16_384), sessionId: text(64), userIdWS: text(8192) };
const TENANT_PARAM: Schema = { type: 'object', properties: { tenantId: TENANT_ID }, required: ['tenantId'] };
const LIST_QUERY: Schema = { type: 'object', properties: { ...WHO, urlId: text(8192, 1), afterName: text(256), afterUserId: text(256) }, required: ['urlId'] };

function csv(value: string | undefined, max: number, name: string): string[] {
  const ids = [...new Set((value ?? '').split(',').map((id) => id.trim()).filter((id) => id !== ''))];
  if (ids.length > max) throw new ApiError('invalid-param', `${name} may name at most ${max} ids.`);
  return ids;
}

/** The page a presence read names: a `urlIdWS` of the tenant, or a plain urlId. */
function pageOf(req: RouteRequest<PresenceQuery, undefined>, tenantId: string, given: string): string {
  return req.app.liveIds.urlIdOf(tenantId, given) ?? given;
}

/** Refuses a reader who may not see the page (single sign-on, groups). */
async function mayView(req: RouteRequest<PresenceQuery, undefined>, tenantId: string, urlId: string): Promise<void> {
  const q = req.query;
  let userId: string | null = null;
  if (q.userIdWS !== undefined && !isNoUser(q.userIdWS)) {
    userId = req.app.liveIds.userIdOf(tenantId, q.userIdWS) ?? null;
    if (userId === null) throw new ApiError('invalid-live-id', 'userIdWS was not issued for this tenant.');
  } else {
    const reader = await publicReader(req, tenantId);
    userId = reader.secure ? reader.userId : null;
  }
  await assertMayListen(req.app.system, tenantId, urlId, userId);
}

/** A user as the online lists show it (`PageUserEntry`): private profiles without name or avatar. */
function entry(user: UserDoc): { id: string; displayName: string; avatarSrc?: string; isPrivate: boolean } {
  if (user.isProfileActivityPrivate) return { id: user._id, displayName: '', isPrivate: true };
  const out: { id: string; displayName: string; avatarSrc?: string; isPrivate: boolean } = { id: user._id, displayName: user.displayName ?? user.username, isPrivate: false };
  if (user.avatarSrc) out.avatarSrc = user.avatarSrc;
  return out;
}

/** Users of these ids in list order (name, then id), after the cursor, one page of them. */
async function listPage(req: RouteRequest<PresenceQuery, undefined>, tenantId: string, ids: readonly string[]) {
  const users = ids.length === 0 ? [] : await req.app.system.ask(ReaderReadsKind, tenantId, 'users', { ids });
  const entries = users.map(entry).sort((a, b) => a.displayName.localeCompare(b.displayName) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const { afterName, afterUserId } = req.query;
  let start = 0;
  if (afterUserId !== undefined && afterUserId !== '') {
    const name = afterName ?? '';
    start = entries.findIndex((e) => e.displayName.localeCompare(name) > 0 || (e.displayName.localeCompare(name) === 0 && e.id > afterUserId));
    if (start < 0) start = entries.length;
  }
  const page = entries.slice(start, start + PRESENCE_PAGE.users);
  const more = start + PRESENCE_PAGE.users < entries.length;
  const last = page.at(-1);
  return { users: page, nextAfterUserId: more && last ? last.id : null, nextAfterName: more && last ? last.displayName : null };
}

export const publicPresenceRoutes = [
  route<PresenceQuery, undefined>({
    method: 'GET',
    path: '/user-presence-status',
    access: 'public',
    query: { type: 'object', properties: { ...WHO, tenantId: TENANT_ID, urlIdWS: text(8192, 1), userIds: text(64_000) }, required: ['tenantId', 'urlIdWS', 'userIds'] },
    missingCodes: { tenantId: 'missing-tenant-id' },
    handle: async (req) => {
      const tenantId = req.query.tenantId!;
      await admitTenant(req, tenantId);
      const urlId = pageOf(req, tenantId, req.query.urlIdWS!);
      await mayView(req, tenantId, urlId);
      const online: Record<string, boolean> = {};
      for (const id of csv(req.query.userIds, PRESENCE_PAGE.statusIds, 'userIds')) online[id] = req.app.presence.isOn(tenantId, urlId, id);
      return { userIdsOnline: online };
    },
  }),

  route<PresenceQuery, undefined>({
    method: 'GET',
    path: '/pages/:tenantId/users/online',
    access: 'public',
    params: TENANT_PARAM,
    query: LIST_QUERY,
    missingCodes: { urlId: 'missing-url-id' },
    handle: async (req) => {
      const tenantId = req.params['tenantId']!;
      const urlId = pageOf(req, tenantId, req.query.urlId!);
      await mayView(req, tenantId, urlId);
      const { named, anonCount, total } = req.app.presence.readers(tenantId, urlId);
      return { ...(await listPage(req, tenantId, named)), totalCount: total, anonCount };
    },
  }),

  route<PresenceQuery, undefined>({
    method: 'GET',
    path: '/pages/:tenantId/users/offline',
    access: 'public',
    params: TENANT_PARAM,
    query: LIST_QUERY,
    missingCodes: { urlId: 'missing-url-id' },
    handle: async (req) => {
      const tenantId = req.params['tenantId']!;
      const urlId = pageOf(req, tenantId, req.query.urlId!);
      await mayView(req, tenantId, urlId);
      const commenters = await req.app.system.ask(ReaderReadsKind, tenantId, 'pageCommenters', { urlId });
      const offline = commenters.filter((id) => !req.app.presence.isOn(tenantId, urlId, id));
      return listPage(req, tenantId, offline);
    },
  }),

  route<PresenceQuery, undefined>({
    method: 'GET',
    path: '/pages/:tenantId/users/info',
    access: 'public',
    params: TENANT_PARAM,
    query: { type: 'object', properties: { ...WHO, ids: text(16_000) }, required: ['ids'] },
    handle: async (req) => {
      const tenantId = req.params['tenantId']!;
      await admitTenant(req, tenantId);
      const settings = await tenantSettings(req.app.system, tenantId, null);
      if (settings.requireSSO && !(await publicReader(req, tenantId)).secure) throw new ApiError('sso-required', 'This site requires single sign-on: give the sso of a signed-on reader.');
      const ids = csv(req.query.ids, PRESENCE_PAGE.infoIds, 'ids').filter((id) => !id.startsWith('anon:'));
      const users = ids.length === 0 ? [] : await req.app.system.ask(ReaderReadsKind, tenantId, 'users', { ids });
      return { users: users.map(entry) };
    },
  }),
];

