/**
 * The moderation API's bans, ban preferences, banned-user counts, trust factors and internal
 * profiles (`/auth/my-account/moderate-comments/`, docs/moderation.md).
 */
import { type AffectedComment, banView, emailDomain, type Writer } from '../../actors/moderation/ban-model.js';
import { type BanInput, ModerationKind } from '../../actors/moderation/moderation-actor.js';
import { MODERATION_ACTIONS } from '../../actors/moderation/moderation-model.js';
import { ModerationQueryKind } from '../../actors/moderation/moderation-query-actor.js';
import { ApiError } from '../../engine/errors.js';
import type { Filter } from '../../storage/store.js';
import type { CommentDoc } from '../../actors/page/comment-doc.js';
import { changeComment, learn, moderatedComment, recordAction } from '../moderation/moderation-actions.js';
import { MODERATOR_QUERY_PROPS, type Moderator, type ModeratorQuery, requireModerator } from '../moderation/moderator.js';
import { route, type RouteRequest, type Schema } from '../route.js';
import type { AppServices } from '../services.js';
import { findComment, type FoundComment } from '../public/comment-access.js';
import { MODERATION_BASE } from './moderate-comments.js';

const bool: Schema = { type: 'boolean' };
const str = (max: number): Schema => ({ type: 'string', maxLength: max });
const COMMENT_PARAM: Schema = { type: 'object', properties: { commentId: { type: 'string', minLength: 1, maxLength: 128 } }, required: ['commentId'] };
const query = (props: Record<string, Schema> = {}): Schema => ({ type: 'object', properties: { ...MODERATOR_QUERY_PROPS, ...props } });
/** Most comments one ban marks or removes. */
const MAX_AFFECTED = 1000;

/** Who wrote a comment, as bans match people (with the address hash the comment kept, if any). */
async function writerOf(app: AppServices, moderator: Moderator, found: FoundComment): Promise<Writer> {
  const { view } = found;
  const s = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
  const ipHash = await app.system.ask(ModerationQueryKind, moderator.tenantId, 'ipHashOf', { commentId: String(view['_id']) });
  return { userId: s(view['userId']), anonUserId: s(view['anonUserId']), email: s(view['commenterEmail'])?.toLowerCase() ?? null, ipHash };
}

/** Which of a writer's traits find their comments. */
interface Reach {
  /** By user id and anonymous session (default true). */
  readonly byUser?: boolean;
  readonly byEmail: boolean;
  readonly byIP?: boolean;
}

/** The storage filters finding a writer's comments of the tenant (by user, session, email, address hash). */
function writerFilters(tenantId: string, writer: Writer, reach: Reach): Filter[] {
  const out: Filter[] = [];
  if (reach.byUser !== false && writer.userId !== null) out.push({ tenantId, userId: writer.userId });
  if (reach.byUser !== false && writer.anonUserId !== null) out.push({ tenantId, anonUserId: writer.anonUserId });
  if (reach.byEmail && writer.email !== null) out.push({ tenantId, commenterEmail: writer.email });
  if (reach.byIP === true && writer.ipHash !== null) out.push({ tenantId, ipHash: writer.ipHash });
  return out;
}

/** The writer's comments (at most `MAX_AFFECTED`), each once. */
async function commentsOf(app: AppServices, moderator: Moderator, writer: Writer, reach: Reach): Promise<CommentDoc[]> {
  const seen = new Map<string, CommentDoc>();
  for (const filter of writerFilters(moderator.tenantId, writer, reach)) {
    const docs = await app.system.ask(ModerationQueryKind, moderator.tenantId, 'find', { filter, text: {}, sort: [['date', -1], ['_id', -1]], skip: 0, limit: MAX_AFFECTED });
    for (const doc of docs) if (seen.size < MAX_AFFECTED) seen.set(doc._id, doc);
  }
  return [...seen.values()];
}

/** `bannedUntil` as given: ISO date-time or epoch ms; absent, empty or `forever`: no end. */
function untilOf(raw: string | undefined): string | null {
  if (raw === undefined || raw === '' || raw === 'forever') return null;
  const ms = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  if (!Number.isFinite(ms)) throw new ApiError('invalid-param', 'bannedUntil must be an ISO date-time or epoch milliseconds.');
  return new Date(ms).toISOString();
}

interface BanQuery extends ModeratorQuery {
  banEmail?: boolean;
  banEmailDomain?: boolean;
  banIP?: boolean;
  deleteAllUsersComments?: boolean;
  bannedUntil?: string;
  isShadowBan?: boolean;
  updateId?: string;
  banReason?: string;
}

async function banFromComment(req: RouteRequest<BanQuery, unknown>): Promise<Record<string, unknown>> {
  const { app, query: q } = req;
  const moderator = await requireModerator(req);
  const id = req.params['commentId']!;
  const found = await moderatedComment(app, moderator, id);
  const writer = await writerOf(app, moderator, found);
  const byIP = q.banIP === true;
  if (byIP && writer.ipHash === null) throw new ApiError('invalid-param', 'This comment kept no address hash (written before addresses were kept, or through the API without ip), so its author cannot be banned by IP.');
  const domain = emailDomain(writer.email);
  if (writer.userId === null && writer.anonUserId === null && writer.email === null && !byIP) throw new ApiError('cannot-block-anonymous', 'The comment has no user, session or email to ban.');
  const input: BanInput = {
    userId: writer.userId ?? writer.anonUserId,
    email: q.banEmailDomain === true && domain !== null ? `*@${domain}` : q.banEmail === true || (writer.userId === null && writer.anonUserId === null) ? writer.email : null,
    username: String(found.view['commenterName'] ?? '') || null,
    ipHash: byIP ? writer.ipHash : null,
    bannedByUserId: moderator.userId,
    bannedCommentText: String(found.view['comment'] ?? '').slice(0, 2000),
    banType: q.isShadowBan === true ? 'shadow' : 'normal',
    bannedUntil: untilOf(q.bannedUntil),
    hasEmailWildcard: q.banEmailDomain === true && domain !== null,
    ...(q.banReason ? { banReason: q.banReason } : {}),
  };
  const changelog = await app.system.ask(ModerationKind, moderator.tenantId, 'ban', { input });
  await learn(app, moderator, found.view, true);
  const banId = changelog.createdBannedUserId;
  // The person's comments are marked (and, when asked, removed); the ban remembers how they were.
  const affected: AffectedComment[] = [];
  const remove = q.deleteAllUsersComments === true;
  for (const doc of await commentsOf(app, moderator, writer, { byEmail: input.email !== null, byIP })) {
    if (doc.isBannedUser && (!remove || doc.isDeleted)) continue;
    const current = await findComment(app, moderator.tenantId, doc._id).catch(() => null);
    if (current === null) continue;
    const changes: Record<string, unknown> = { isBannedUser: true };
    if (remove) Object.assign(changes, { isDeleted: true, approved: false });
    await changeComment(app, moderator, current, changes, undefined).catch(() => null);
    affected.push({ id: doc._id, isBannedUser: doc.isBannedUser, isDeleted: doc.isDeleted, approved: doc.approved });
  }
  if (banId !== undefined) await app.system.ask(ModerationKind, moderator.tenantId, 'banAffected', { banId, affected });
  await app.system.ask(ModerationKind, moderator.tenantId, 'setPreference', {
    userId: moderator.userId,
    preference: { shouldBanEmail: q.banEmail === true, shouldBanByIP: byIP, lastBanType: input.banType, lastBanDuration: input.bannedUntil === null ? 'forever' : input.bannedUntil },
  });
  const until = input.bannedUntil === null ? 'forever' : `until ${input.bannedUntil}`;
  await recordAction(req, moderator, id, MODERATION_ACTIONS.banned, `Banned the author (${input.banType}, ${until})${remove ? `, removing ${affected.length} comments` : ''}.`, { bannedCount: 1, ...(remove ? { deletedCount: affected.length } : {}) });
  const out: Record<string, unknown> = { ...changelog };
  if (out['changedValuesBefore'] !== undefined) out['changedValuesBefore'] = banView(out['changedValuesBefore'] as never);
  return { changelog: out };
}

/** Bans and what moderators know of people. */
export const moderateBanRoutes = [
  route<BanQuery, undefined>({
    method: 'POST',
    path: `${MODERATION_BASE}/ban-user/from-comment/:commentId`,
    access: 'public',
    params: COMMENT_PARAM,
    query: query({ banEmail: bool, banEmailDomain: bool, banIP: bool, deleteAllUsersComments: bool, bannedUntil: str(40), isShadowBan: bool, updateId: str(128), banReason: str(1000) }),
    handle: banFromComment,
  }),
  route<ModeratorQuery, { changelog: Record<string, unknown> }>({
    method: 'POST',
    path: `${MODERATION_BASE}/ban-user/undo`,
    access: 'public',
    query: query(),
    body: {
      type: 'object',
      properties: {
        changelog: {
          type: 'object',
          properties: { createdBannedUserId: str(128), updatedBannedUserId: str(128), deletedBannedUsers: { type: 'array', maxItems: 100 }, changedValuesBefore: { type: 'object', additionalProperties: true } },
        },
      },
      required: ['changelog'],
    },
    handle: async (req) => {
      const { app } = req;
      const moderator = await requireModerator(req);
      const log = req.body.changelog;
      const message: { createdBannedUserId?: string; updatedBannedUserId?: string; changedValuesBefore?: Record<string, unknown> } = {};
      if (typeof log['createdBannedUserId'] === 'string') message.createdBannedUserId = log['createdBannedUserId'];
      if (typeof log['updatedBannedUserId'] === 'string') message.updatedBannedUserId = log['updatedBannedUserId'];
      if (typeof log['changedValuesBefore'] === 'object' && log['changedValuesBefore'] !== null) message.changedValuesBefore = log['changedValuesBefore'] as Record<string, unknown>;
      if (message.createdBannedUserId === undefined && message.updatedBannedUserId === undefined) throw new ApiError('invalid-param', 'The change log names no ban.');
      const affected = await app.system.ask(ModerationKind, moderator.tenantId, 'undoBan', message);
      for (const before of affected) {
        const current = await findComment(app, moderator.tenantId, before.id).catch(() => null);
        if (current === null) continue;
        await changeComment(app, moderator, current, { isBannedUser: before.isBannedUser, isDeleted: before.isDeleted, approved: before.approved }, undefined);
        await recordAction(req, moderator, before.id, MODERATION_ACTIONS.banUndone, 'Undid the ban of the author.', {});
      }
      return {};
    },
  }),
  route<ModeratorQuery & { includeByUserIdAndEmail?: boolean; includeByIP?: boolean; includeByEmailDomain?: boolean }, undefined>({
    method: 'GET',
    path: `${MODERATION_BASE}/pre-ban-summary/:commentId`,
    access: 'public',
    params: COMMENT_PARAM,
    query: query({ includeByUserIdAndEmail: bool, includeByIP: bool, includeByEmailDomain: bool }),
    handle: async (req) => {
      const moderator = await requireModerator(req);
      const found = await moderatedComment(req.app, moderator, req.params['commentId']!);
      const byUser = req.query.includeByUserIdAndEmail !== false;
      const docs = await commentsOf(req.app, moderator, await writerOf(req.app, moderator, found), { byUser, byEmail: byUser, byIP: req.query.includeByIP === true });
      return { usernames: [...new Set(docs.map((d) => d.commenterName ?? '').filter((n) => n !== ''))], count: docs.length };
    },
  }),
  route<ModeratorQuery & { includeByUserIdAndEmail?: boolean; includeByIP?: boolean; includeByEmailDomain?: boolean }, { commentIds: string[] }>({
    method: 'POST',
    path: `${MODERATION_BASE}/bulk-pre-ban-summary`,
    access: 'public',
    query: query({ includeByUserIdAndEmail: bool, includeByIP: bool, includeByEmailDomain: bool }),
    body: { type: 'object', properties: { commentIds: { type: 'array', items: str(128), maxItems: 200 } }, required: ['commentIds'] },
    handle: async (req) => {
      const moderator = await requireModerator(req);
      const emails = new Set<string>(), domains = new Set<string>(), userIds = new Set<string>(), ipHashes = new Set<string>(), related = new Set<string>();
      const byUser = req.query.includeByUserIdAndEmail !== false;
      const byIP = req.query.includeByIP === true;
      for (const id of new Set(req.body.commentIds)) {
        const found = await moderatedComment(req.app, moderator, id).catch(() => null);
        if (found === null) continue;
        const writer = await writerOf(req.app, moderator, found);
        if (writer.email !== null) emails.add(writer.email);
        const domain = emailDomain(writer.email);
        if (domain !== null) domains.add(domain);
        if (writer.userId !== null) userIds.add(writer.userId);
        if (writer.ipHash !== null) ipHashes.add(writer.ipHash);
        for (const doc of await commentsOf(req.app, moderator, writer, { byUser, byEmail: byUser, byIP })) related.add(doc._id);
      }
      return { totalRelatedCommentCount: related.size, emailDomains: [...domains], emails: [...emails], userIds: [...userIds], ipHashes: [...ipHashes] };
    },
  }),
  route<ModeratorQuery, undefined>({
    method: 'GET',
    path: `${MODERATION_BASE}/get-comment-ban-status/:commentId`,
    access: 'public',
    params: COMMENT_PARAM,
    query: query(),
    handle: async (req) => {
      const moderator = await requireModerator(req);
      const found = await moderatedComment(req.app, moderator, req.params['commentId']!);
      const writer = await writerOf(req.app, moderator, found);
      return { emailDomain: emailDomain(writer.email), canIPBan: writer.ipHash !== null };
    },
  }),
  route<ModeratorQuery, undefined>({
    method: 'GET',
    path: `${MODERATION_BASE}/ban-users/from-comment/:commentId`,
    access: 'public',
    params: COMMENT_PARAM,
    query: query(),
    handle: async (req) => {
      const moderator = await requireModerator(req);
      const found = await moderatedComment(req.app, moderator, req.params['commentId']!);
      const writer = await writerOf(req.app, moderator, found);
      const matching = await req.app.system.ask(ModerationKind, moderator.tenantId, 'matching', { writer });
      const valueOf = (type: string): string | null => (type === 'userId' ? (writer.userId ?? writer.anonUserId) : type === 'email' ? writer.email : type === 'email-wildcard' ? `*@${emailDomain(writer.email)}` : type === 'IP' ? writer.ipHash : null);
      return {
        bannedUsers: matching.map(({ ban, matches }) => ({
          _id: ban._id,
          userId: ban.userId,
          banType: ban.banType,
          email: ban.email,
          ipHash: ban.ipHash,
          bannedUntil: ban.bannedUntil,
          hasEmailWildcard: ban.hasEmailWildcard,
          ...(ban.banReason ? { banReason: ban.banReason } : {}),
          matches: matches.map((m) => ({ matchedOn: m, matchedOnValue: valueOf(m) })),
        })),
      };
    },
  }),
  route<ModeratorQuery, undefined>({
    method: 'GET',
    path: `${MODERATION_BASE}/banned-users/counts`,
    access: 'public',
    query: query(),
    handle: async (req) => {
      const moderator = await requireModerator(req);
      return { totalCount: await req.app.system.ask(ModerationKind, moderator.tenantId, 'countBans', null) };
    },
  }),
  route<ModeratorQuery, undefined>({
    method: 'GET',
    path: `${MODERATION_BASE}/user-ban-preference`,
    access: 'public',
    query: query(),
    handle: async (req) => {
      const moderator = await requireModerator(req);
      const doc = await req.app.system.ask(ModerationKind, moderator.tenantId, 'getPreference', { userId: moderator.userId });
      return { preferences: doc === null ? null : { shouldBanEmail: doc.shouldBanEmail, shouldBanByIP: doc.shouldBanByIP, lastBanType: doc.lastBanType, lastBanDuration: doc.lastBanDuration } };
    },
  }),
];
