import { pageLocator } from '../../actors/page/locator.js';
import { webhookTargets } from '../../actors/webhook/protocol.js';
import { type PageDoc, pageView } from '../../actors/page/page-doc.js';
import { PageKind, pageActorId } from '../../actors/page/protocol.js';
import { REACT_KINDS } from '../../actors/page/react-doc.js';
import { SiteKind } from '../../actors/site/protocol.js';
import { ApiError } from '../../engine/errors.js';
import { route, type Schema, StreamedJson } from '../route.js';
import type { AppServices } from '../services.js';
import { link, requireUrlId, text, URL_ID } from './page-context.js';
import { REACT_USERS_LOOKED_UP, reactUsers, type UserInfoMode, userEntry } from './page-reacts.js';

/** Most pages one `GET /api/v1/pages` answers when it is given a `limit`: `skip` pages through the rest. */
export const PAGES_PER_LIST = 1000;
/** Pages read (and sent) per part of the whole list. */
export const PAGES_PER_PART = 500;

/**
 * The whole list of a tenant's pages after the first `skip`, as JSON in parts: one part per
 * `PAGES_PER_PART` pages, each read through the site actor from where the last one ended, so
 * memory holds one part whatever the number of pages.
 */
async function* allPages(app: AppServices, tenantId: string, skip: number): AsyncGenerator<string> {
  // The first part holds the first pages read, so a failure to read them is still an error reply.
  let part = '{"status":"success","pages":[';
  let after: { createdAt: string; id: string } | null = null;
  for (;;) {
    const pages: PageDoc[] = await app.system.ask(SiteKind, tenantId, 'pagesAfter', { after, skip, limit: PAGES_PER_PART });
    if (pages.length > 0) part += (after === null ? '' : ',') + pages.map((page) => JSON.stringify(pageView(page))).join(',');
    if (pages.length < PAGES_PER_PART) {
      yield `${part}],"hasMore":false}`;
      return;
    }
    yield part;
    part = '';
    const last = pages[pages.length - 1]!;
    after = { createdAt: last.createdAt, id: last._id };
  }
}

const GROUPS: Schema = { type: 'array', items: text(256), maxItems: 100 };
const COUNTS = ['commentCount', 'rootCommentCount'] as const;

/** `CreateAPIPageData`; the counts are accepted by the schema so they can be refused clearly. */
const CREATE_BODY: Schema = {
  type: 'object',
  properties: { urlId: URL_ID, url: link(4096), title: text(1000), accessibleByGroupIds: GROUPS, isClosed: { type: 'boolean' }, commentCount: {}, rootCommentCount: {} },
  required: ['urlId', 'title', 'url'],
};
const PATCH_BODY: Schema = {
  type: 'object',
  minProperties: 1,
  properties: { urlId: URL_ID, url: link(4096), title: text(1000), accessibleByGroupIds: GROUPS, isClosed: { type: 'boolean' }, commentCount: {}, rootCommentCount: {} },
};
const ID_PARAM: Schema = { type: 'object', properties: { id: text(128, 1) }, required: ['id'] };
const USER_INFO_QUERY: Schema = {
  type: 'object',
  properties: { urlId: URL_ID, includeUserInfo: { type: 'string', enum: ['public', 'include-private'] } },
  required: ['urlId'],
};

interface PageBody {
  urlId?: string;
  url?: string;
  title?: string;
  accessibleByGroupIds?: string[];
  isClosed?: boolean;
  [count: string]: unknown;
}

function refuseCounts(body: PageBody): void {
  for (const field of COUNTS) {
    if (body[field] !== undefined) throw new ApiError('calculated-field', `"${field}" is calculated from the page's comments and cannot be set.`);
  }
}

const pageNotFound = (id: string) => () => new ApiError('not-found', `No page ${id}.`);

/** Pages: the records of the tenant's pages, and server-side reads of their likes and reactions. */
export const pageRoutes = [
  route<{ skip?: number; limit?: number }, undefined>({
    method: 'GET',
    path: '/api/v1/pages',
    access: 'tenant',
    query: { type: 'object', properties: { skip: { type: 'integer', minimum: 0, maximum: 100_000_000 }, limit: { type: 'integer', minimum: 1, maximum: PAGES_PER_LIST } } },
    // Without a limit, every page of the account (the API's `GetPages` takes no paging): streamed.
    handle: async ({ app, tenantId, query }) => {
      if (query.limit === undefined) return new StreamedJson(allPages(app, tenantId, query.skip ?? 0));
      const { pages, hasMore } = await app.system.ask(SiteKind, tenantId, 'listPages', { skip: query.skip ?? 0, limit: query.limit });
      return { pages: pages.map(pageView), hasMore };
    },
  }),

  route<{ urlId: string }, undefined>({
    method: 'GET',
    path: '/api/v1/pages/by-url-id',
    access: 'tenant',
    query: { type: 'object', properties: { urlId: URL_ID }, required: ['urlId'] },
    missingCodes: { urlId: 'missing-url-id' },
    handle: async ({ app, tenantId, query }) => {
      const urlId = requireUrlId(query.urlId);
      const page = await app.system.ask(PageKind, pageActorId(tenantId, urlId), 'getPage', null);
      if (page === null) throw new ApiError('not-found', `No page with urlId ${urlId}.`);
      return { page: pageView(page) };
    },
  }),

  route<Record<string, unknown>, PageBody>({
    method: 'POST',
    path: '/api/v1/pages',
    access: 'tenant',
    body: CREATE_BODY,
    missingCodes: { urlId: 'missing-url-id' },
    handle: async ({ app, tenantId, body }) => {
      refuseCounts(body);
      const urlId = requireUrlId(body.urlId);
      const page = await app.system.ask(PageKind, pageActorId(tenantId, urlId), 'createPage', {
        url: body.url ?? null,
        title: body.title ?? '',
        accessibleByGroupIds: body.accessibleByGroupIds ?? null,
        isClosed: body.isClosed ?? null,
      });
      pageLocator(app.system).remember('page', tenantId, page._id, urlId);
      return { page: pageView(page) };
    },
  }),

  route<Record<string, unknown>, PageBody>({
    method: 'PATCH',
    path: '/api/v1/pages/:id',
    access: 'tenant',
    params: ID_PARAM,
    body: PATCH_BODY,
    handle: async ({ app, tenantId, params, body }) => {
      refuseCounts(body);
      const id = params['id']!;
      const locator = pageLocator(app.system);
      const { urlId, ...changes } = body;
      const webhooks = await webhookTargets(app.system, tenantId);
      if (urlId !== undefined) {
        requireUrlId(urlId);
        const current = await locator.lookup('page', tenantId, id);
        if (current !== undefined && current !== urlId) {
          const moved = await locator.ask('page', tenantId, id, 'renamePage', { pageId: id, urlId, webhooks }, pageNotFound(id));
          await app.system.ask(PageKind, pageActorId(tenantId, urlId), 'adopt', { commentIds: moved.commentIds, isLive: false });
          locator.remember('page', tenantId, id, urlId);
          for (const commentId of moved.commentIds) locator.remember('comment', tenantId, commentId, urlId);
        }
      }
      const result = await locator.ask('page', tenantId, id, 'patchPage', { pageId: id, changes: changes as never, webhooks }, pageNotFound(id));
      return { page: pageView(result.page), commentsUpdated: result.commentsUpdated };
    },
  }),

  route<Record<string, unknown>, undefined>({
    method: 'DELETE',
    path: '/api/v1/pages/:id',
    access: 'tenant',
    params: ID_PARAM,
    handle: async ({ app, tenantId, params }) => {
      const id = params['id']!;
      await pageLocator(app.system).ask('page', tenantId, id, 'deletePage', { pageId: id }, pageNotFound(id));
      return {};
    },
  }),

  route<{ urlId: string; includeUserInfo?: UserInfoMode }, undefined>({
    method: 'GET',
    path: '/api/v1/pages/likes',
    access: 'tenant',
    query: USER_INFO_QUERY,
    missingCodes: { urlId: 'missing-url-id' },
    handle: async ({ app, tenantId, query }) => {
      const urlId = requireUrlId(query.urlId);
      const mode = query.includeUserInfo;
      const state = await app.system.ask(PageKind, pageActorId(tenantId, urlId), 'reactState', { userKey: null, kind: REACT_KINDS.like, reactId: null, recent: mode === undefined ? 0 : REACT_USERS_LOOKED_UP });
      const users = state.pageExists && mode !== undefined ? await reactUsers(app, tenantId, state, mode) : [];
      return { likeCount: state.pageExists ? state.likeCount : 0, users: users.map((u) => userEntry(u.user, mode === 'include-private')) };
    },
  }),

  route<{ urlId: string; includeUserInfo?: UserInfoMode }, undefined>({
    method: 'GET',
    path: '/api/v1/pages/reacts',
    access: 'tenant',
    query: USER_INFO_QUERY,
    missingCodes: { urlId: 'missing-url-id' },
    handle: async ({ app, tenantId, query }) => {
      const urlId = requireUrlId(query.urlId);
      const mode = query.includeUserInfo;
      const state = await app.system.ask(PageKind, pageActorId(tenantId, urlId), 'reactState', { userKey: null, kind: REACT_KINDS.react, reactId: null, recent: mode === undefined ? 0 : REACT_USERS_LOOKED_UP });
      const users = state.pageExists && mode !== undefined ? await reactUsers(app, tenantId, state, mode) : [];
      return {
        counts: state.pageExists ? state.counts : {},
        users: users.map((u) => ({ reactId: u.reactId, ...userEntry(u.user, mode === 'include-private') })),
      };
    },
  }),
];
