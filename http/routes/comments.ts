import { BlockKind, blockActorId } from '../../actors/block/protocol.js';
import { checkDate, checkEmail, checkName, checkText, refuseCalculated } from '../../actors/page/comment-rules.js';
import { DEFAULT_PAGE_SIZE, type ListQuery, MAX_LIST_LIMIT, SORT_DIRECTIONS, type SortDirection } from '../../actors/page/listing.js';
import { pageLocator } from '../../actors/page/locator.js';
import { type NewCommentInput, PAGE_VIEWS, PageKind, pageActorId } from '../../actors/page/protocol.js';
import type { PollInput } from '../../actors/poll/poll-model.js';
import { POLL_INPUT_SCHEMA } from '../../actors/poll/poll-model.js';
import { hashTagKey } from '../../actors/hashtag/hashtag-model.js';
import { SiteKind } from '../../actors/site/protocol.js';
import { webhookTargets } from '../../actors/webhook/protocol.js';
import { TENANT_VIEWS, TenantKind, tenantSettings } from '../../actors/tenant/tenant-actor.js';
import type { Settings } from '../../actors/tenant/widget-config.js';
import { ApiError } from '../../engine/errors.js';
import { RawJson, route, type RouteRequest, type Schema } from '../route.js';
import { freeForm } from '../validation.js';
import { countModeration, patchCounts } from '../moderation-counts.js';
import { sendWelcome, welcomeAddress } from './comment-emails.js';
import { checkCommentAnswers, recordCommentAnswers } from './comment-questions.js';
import { startNotifyJob, withMentions } from './comment-notifications.js';
import { COMMENT_ID_PARAM, imageSrc, link, liveIdFields, nullableText, requireUrlId, text, URL_ID, USER_ID } from './page-context.js';
import { screenPost } from '../moderation/ban-check.js';
import { ipHashOf } from '../moderation/ip-hash.js';

export interface ListParams {
  urlId?: string;
  page?: number;
  limit?: number;
  skip?: number;
  direction?: SortDirection;
  parentId?: string;
  asTree?: boolean;
  maxTreeDepth?: number;
  limitChildren?: number;
  skipChildren?: number;
  contextUserId?: string;
  anonUserId?: string;
  userId?: string;
  hashTag?: string[];
  fromDate?: number;
  toDate?: number;
}

/** A time in ms since 1970 that a JavaScript `Date` can hold (up to the year 275760). */
const EPOCH_MS: Schema = { type: 'integer', minimum: 0, maximum: 8_640_000_000_000_000 };

const LIST_QUERY: Schema = {
  type: 'object',
  properties: {
    urlId: URL_ID,
    page: { type: 'integer', minimum: 0, maximum: 1_000_000 },
    limit: { type: 'integer', minimum: 0, maximum: MAX_LIST_LIMIT },
    skip: { type: 'integer', minimum: 0, maximum: 100_000_000 },
    direction: { type: 'string', enum: Object.values(SORT_DIRECTIONS) },
    parentId: text(128, 1),
    asTree: { type: 'boolean' },
    maxTreeDepth: { type: 'integer', minimum: 0, maximum: 1000 },
    limitChildren: { type: 'integer', minimum: 0, maximum: MAX_LIST_LIMIT },
    skipChildren: { type: 'integer', minimum: 0, maximum: 100_000_000 },
    contextUserId: USER_ID,
    anonUserId: USER_ID,
    userId: USER_ID,
    hashTag: { type: 'array', items: text(100, 1), maxItems: 20 },
    fromDate: EPOCH_MS,
    toDate: EPOCH_MS,
  },
};

const bool: Schema = { type: 'boolean' };
const int: Schema = { type: 'integer' };
/** An integer the API description declares `int32`: answers echo it, and clients read 32 bits. */
const int32 = (nullable: boolean): Schema => ({ type: nullable ? ['integer', 'null'] : 'integer', minimum: -2_147_483_648, maximum: 2_147_483_647 });
/** A date input: epoch milliseconds or an ISO date-time (`checkDate` bounds both). */
const dateInput = (nullable: boolean): Schema => ({ type: nullable ? ['number', 'string', 'null'] : ['number', 'string'], format: 'date-time' });
const stringList = (max: number): Schema => ({ type: 'array', items: text(256), maxItems: max });
/**
 * Free-form fields (a comment's `meta`, `questionValues`): bounded in size and field names, so
 * one comment cannot carry a megabyte into every read and event of its page.
 */
export const FREE_FORM_LIMITS = { maxBytes: 16_384, maxKeys: 256 } as const;
const freeObject = (nullable: boolean): Schema =>
  freeForm({ type: nullable ? ['object', 'null'] : 'object', additionalProperties: true }, FREE_FORM_LIMITS.maxBytes, FREE_FORM_LIMITS.maxKeys);
const anyObject: Schema = freeObject(false);

const MENTION: Schema = {
  type: 'object',
  properties: { id: text(256), tag: text(256), rawTag: text(256), type: { type: 'string', enum: ['user', 'sso'] }, sent: bool },
  required: ['id', 'tag'],
};
const HASH_TAG_ENTRY: Schema = {
  type: 'object',
  properties: { id: text(256), tag: text(100, 1), url: link(2048, true), retain: bool },
  required: ['tag'],
};

/** `CreateCommentParams` of the API description, plus `poll`. */
const CREATE_BODY: Schema = {
  type: 'object',
  properties: {
    date: dateInput(false),
    localDateString: text(100),
    localDateHours: int32(false),
    commenterName: text(1000),
    commenterEmail: nullableText(1000),
    commenterLink: link(2048, true),
    comment: { type: 'string' },
    productId: int,
    userId: nullableText(256),
    avatarSrc: imageSrc(2048, true),
    parentId: nullableText(128),
    mentions: { type: 'array', items: MENTION, maxItems: 100 },
    hashTags: { type: 'array', items: HASH_TAG_ENTRY, maxItems: 100 },
    pageTitle: text(1000),
    isFromMyAccountPage: bool,
    url: link(4096),
    urlId: URL_ID,
    meta: anyObject,
    moderationGroupIds: stringList(100),
    rating: { type: 'number' },
    fromOfflineRestore: bool,
    autoplayDelayMS: int,
    feedbackIds: stringList(100),
    questionValues: anyObject,
    tos: bool,
    botId: text(256),
    approved: bool,
    domain: text(253),
    ip: text(64),
    isPinned: bool,
    locale: text(100),
    reviewed: bool,
    verified: bool,
    votes: int,
    votesDown: int,
    votesUp: int,
    poll: POLL_INPUT_SCHEMA as unknown as Schema,
  },
  required: ['commenterName', 'comment', 'url', 'urlId', 'locale'],
};

/** `UpdatableCommentParams` of the API description. */
const PATCH_BODY: Schema = {
  type: 'object',
  properties: {
    urlId: URL_ID,
    urlIdRaw: text(4096),
    url: link(4096),
    pageTitle: nullableText(1000),
    userId: nullableText(256),
    commenterEmail: nullableText(1000),
    commenterName: text(1000),
    commenterLink: link(2048, true),
    comment: { type: 'string' },
    commentHTML: { type: 'string', maxLength: 200_000 },
    parentId: nullableText(128),
    date: dateInput(true),
    localDateString: nullableText(100),
    localDateHours: int32(true),
    votes: { type: ['integer', 'null'] },
    votesUp: { type: ['integer', 'null'] },
    votesDown: { type: ['integer', 'null'] },
    expireAt: dateInput(true),
    verified: bool,
    verifiedDate: dateInput(true),
    notificationSentForParent: bool,
    notificationSentForParentTenant: bool,
    reviewed: bool,
    externalId: text(256),
    externalParentId: nullableText(256),
    avatarSrc: imageSrc(2048, true),
    isSpam: bool,
    approved: bool,
    isDeleted: bool,
    isDeletedUser: bool,
    isByAdmin: bool,
    isByModerator: bool,
    isPinned: { type: ['boolean', 'null'] },
    isLocked: { type: ['boolean', 'null'] },
    flagCount: { type: ['integer', 'null'] },
    displayLabel: nullableText(256),
    meta: freeObject(true),
    moderationGroupIds: { type: ['array', 'null'], items: text(256), maxItems: 100 },
    feedbackIds: stringList(100),
  },
};

interface CreateBody {
  date?: number | string;
  localDateString?: string;
  localDateHours?: number;
  commenterName: string;
  commenterEmail?: string | null;
  commenterLink?: string | null;
  comment: string;
  userId?: string | null;
  avatarSrc?: string | null;
  parentId?: string | null;
  mentions?: NewCommentInput['mentions'];
  hashTags?: NewCommentInput['hashTags'];
  pageTitle?: string;
  url: string;
  urlId: string;
  meta?: Record<string, unknown>;
  moderationGroupIds?: string[];
  rating?: number;
  feedbackIds?: string[];
  approved?: boolean;
  domain?: string;
  isPinned?: boolean;
  locale: string;
  reviewed?: boolean;
  verified?: boolean;
  poll?: PollInput;
  [field: string]: unknown;
}

interface WriteQuery {
  isLive?: boolean;
  doSpamCheck?: boolean;
  sendEmails?: boolean;
  populateNotifications?: boolean;
  contextUserId?: string;
}

const WRITE_QUERY: Schema = {
  type: 'object',
  properties: { isLive: bool, doSpamCheck: bool, sendEmails: bool, populateNotifications: bool, contextUserId: USER_ID },
};

const notFound = (id: string) => () => new ApiError('not-found', `No comment ${id}.`);

/** PATCH answers that moved a comment to another page (they cost 2 more credits). */
const migrated = new WeakSet<object>();

/** The read's query with every default resolved from the page's settings. */
export function resolveQuery(q: ListParams, pageSize: number | null, defaultDirection: SortDirection | null): ListQuery {
  if (q.page !== undefined && (q.limit !== undefined || q.skip !== undefined)) {
    throw new ApiError('invalid-param', 'Use either precalculated paging (page) or flexible paging (limit and skip), not both.');
  }
  if (q.asTree && q.parentId === undefined) {
    throw new ApiError('missing-param', 'Tree mode (asTree) needs parentId: the literal null for top-level comments.');
  }
  const size = Math.min(Math.max(pageSize ?? DEFAULT_PAGE_SIZE, 1), MAX_LIST_LIMIT);
  return {
    direction: q.direction ?? defaultDirection ?? SORT_DIRECTIONS.mostRelevant,
    skip: q.page !== undefined ? q.page * size : (q.skip ?? 0),
    limit: q.page !== undefined ? size : (q.limit ?? size),
    parentId: q.parentId === undefined ? undefined : q.parentId === 'null' ? null : q.parentId,
    asTree: q.asTree === true,
    maxTreeDepth: q.maxTreeDepth ?? null,
    limitChildren: q.limitChildren ?? null,
    skipChildren: q.skipChildren ?? 0,
    userId: q.userId,
    fromDate: q.fromDate,
    toDate: q.toDate,
    hashTagKeys: (q.hashTag ?? []).map(hashTagKey).filter((k) => k !== ''),
  };
}

/**
 * The fast path of a list read: a reader-independent page whose answer the page actor has
 * published (the answer to the same query since the page last changed, durable), found without
 * a message. Undefined when any piece is not at hand.
 */
function readyList(req: RouteRequest<ListParams, undefined>, urlId: string): RawJson | undefined {
  const { app, tenantId } = req;
  const settings = app.system.peek(TenantKind, tenantId, TENANT_VIEWS.settings, urlId) as Settings | undefined;
  if (settings === undefined) return undefined;
  const key = readyKey(req, urlId, settings);
  const ready = app.system.peek(PageKind, pageActorId(tenantId, urlId), PAGE_VIEWS.answers, key) as Buffer | undefined;
  return ready === undefined ? undefined : new RawJson(ready);
}

/**
 * List keys by query string, per settings object: a settings object belongs to one tenant's
 * page and is replaced when the settings change, so a remembered key can never be stale.
 */
const readyKeys = new WeakMap<Settings, Map<string, string>>();

function readyKey(req: RouteRequest<ListParams, undefined>, urlId: string, settings: Settings): string {
  let keys = readyKeys.get(settings);
  if (keys === undefined) readyKeys.set(settings, (keys = new Map()));
  let key = keys.get(req.rawQuery);
  if (key === undefined) {
    const query = resolveQuery(req.query, settings.pageSize, settings.defaultSortDirection);
    key = listKey(query, null, listTail(req, urlId, query.asTree));
    if (keys.size >= 256) keys.clear();
    keys.set(req.rawQuery, key);
  }
  return key;
}

/** What follows the comments in a list answer: live ids and the cost. */
function listTail(req: RouteRequest<ListParams, undefined>, urlId: string | null, asTree: boolean): string {
  const { app, tenantId, query: q } = req;
  let tail = liveIdFields(app.liveIds, tenantId, urlId);
  if (q.contextUserId) tail += `,"userIdWS":${JSON.stringify(app.liveIds.userIdWS(tenantId, q.contextUserId))}`;
  return tail + `,"creditsCost":${asTree ? 2 : 1}`;
}

function listKey(query: unknown, viewer: unknown, tail: string): string {
  return JSON.stringify([query, viewer, tail]);
}

function listComments(req: RouteRequest<ListParams, undefined>): RawJson | Promise<RawJson> {
  const q = req.query;
  const urlId = q.urlId === undefined || q.urlId === '' ? null : q.urlId;
  if (urlId === null && q.asTree) throw new ApiError('missing-url-id', 'Tree mode reads one page: give its urlId.');
  const reader = q.contextUserId ? `u:${q.contextUserId}` : q.anonUserId ? `a:${q.anonUserId}` : null;
  return (urlId !== null && reader === null ? readyList(req, urlId) : undefined) ?? askList(req, urlId, reader);
}

async function askList(req: RouteRequest<ListParams, undefined>, urlId: string | null, reader: string | null): Promise<RawJson> {
  const { app, tenantId, query: q } = req;
  const settings = await tenantSettings(app.system, tenantId, urlId);
  const query = resolveQuery(q, settings.pageSize, settings.defaultSortDirection);
  const blocked = reader === null ? [] : await app.system.ask(BlockKind, blockActorId(tenantId, reader), 'list', null);
  const tail = listTail(req, urlId, query.asTree);
  if (urlId === null) {
    const comments = await app.system.ask(SiteKind, tenantId, 'searchComments', { query, voterKey: reader, blocked });
    return new RawJson(`{"status":"success","comments":${JSON.stringify(comments)}${tail}}`);
  }
  const viewer = reader === null ? null : { voterKey: reader, blocked };
  const key = listKey(query, viewer, tail);
  const json = await app.system.ask(PageKind, pageActorId(tenantId, urlId), 'list', { key, query, viewer, tail });
  return new RawJson(json);
}

/** Comments: read, create, update, delete. Flags, blocks and votes have their own files. */
export const commentRoutes = [
  route<ListParams, undefined>({
    method: 'GET',
    path: '/api/v1/comments',
    access: 'tenant',
    query: LIST_QUERY,
    credits: (req) => (req.query.asTree ? 2 : 1),
    usage: (req) => (req.query.hashTag?.length ? { commentFetchCount: 1, hashTagSearch: 1 } : { commentFetchCount: 1 }),
    handle: listComments,
  }),

  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/api/v1/comments/:id',
    access: 'tenant',
    params: COMMENT_ID_PARAM,
    handle: async ({ app, tenantId, params }) => {
      const id = params['id']!;
      const comment = await pageLocator(app.system).ask('comment', tenantId, id, 'getComment', { commentId: id }, notFound(id));
      return { comment };
    },
  }),

  route<WriteQuery, CreateBody>({
    method: 'POST',
    path: '/api/v1/comments',
    access: 'tenant',
    query: WRITE_QUERY,
    body: CREATE_BODY,
    missingCodes: { urlId: 'missing-url-id' },
    credits: (req) => (req.query.isLive ? 2 : 1),
    usage: (req) => (req.body.parentId ? { commentCreateCount: 1 } : { commentCreateCount: 1, conversationCreateCount: 1 }),
    handle: async ({ app, tenantId, query, body }) => {
      const urlId = requireUrlId(body.urlId);
      refuseCalculated(body);
      checkText(body.comment);
      if (body.date !== undefined) checkDate(body.date);
      const input: NewCommentInput = {
        url: body.url,
        commenterName: checkName(body.commenterName),
        commenterEmail: checkEmail(body.commenterEmail),
        commenterLink: body.commenterLink ?? null,
        comment: body.comment,
        userId: body.userId || null,
        avatarSrc: body.avatarSrc ?? null,
        parentId: body.parentId || null,
        pageTitle: body.pageTitle ?? null,
        date: body.date ?? null,
        localDateString: body.localDateString ?? null,
        localDateHours: body.localDateHours ?? null,
        locale: body.locale,
        mentions: body.mentions ?? [],
        hashTags: body.hashTags ?? [],
        approved: body.approved ?? null,
        reviewed: body.reviewed ?? null,
        verified: body.verified ?? null,
        isPinned: body.isPinned ?? null,
        meta: body.meta ?? null,
        moderationGroupIds: body.moderationGroupIds ?? null,
        feedbackIds: body.feedbackIds ?? [],
        rating: body.rating ?? null,
        domain: body.domain ?? null,
        poll: body.poll ?? null,
        ipHash: ipHashOf(app, tenantId, typeof body['ip'] === 'string' ? body['ip'] : null),
      };
      const screened = await screenPost(app, tenantId, { userId: input.userId, email: input.commenterEmail, ipHash: input.ipHash ?? null }, input.comment);
      if (screened.shadow) Object.assign(input, { approved: false, isBannedUser: true });
      if (screened.suspected && query.doSpamCheck === true) Object.assign(input, { suspectedSpam: true });
      const answers = await checkCommentAnswers(app, tenantId, body['questionValues']);
      const settings = await tenantSettings(app.system, tenantId, urlId);
      const welcome = query.sendEmails === true ? await welcomeAddress(app, tenantId, input) : null;
      const notify = query.populateNotifications !== false;
      const created = await app.system.ask(PageKind, pageActorId(tenantId, urlId), 'createComment', {
        input: notify ? await withMentions(app, tenantId, input) : input,
        settings,
        isLive: query.isLive === true,
        doSpamCheck: query.doSpamCheck === true,
        notify,
        webhooks: await webhookTargets(app.system, tenantId),
      });
      const commentId = String(created.comment['_id']);
      pageLocator(app.system).remember('comment', tenantId, commentId, urlId);
      await recordCommentAnswers(app, tenantId, answers, created.comment);
      if (created.notifyJob === true) startNotifyJob(app.system, tenantId, commentId);
      if (welcome !== null) await sendWelcome(app, tenantId, created, welcome);
      return { comment: created.comment, user: created.user };
    },
  }),

  route<WriteQuery, Record<string, unknown>>({
    method: 'PATCH',
    path: '/api/v1/comments/:id',
    access: 'tenant',
    params: COMMENT_ID_PARAM,
    query: WRITE_QUERY,
    body: PATCH_BODY,
    credits: (req, result) => (req.query.isLive ? 2 : 1) + (migrated.has(result) ? 2 : 0),
    handle: async (req) => {
      const { app, tenantId, params, query, body } = req;
      const id = params['id']!;
      refuseCalculated(body);
      if ('urlId' in body) requireUrlId(body['urlId'] as string);
      if (typeof body['comment'] === 'string') checkText(body['comment']);
      if (typeof body['commenterName'] === 'string') checkName(body['commenterName']);
      if ('commenterEmail' in body) checkEmail(body['commenterEmail'] as string | null);
      for (const field of ['date', 'expireAt', 'verifiedDate']) {
        const value = body[field];
        if (typeof value === 'number' || typeof value === 'string') checkDate(value, field);
      }
      const locator = pageLocator(app.system);
      const urlId = await locator.lookup('comment', tenantId, id);
      if (urlId === undefined) throw notFound(id)();
      const email = body['commenterEmail'];
      const userIdForEmail =
        typeof email === 'string' && email.trim() !== '' && !('userId' in body)
          ? await app.system.ask(SiteKind, tenantId, 'userIdByEmail', { email })
          : null;
      const settings = await tenantSettings(app.system, tenantId, urlId);
      const isLive = query.isLive === true;
      const webhooks = await webhookTargets(app.system, tenantId);
      const result = await locator.ask('comment', tenantId, id, 'patchComment', { commentId: id, changes: body, settings, isLive, userIdForEmail, webhooks }, notFound(id));
      const answer = { comment: result.comment };
      if (result.moved !== null) {
        await app.system.ask(PageKind, pageActorId(tenantId, result.moved.urlId), 'adopt', { commentIds: result.moved.commentIds, isLive });
        for (const moved of result.moved.commentIds) locator.remember('comment', tenantId, moved, result.moved.urlId);
        migrated.add(answer);
      }
      await countModeration(req, query.contextUserId, patchCounts(body));
      return answer;
    },
  }),

  route<WriteQuery, undefined>({
    method: 'DELETE',
    path: '/api/v1/comments/:id',
    access: 'tenant',
    params: COMMENT_ID_PARAM,
    query: { type: 'object', properties: { isLive: bool, contextUserId: USER_ID } },
    credits: (req) => (req.query.isLive ? 2 : 1),
    handle: async (req) => {
      const { app, tenantId, params, query } = req;
      const id = params['id']!;
      const webhooks = await webhookTargets(app.system, tenantId);
      await pageLocator(app.system).ask('comment', tenantId, id, 'deleteComment', { commentId: id, isLive: query.isLive === true, webhooks }, notFound(id));
      await countModeration(req, query.contextUserId, { deletedCount: 1 });
      return { action: 'hard-removed' };
    },
  }),
];
