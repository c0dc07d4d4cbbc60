/**
 * The server-rendered fallback (docs/widget.md): `GET /ssr/comments?tenantId&urlId&url` answers
 * a page's thread as HTML that needs no JavaScript, with forms to post, reply and vote that
 * redirect back to the thread. Meant for an iframe in `<noscript>`: only the tenant's sites
 * may frame it. It goes through the widget API's own handlers (same rules, limits, events).
 */
import { pathToFileURL } from 'node:url';
import { fileURLToPath } from 'node:url';
import { tenantSettings } from '../../actors/tenant/tenant-actor.js';
import { ApiError, ERRORS, isErrorCode } from '../../engine/errors.js';
import { componentStrings } from '../../translations/index.js';
import { type AnyRoute, CustomReply, RawJson, route, type RouteRequest, type RouteResult, type Schema } from '../route.js';
import { limitKey } from '../client-address.js';
import { TENANT_ID } from '../public/comment-access.js';
import { checkSite, requestSite } from '../site-check.js';
import { publicCommentActionRoutes } from './public-comment-actions.js';
import { publicCommentRoutes } from './public-comments.js';
import { URL_ID } from './page-context.js';

const RENDERER = pathToFileURL(fileURLToPath(new URL('../../web/ssr-render.mjs', import.meta.url))).href;

interface Renderer {
  renderThread(input: Record<string, unknown>): string;
  renderInline(input: Record<string, unknown>): string;
}
let renderer: Promise<Renderer> | undefined;
function loadRenderer(): Promise<Renderer> {
  renderer ??= (import(RENDERER) as Promise<Renderer>).catch((err: unknown) => {
    renderer = undefined;
    throw new ApiError('not-found', `The widget is not built (${String(err)}): run \`npm run build\`.`);
  });
  return renderer;
}

const DIRECTION: Schema = { type: 'string', enum: ['MR', 'NF', 'OF'] };
const SESSION: Schema = { type: 'string', pattern: '^[A-Za-z0-9_-]{22}$' };
const COMMENT_ID: Schema = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,128}$' };

interface ThreadQuery {
  tenantId: string;
  urlId: string;
  url?: string;
  direction?: 'MR' | 'NF' | 'OF';
  page?: number;
  replyTo?: string;
  sessionId?: string;
  locale?: string;
  error?: string;
  errorAt?: string;
}

const THREAD_FIELDS = {
  tenantId: TENANT_ID,
  urlId: URL_ID,
  url: { type: 'string', maxLength: 4096 },
  direction: DIRECTION,
  page: { type: 'integer', minimum: 0, maximum: 10_000 },
  sessionId: SESSION,
  locale: { type: 'string', pattern: '^[A-Za-z_-]{2,12}$' },
} as const;

const THREAD_QUERY: Schema = {
  type: 'object',
  properties: { ...THREAD_FIELDS, replyTo: COMMENT_ID, error: { type: 'string', pattern: '^[a-z-]{1,64}$' }, errorAt: { type: 'string', maxLength: 140 } },
  required: ['tenantId', 'urlId'],
};

interface PostForm extends ThreadQuery {
  comment: string;
  commenterName?: string;
  commenterEmail?: string;
  parentId?: string;
}
const POST_FORM: Schema = {
  type: 'object',
  properties: { ...THREAD_FIELDS, comment: { type: 'string', maxLength: 50_000 }, commenterName: { type: 'string', maxLength: 1000 }, commenterEmail: { type: 'string', maxLength: 1000 }, parentId: COMMENT_ID },
  required: ['tenantId', 'urlId', 'comment'],
};

interface VoteForm extends ThreadQuery {
  commentId: string;
  voteDir: 'up' | 'down';
}
const VOTE_FORM: Schema = {
  type: 'object',
  properties: { ...THREAD_FIELDS, commentId: COMMENT_ID, voteDir: { type: 'string', enum: ['up', 'down'] } },
  required: ['tenantId', 'urlId', 'commentId', 'voteDir'],
};

const PATH = '/ssr/comments';
const VOTE_PATH = '/ssr/comments/vote';
const INLINE_PATH = '/ssr/comments/inline';

interface InlineQuery {
  tenantId: string;
  urlId: string;
  direction?: 'MR' | 'NF' | 'OF';
  locale?: string;
}
const INLINE_QUERY: Schema = {
  type: 'object',
  properties: { tenantId: TENANT_ID, urlId: URL_ID, direction: DIRECTION, locale: THREAD_FIELDS.locale },
  required: ['tenantId', 'urlId'],
};

/** The string components the widget reads (web/widget/controller.ts `start`). */
const WIDGET_COMPONENTS = ['comment-ui', 'comment-ui-notifications-list', 'comment-ui-online-users'] as const;

/** A call of another route's handler on behalf of this request (same reader, same budget). */
function subRequest<Q, B>(req: RouteRequest<unknown, unknown>, method: 'GET' | 'POST', params: Record<string, string>, query: Q, body: B): RouteRequest<Q, B> {
  const raw = new URLSearchParams();
  for (const [k, v] of Object.entries(query as Record<string, unknown>)) if (v !== undefined) raw.set(k, String(v));
  return {
    method,
    path: req.path,
    params,
    query,
    rawQuery: raw.toString(),
    body,
    // The read answers plain JSON (no compressed encoding) to be rendered here.
    headers: { ...req.headers, 'accept-encoding': 'identity' },
    ip: req.ip,
    auth: undefined,
    tenantId: '',
    app: req.app,
    setHeader: (name, value) => req.setHeader(name, value),
  };
}

/** The thread's address with these values (the values every form carries). */
function threadHref(q: ThreadQuery, changes: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams();
  const values: Record<string, string | undefined> = { tenantId: q.tenantId, urlId: q.urlId, url: q.url, direction: q.direction, page: q.page === undefined ? undefined : String(q.page), sessionId: q.sessionId, locale: q.locale, ...changes };
  for (const [k, v] of Object.entries(values)) if (v !== undefined && v !== '') params.set(k, v);
  return `${PATH}?${params}`;
}

function hiddenFields(q: ThreadQuery): Record<string, string> {
  const out: Record<string, string> = { tenantId: q.tenantId, urlId: q.urlId };
  if (q.url) out['url'] = q.url;
  if (q.direction) out['direction'] = q.direction;
  if (q.sessionId) out['sessionId'] = q.sessionId;
  if (q.locale) out['locale'] = q.locale;
  return out;
}

/** `frame-ancestors` for the tenant's sites (local development sites while it has none). */
function frameAncestors(domains: readonly string[], open: boolean): string {
  const safe = domains.filter((d) => /^[A-Za-z0-9.*:-]{1,253}$/.test(d));
  if (safe.length > 0) return safe.join(' ');
  return open ? '*' : "'self' localhost:* *.localhost:* 127.0.0.1:*";
}

function bodyText(result: RouteResult): Record<string, any> {
  if (result instanceof RawJson) return JSON.parse(String(result.json));
  if (result instanceof CustomReply) return JSON.parse(String(result.body));
  return result as Record<string, any>;
}

/**
 * Forms post from the fallback's own page only: the browser's `Origin` (else `Referer`) must
 * be this server, so no other site can post in a reader's name.
 */
function assertSameOrigin(req: RouteRequest<unknown, unknown>): void {
  const from = req.headers['origin'] || req.headers['referer'];
  let host: string | undefined;
  try {
    host = from ? new URL(from).host : undefined;
  } catch {
    host = undefined;
  }
  if (host === undefined || host !== req.headers['host']) throw new ApiError('csrf-invalid');
}

/**
 * The door of these routes (they are `open`, not `public`, because their own redirects and
 * forms come from this server's host, which is no site of the tenant): the client's request
 * budget (and write budget for forms), and the tenant's sites for a page framing the thread.
 */
async function admit(req: RouteRequest<unknown, unknown>, tenantId: string): Promise<void> {
  const { app } = req;
  const client = limitKey(req.ip);
  app.limits.requests.spend(client, 'requests');
  if (req.method !== 'GET') app.limits.writes.spend(client, 'writes');
  const site = requestSite(req.headers);
  if (site !== undefined && site !== req.headers['host']?.toLowerCase()) await checkSite(app.system, tenantId, site, app.config.openSitesWithoutDomains);
}

function failureRedirect(q: ThreadQuery, err: unknown, at: string): CustomReply {
  if (!(err instanceof ApiError)) throw err;
  const changes: Record<string, string> = { error: err.code, errorAt: at };
  if (at.startsWith('reply:')) changes['replyTo'] = at.slice('reply:'.length);
  return new CustomReply(303, '', 'text/plain; charset=utf-8', [['location', threadHref(q, changes)], ['cache-control', 'no-store']]);
}

function backTo(q: ThreadQuery, sessionId: string | undefined, anchor = ''): CustomReply {
  return new CustomReply(303, '', 'text/plain; charset=utf-8', [['location', threadHref({ ...q, sessionId: sessionId ?? q.sessionId }) + anchor], ['cache-control', 'no-store']]);
}

const readRoute: AnyRoute = publicCommentRoutes.find((r) => r.method === 'GET')!;
const postRoute: AnyRoute = publicCommentRoutes.find((r) => r.method === 'POST')!;
const voteRoute: AnyRoute = (publicCommentActionRoutes as readonly AnyRoute[]).find((r) => r.method === 'POST' && r.path === '/comments/:tenantId/:commentId/vote')!;

async function renderPage(req: RouteRequest<ThreadQuery, undefined>): Promise<CustomReply> {
  const q = req.query;
  const { app } = req;
  await admit(req, q.tenantId);
  const settings = await tenantSettings(app.system, q.tenantId, q.urlId);
  const direction = q.direction ?? ((settings.config['defaultSortDirection'] as ThreadQuery['direction']) || 'MR');
  const answer = bodyText(await readRoute.handle(subRequest(req, 'GET', { tenantId: q.tenantId }, { urlId: q.urlId, page: q.page ?? 0, direction, includeConfig: true, sessionId: q.sessionId }, undefined)));
  const locale = q.locale ?? 'en_us';
  const errorText = q.error && isErrorCode(q.error) ? ERRORS[q.error].message : undefined;
  const { renderThread } = await loadRenderer();
  const markup = renderThread({
    tenantId: q.tenantId,
    urlId: q.urlId,
    locale,
    direction,
    strings: componentStrings('comment-ui', locale) ?? {},
    answer,
    hasDarkBackground: settings.config['hasDarkBackground'] === true,
    customCSS: typeof settings.config['customCSS'] === 'string' ? settings.config['customCSS'] : '',
    links: {
      href: (changes: Record<string, string | undefined>) => threadHref({ ...q, direction }, changes),
      postAction: PATH,
      voteAction: VOTE_PATH,
      hidden: hiddenFields({ ...q, direction }),
      replyTo: q.replyTo,
      error: errorText === undefined ? undefined : { where: q.errorAt === 'new' || q.errorAt?.startsWith('reply:') ? q.errorAt : 'new', text: errorText },
    },
  });
  return new CustomReply(200, markup, 'text/html; charset=utf-8', [
    ['content-security-policy', `default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; form-action 'self'; base-uri 'none'; frame-ancestors ${frameAncestors(settings.allowedDomains, app.config.openSitesWithoutDomains)}`],
    ['cache-control', 'no-store'],
    // Forms and links of the page name it as their origin; other sites learn nothing.
    ['referrer-policy', 'same-origin'],
    ['x-content-type-options', 'nosniff'],
  ]);
}

/**
 * The thread as a fragment for the tenant's own page (fetched by the tenant's server and put
 * inside the widget's element): the widget's markup for a reader without identity in a
 * declarative shadow root, and the state the script takes it over with (docs/widget.md).
 */
async function renderInlineFragment(req: RouteRequest<InlineQuery, undefined>): Promise<CustomReply> {
  const q = req.query;
  const { app } = req;
  await admit(req, q.tenantId);
  const settings = await tenantSettings(app.system, q.tenantId, q.urlId);
  const direction = q.direction ?? ((settings.config['defaultSortDirection'] as InlineQuery['direction']) || 'MR');
  const renderedAt = Date.now();
  const answer = bodyText(await readRoute.handle(subRequest(req, 'GET', { tenantId: q.tenantId }, { urlId: q.urlId, page: 0, direction, includeConfig: true }, undefined)));
  const locale = q.locale ?? 'en_us';
  const strings: Record<string, string> = {};
  for (const component of WIDGET_COMPONENTS) Object.assign(strings, componentStrings(component, locale) ?? {});
  const { renderInline } = await loadRenderer();
  const markup = renderInline({
    tenantId: q.tenantId,
    urlId: q.urlId,
    locale,
    direction,
    strings,
    answer,
    hasDarkBackground: settings.config['hasDarkBackground'] === true,
    customCSS: typeof settings.config['customCSS'] === 'string' ? settings.config['customCSS'] : '',
    renderedAt,
  });
  return new CustomReply(200, markup, 'text/html; charset=utf-8', [
    ['cache-control', 'no-cache'],
    ['x-content-type-options', 'nosniff'],
  ]);
}

/** `GET /ssr/comments`, `POST /ssr/comments` (post, reply) and `POST /ssr/comments/vote`. */
export const ssrCommentRoutes = [
  route<InlineQuery, undefined>({
    method: 'GET',
    path: INLINE_PATH,
    access: 'open',
    answers: 'page',
    query: INLINE_QUERY,
    handle: renderInlineFragment,
  }),
  route<ThreadQuery, undefined>({
    method: 'GET',
    path: PATH,
    access: 'open',
    answers: 'page',
    query: THREAD_QUERY,
    handle: renderPage,
  }),
  route<Record<string, unknown>, PostForm>({
    method: 'POST',
    path: PATH,
    access: 'open',
    answers: 'page',
    form: true,
    body: POST_FORM,
    handle: async (req) => {
      assertSameOrigin(req);
      const f = req.body;
      await admit(req, f.tenantId);
      const at = f.parentId ? `reply:${f.parentId}` : 'new';
      const self = `https://${req.headers['host'] ?? 'localhost'}${threadHref(f)}`;
      try {
        const answer = bodyText(
          await postRoute.handle(
            subRequest(req, 'POST', { tenantId: f.tenantId }, { urlId: f.urlId, sessionId: f.sessionId }, {
              commenterName: f.commenterName ?? '',
              commenterEmail: f.commenterEmail || null,
              comment: f.comment,
              url: f.url && /^https?:\/\//.test(f.url) ? f.url : self,
              urlId: f.urlId,
              parentId: f.parentId ?? null,
            }),
          ),
        );
        return backTo(f, answer['user']?.sessionId ?? undefined, `#fc-${String(answer['comment']?._id ?? '')}`);
      } catch (err) {
        return failureRedirect(f, err, at);
      }
    },
  }),
  route<Record<string, unknown>, VoteForm>({
    method: 'POST',
    path: VOTE_PATH,
    access: 'open',
    answers: 'page',
    form: true,
    body: VOTE_FORM,
    handle: async (req) => {
      assertSameOrigin(req);
      const f = req.body;
      await admit(req, f.tenantId);
      try {
        const answer = bodyText(
          await voteRoute.handle(subRequest(req, 'POST', { tenantId: f.tenantId, commentId: f.commentId }, { urlId: f.urlId, sessionId: f.sessionId }, { voteDir: f.voteDir, url: null, commenterName: null, commenterEmail: null })),
        );
        return backTo(f, answer['user']?.sessionId ?? undefined, `#fc-${f.commentId}`);
      } catch (err) {
        return failureRedirect(f, err, 'new');
      }
    },
  }),
];
