/**
 * The page record of a page actor: created by widget use or the API, its calculated counts
 * kept right, its title, url, groups and closed state changed by the API.
 */
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { newId } from '../../engine/ids.js';
import { changedComment } from './comment-doc.js';
import { PAGES, type PageDoc } from './page-doc.js';
import { type PageHost, saveComment } from './page-state.js';
import { NotOnThisPage, type PageProtocol } from './protocol.js';
import { queueWebhooks } from './page-webhooks.js';
import { WEBHOOK_EVENTS } from '../webhook/protocol.js';
import { PAGE_REACTS } from './react-doc.js';
import { pageThreadStateEvent } from './page-events.js';

/**
 * Keeps the page record's counts right; with `create`, widget use also creates the record
 * when missing and takes its title (and url, if it has none).
 */
export function syncPage(host: PageHost, create: { title: string | null; url: string | null } | null): void {
  const { state } = host;
  const counts = state.counts();
  const page = state.page;
  const nowIso = new Date(clock.now()).toISOString();
  if (page === null) {
    if (create === null) return;
    putPage(host, {
      _id: newId(clock.now()),
      tenantId: state.tenantId,
      urlId: state.urlId,
      url: create.url,
      title: create.title ?? '',
      ...counts,
      isClosed: false,
      accessibleByGroupIds: [],
      createdAt: nowIso,
      updatedAt: nowIso,
    });
    return;
  }
  const title = create?.title ?? page.title;
  const url = page.url ?? create?.url ?? null;
  if (page.commentCount === counts.commentCount && page.rootCommentCount === counts.rootCommentCount && page.title === title && page.url === url) return;
  putPage(host, { ...page, ...counts, title, url, updatedAt: nowIso });
}

function putPage(host: PageHost, page: PageDoc): void {
  host.put(PAGES, page);
  host.state.page = page;
}

/** The record, if it has this id (otherwise it is another page's, or gone). */
export function ownPage(host: PageHost, pageId: string): PageDoc {
  const page = host.state.page;
  if (page === null || page._id !== pageId) throw new NotOnThisPage(pageId);
  return page;
}

/** `createPage`: the record, refused when it exists. */
export function createPage(host: PageHost, { url, title, accessibleByGroupIds, isClosed }: PageProtocol['createPage']['in']): PageDoc {
  const { state } = host;
  if (state.page !== null) throw new ApiError('page-exists', `A page with urlId ${state.urlId} already exists.`);
  syncPage(host, { title, url });
  const page = state.page as PageDoc | null;
  if (page === null) throw new ApiError('internal-error', 'page not created');
  if (accessibleByGroupIds !== null || isClosed !== null) {
    putPage(host, {
      ...page,
      accessibleByGroupIds: accessibleByGroupIds === null ? page.accessibleByGroupIds : [...accessibleByGroupIds],
      isClosed: isClosed ?? page.isClosed,
    });
  }
  if (accessibleByGroupIds !== null && accessibleByGroupIds.length > 0) host.accessChanged();
  return state.page!;
}

/** `patchPage`: the record's fields; a new title or url is copied onto its comments. */
export function patchPage(host: PageHost, { pageId, changes, webhooks }: PageProtocol['patchPage']['in']): PageProtocol['patchPage']['out'] {
  const { state } = host;
  const page = ownPage(host, pageId);
  const next: PageDoc = { ...page, updatedAt: new Date(clock.now()).toISOString() };
  if (changes.title !== undefined) next.title = changes.title;
  if (changes.url !== undefined) next.url = changes.url;
  if (changes.isClosed !== undefined) next.isClosed = changes.isClosed;
  if (changes.accessibleByGroupIds !== undefined) next.accessibleByGroupIds = [...changes.accessibleByGroupIds];
  putPage(host, next);
  if (changes.accessibleByGroupIds !== undefined) host.accessChanged();
  // Every viewer's widget closes (or reopens) the thread at once (docs/moderation.md).
  if (next.isClosed !== page.isClosed) host.publish(pageThreadStateEvent(state.urlId, next.isClosed));
  let commentsUpdated = 0;
  if (changes.title !== undefined || changes.url !== undefined) {
    for (const doc of [...state.comments.values()]) {
      const pageTitle = changes.title ?? doc.pageTitle;
      const url = changes.url ?? doc.url;
      if (pageTitle === doc.pageTitle && url === doc.url) continue;
      const next = changedComment(doc, { pageTitle, url });
      saveComment(host, next);
      queueWebhooks(host, webhooks, WEBHOOK_EVENTS.updated, next);
      commentsUpdated++;
    }
  }
  return { page: next, commentsUpdated };
}

/** `deletePage`: the record and its likes and reactions; comments stay, and widget use recreates it. */
export function deletePage(host: PageHost, { pageId }: PageProtocol['deletePage']['in']): null {
  const { state } = host;
  const page = ownPage(host, pageId);
  host.remove(PAGES, page._id);
  state.page = null;
  for (const id of state.reacts.keys()) host.remove(PAGE_REACTS, id);
  state.clearReacts();
  return null;
}
