/**
 * The widget API's comment read and post (`GET` and `POST /comments/{tenantId}`), without an
 * API key and without credits (docs/public-api.md).
 *
 * The read is the hottest path in production. An anonymous reader's answer is bytes the page
 * actor built at the page's last change (with gzip and brotli encodings) and published as a
 * view: it is found without a message, chosen by `Accept-Encoding` and sent as it is. Readers
 * with an identity get the same per-comment JSON plus their own state, built on each read.
 */
import { LRUCache } from 'lru-cache';
import { NotificationsKind } from '../../actors/notify/protocol.js';
import { recipientActorId, recipientKey } from '../../actors/notify/notification-doc.js';
import { checkEmail, checkName, checkText, refuseCalculated } from '../../actors/page/comment-rules.js';
import { editKeyFor } from '../../actors/page/edit-key.js';
import { pageLocator } from '../../actors/page/locator.js';
import { type NewCommentInput, PAGE_VIEWS, PageKind, pageActorId } from '../../actors/page/protocol.js';
import type { PublicAnswer } from '../../actors/page/public-answers.js';
import { publicCommentOfView } from '../../actors/page/public-comment.js';
import { TENANT_VIEWS, TenantKind, tenantSettings } from '../../actors/tenant/tenant-actor.js';
import type { Settings } from '../../actors/tenant/widget-config.js';
import { webhookTargets } from '../../actors/webhook/protocol.js';
import { clock } from '../../engine/clock.js';
import { publicWidgetConfig } from '../live/config-push.js';
import { assertMayListen } from '../live/page-access.js';
import { assertMayWrite, BROADCAST_ID, TENANT_ID, tenantRules } from '../public/comment-access.js';
import { PUBLIC_READ_QUERY, type PublicReadQuery, readyRead, resolvePublicQuery } from '../public/read-query.js';
import { blockedBy, carriesNoIdentity, ensureSession, isIdentified, listingReader, type Reader, type ReaderQuery, resolveReader, sessionInfo } from '../public/reader.js';
import { spendCommentPost } from '../public/write-limits.js';
import type { AppServices } from '../services.js';
import { countPageLoad } from '../public/page-loads.js';
import { rememberLaneRead } from '../public/fast-read.js';
import { CustomReply, RawJson, route, type RouteRequest, type RouteResult, type Schema } from '../route.js';
import { freeForm } from '../validation.js';
import { FREE_FORM_LIMITS } from './comments.js';
import { startNotifyJob, withMentions } from './comment-notifications.js';
import { imageSrc, link, liveIdFields, nullableText, requireUrlId, text, URL_ID } from './page-context.js';
import { screenPost } from '../moderation/ban-check.js';
import { ipHashOf } from '../moderation/ip-hash.js';
import { assertProofOfWork } from '../moderation/proof-of-work.js';

const PARAMS: Schema = { type: 'object', properties: { tenantId: TENANT_ID }, required: ['tenantId'] };
const JSON_TYPE = 'application/json; charset=utf-8';
/** `userIdWS` of readers without a user: the live channel's "no user" (page events only). */
const NO_USER_WS = 'null';

/** Recent readers' `userIdWS` (an HMAC each), per server. */
const userIdWSCache = new WeakMap<AppServices, LRUCache<string, string>>();

function userIdWS(app: AppServices, tenantId: string, userId: string): string {
  let cache = userIdWSCache.get(app);
  if (cache === undefined) userIdWSCache.set(app, (cache = new LRUCache({ max: 10_000 })));
  const key = `${tenantId}\u0000${userId}`;
  let id = cache.get(key);
  if (id === undefined) cache.set(key, (id = app.liveIds.userIdWS(tenantId, userId)));
  return id;
}

/** `presencePollState`: 0 when the page turned live features off, else 1 (poll). */
function presenceState(settings: Settings): number {
  return settings.config['disableLiveCommenting'] === true ? 0 : 1;
}

/** The answer's fields after the page's own, for `reader` (null: anonymous). */
function tail(req: RouteRequest<PublicReadQuery, undefined>, tenantId: string, urlId: string, settings: Settings, reader: Reader | null, extra: { user: unknown; notificationCount: number }): string {
  const { app, query: q } = req;
  const userId = reader?.userId ?? reader?.anonUserId ?? null;
  let out = `,"user":${JSON.stringify(extra.user)}${liveIdFields(app.liveIds, tenantId, urlId)}`;
  out += `,"userIdWS":${JSON.stringify(userId === null ? NO_USER_WS : userIdWS(app, tenantId, userId))}`;
  out += `,"isSiteAdmin":${reader?.isAdmin === true},"presencePollState":${presenceState(settings)}`;
  if (reader?.isModerator === true) out += `,"moderatingTenantIds":${JSON.stringify([tenantId])}`;
  // This server keeps no billing state (no account can be unpaid): `hasBillingIssue`, which
  // the description allows only as `true`, is left out, and comments are never hidden for it.
  out += ',"isCommentsHidden":false';
  if (q.includeConfig === true) out += `,"customConfig":${JSON.stringify(publicWidgetConfig(settings.config))}`;
  if (q.includeNotificationCount === true) out += `,"notificationCount":${extra.notificationCount}`;
  return out;
}

/** The anonymous read of this query string (resolved once per settings object). */
function anonymousRead(req: RouteRequest<PublicReadQuery, undefined>, tenantId: string, urlId: string, settings: Settings) {
  return readyRead(settings, req.rawQuery, () => {
    const query = resolvePublicQuery(req.query, settings);
    const rest = tail(req, tenantId, urlId, settings, null, { user: null, notificationCount: 0 });
    return { key: JSON.stringify([query, rest]), query, tail: rest };
  });
}

/** A kept answer in the best encoding the client takes. */
function encoded(answer: PublicAnswer, acceptEncoding: string | undefined): CustomReply {
  const { body, encoding } = answer.choose(acceptEncoding);
  const headers: [string, string][] = [['vary', 'accept-encoding']];
  if (encoding !== null) headers.push(['content-encoding', encoding]);
  return new CustomReply(200, body, JSON_TYPE, headers);
}

/** The fast path: an anonymous reader, settings and answer already published. */
function readyAnswer(req: RouteRequest<PublicReadQuery, undefined>, tenantId: string, urlId: string): CustomReply | undefined {
  if (!carriesNoIdentity(req)) return undefined;
  const { system } = req.app;
  const settings = system.peek(TenantKind, tenantId, TENANT_VIEWS.settings, urlId) as Settings | undefined;
  if (settings === undefined || settings.requireSSO) return undefined;
  const read = anonymousRead(req, tenantId, urlId, settings);
  const answer = system.peek(PageKind, pageActorId(tenantId, urlId), PAGE_VIEWS.publicAnswers, read.key) as PublicAnswer | undefined;
  return answer === undefined ? undefined : encoded(answer, req.headers['accept-encoding']);
}

async function askAnswer(req: RouteRequest<PublicReadQuery, undefined>, tenantId: string, urlId: string): Promise<RouteResult> {
  const { app, query: q } = req;
  const settings = await tenantSettings(app.system, tenantId, urlId);
  const reader = await resolveReader(req, tenantId, urlId);
  await assertMayListen(app.system, tenantId, urlId, reader.sso?.secure === true ? reader.userId : null);
  const page = pageActorId(tenantId, urlId);
  if (!isIdentified(reader)) {
    const read = anonymousRead(req, tenantId, urlId, settings);
    const json = await app.system.ask(PageKind, page, 'publicList', { key: read.key, query: read.query, reader: null, tail: read.tail });
    return new RawJson(json);
  }
  const query = resolvePublicQuery(q, settings);
  const blocked = await blockedBy(req, reader);
  let notificationCount = 0;
  if (q.includeNotificationCount === true) {
    const count = await app.system.ask(NotificationsKind, recipientActorId(tenantId, recipientKey({ userId: reader.userId, anonUserId: reader.anonUserId })), 'getCount', null);
    notificationCount = count?.count ?? 0;
  }
  const rest = tail(req, tenantId, urlId, settings, reader, { user: sessionInfo(reader, blocked.length > 0), notificationCount });
  const json = await app.system.ask(PageKind, page, 'publicList', { key: '', query, reader: listingReader(req, reader, blocked), tail: rest });
  return new RawJson(json);
}

function readComments(req: RouteRequest<PublicReadQuery, undefined>): RouteResult | Promise<RouteResult> {
  const tenantId = req.params['tenantId']!;
  const urlId = requireUrlId(req.query.urlId);
  const ready = readyAnswer(req, tenantId, urlId);
  if (ready !== undefined) {
    countPageLoad(req.app, tenantId);
    return ready;
  }
  return askAnswer(req, tenantId, urlId).then((answer) => {
    countPageLoad(req.app, tenantId);
    // The next views of this query string may take the fast lane (http/public/fast-read.ts).
    if (carriesNoIdentity(req)) rememberLaneRead(req.app, tenantId, req.rawQuery, urlId);
    return answer;
  });
}

interface PostQuery extends ReaderQuery {
  urlId: string;
  broadcastId?: string;
  altcha?: string;
}

const POST_QUERY: Schema = {
  type: 'object',
  properties: { urlId: URL_ID, broadcastId: BROADCAST_ID, sessionId: text(64), sso: text(16_384), altcha: text(8192) },
  required: ['urlId'],
};

const strings = (max: number): Schema => ({ type: 'array', items: text(256), maxItems: max });
/** Free-form fields (`meta`, `questionValues`), bounded as the API bounds them. */
const free: Schema = freeForm({ type: 'object', additionalProperties: true }, FREE_FORM_LIMITS.maxBytes, FREE_FORM_LIMITS.maxKeys);

/** `CommentData` of the widget API. */
const COMMENT_DATA: Schema = {
  type: 'object',
  properties: {
    date: { type: ['number', 'string'] },
    localDateString: text(100),
    localDateHours: { type: 'integer', minimum: -2_147_483_648, maximum: 2_147_483_647 },
    commenterName: text(1000),
    commenterEmail: nullableText(1000),
    commenterLink: link(2048, true),
    comment: { type: 'string' },
    productId: { type: 'integer' },
    userId: nullableText(256),
    avatarSrc: imageSrc(2048, true),
    parentId: nullableText(128),
    mentions: { type: 'array', maxItems: 100, items: { type: 'object', properties: { id: text(256), tag: text(256), rawTag: text(256), type: { type: 'string', enum: ['user', 'sso'] }, sent: { type: 'boolean' } }, required: ['id', 'tag'] } },
    hashTags: { type: 'array', maxItems: 100, items: { type: 'object', properties: { id: text(256), tag: text(100, 1), url: link(2048, true), retain: { type: 'boolean' } }, required: ['tag'] } },
    pageTitle: text(1000),
    isFromMyAccountPage: { type: 'boolean' },
    url: link(4096),
    urlId: URL_ID,
    meta: free,
    moderationGroupIds: strings(100),
    rating: { type: 'number' },
    fromOfflineRestore: { type: 'boolean' },
    autoplayDelayMS: { type: 'integer' },
    feedbackIds: strings(100),
    questionValues: free,
    tos: { type: 'boolean' },
    botId: text(256),
  },
  required: ['commenterName', 'comment', 'url', 'urlId'],
};

interface CommentData {
  commenterName: string;
  commenterEmail?: string | null;
  commenterLink?: string | null;
  comment: string;
  parentId?: string | null;
  pageTitle?: string;
  url: string;
  urlId: string;
  meta?: Record<string, unknown>;
  moderationGroupIds?: string[];
  rating?: number;
  feedbackIds?: string[];
  localDateString?: string;
  localDateHours?: number;
  mentions?: NewCommentInput['mentions'];
  [field: string]: unknown;
}

async function postComment(req: RouteRequest<PostQuery, CommentData>): Promise<RouteResult> {
  const { app, body, query } = req;
  const tenantId = req.params['tenantId']!;
  const urlId = requireUrlId(query.urlId);
  refuseCalculated(body);
  spendCommentPost(req);
  checkText(body.comment);
  const settings = await tenantSettings(app.system, tenantId, urlId);
  let reader = await resolveReader(req, tenantId, urlId);
  assertMayWrite(settings, reader);
  const rules = await tenantRules(app, tenantId);
  const sso = reader.sso?.user;
  const name = sso !== undefined ? (sso.displayName || sso.username) : checkName(body.commenterName);
  const email = sso !== undefined ? sso.email : checkEmail(body.commenterEmail);
  if (sso === undefined) reader = ensureSession(req, reader);
  const input: NewCommentInput = {
    url: body.url,
    commenterName: name,
    commenterEmail: email,
    commenterLink: body.commenterLink ?? sso?.websiteUrl ?? null,
    comment: body.comment,
    userId: reader.userId,
    avatarSrc: sso?.avatarSrc ?? null,
    parentId: body.parentId || null,
    pageTitle: body.pageTitle ?? null,
    date: null,
    localDateString: body.localDateString ?? null,
    localDateHours: body.localDateHours ?? null,
    locale: 'en_us',
    mentions: body.mentions ?? [],
    hashTags: [],
    // Held for moderation when the tenant requires approval; moderators' comments never are.
    approved: rules.requireApproval && !reader.isModerator ? false : null,
    reviewed: null,
    verified: reader.sso?.secure === true,
    isPinned: null,
    meta: body.meta ?? null,
    moderationGroupIds: body.moderationGroupIds ?? null,
    feedbackIds: body.feedbackIds ?? [],
    rating: body.rating ?? null,
    domain: null,
    poll: null,
    anonUserId: reader.anonUserId,
    ipHash: ipHashOf(app, tenantId, req.ip),
  };
  const screened = await screenPost(app, tenantId, { userId: reader.userId, anonUserId: reader.anonUserId, email, ipHash: input.ipHash ?? null }, input.comment);
  if (screened.proofOfWork && reader.sso === undefined) await assertProofOfWork(app, tenantId, query.altcha);
  if (screened.shadow) Object.assign(input, { approved: false, isBannedUser: true });
  // Suspected spam waits in the moderation queue; moderators' own comments are never held.
  if (screened.suspected && rules.spamFilter && !reader.isModerator) Object.assign(input, { suspectedSpam: true });
  const created = await app.system.ask(PageKind, pageActorId(tenantId, urlId), 'createComment', {
    input: await withMentions(app, tenantId, input),
    settings: rules.profanity && !settings.enableProfanityFilter ? { ...settings, enableProfanityFilter: true } : settings,
    isLive: true,
    doSpamCheck: rules.spamFilter,
    notify: true,
    webhooks: await webhookTargets(app.system, tenantId),
    ...(query.broadcastId ? { broadcastId: query.broadcastId } : {}),
  });
  const commentId = String(created.comment['_id']);
  pageLocator(app.system).remember('comment', tenantId, commentId, urlId);
  if (created.notifyJob === true) startNotifyJob(app.system, tenantId, commentId);
  app.charges.add(tenantId, 0, input.parentId === null ? { commentCreateCount: 1, conversationCreateCount: 1 } : { commentCreateCount: 1 }, clock.now(), false);
  const comment = publicCommentOfView(created.comment);
  if (reader.anonUserId !== null) {
    comment['anonUserId'] = reader.anonUserId;
    comment['editKey'] = editKeyFor(app.liveIds.authorEditSecret(tenantId, reader.anonUserId), commentId);
  }
  const user = sessionInfo(reader, false, { name, email });
  const userId = reader.userId ?? reader.anonUserId;
  return { comment, user, userIdWS: userId === null ? NO_USER_WS : app.liveIds.userIdWS(tenantId, userId) };
}

/** `GET` and `POST /comments/{tenantId}`. */
export const publicCommentRoutes = [
  route<PublicReadQuery, undefined>({
    method: 'GET',
    path: '/comments/:tenantId',
    access: 'public',
    params: PARAMS,
    query: PUBLIC_READ_QUERY,
    missingCodes: { urlId: 'missing-url-id' },
    handle: readComments,
  }),
  route<PostQuery, CommentData>({
    method: 'POST',
    path: '/comments/:tenantId',
    access: 'public',
    params: PARAMS,
    query: POST_QUERY,
    body: COMMENT_DATA,
    missingCodes: { urlId: 'missing-url-id' },
    handle: postComment,
  }),
];

