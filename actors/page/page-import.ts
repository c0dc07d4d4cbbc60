/**
 * Imported comments arriving on their page (actors/import): stored in one batch with their
 * votes, the page record created or its counts kept right, and nothing else: no notification,
 * webhook, live event or hashtag, since these comments are history, not news. Ids are derived
 * from the source's ids, so a comment already here (an earlier run of the same import, or a
 * newer export of the same site) is recognised and left as it is.
 */
import { clock } from '../../engine/clock.js';
import { changedComment, COMMENTS, type CommentDoc } from './comment-doc.js';
import { PAGES, type PageDoc } from './page-doc.js';
import { syncPage } from './page-record.js';
import { type PageHost, saveComment } from './page-state.js';
import type { PageProtocol } from './protocol.js';
import { VOTES } from './vote-doc.js';
import { LoopYielder } from './yield-loop.js';

/** `importComments`: stores the comments this page does not have yet, with their votes. */
export async function importComments(host: PageHost, { page, comments, votes }: PageProtocol['importComments']['in']): Promise<PageProtocol['importComments']['out']> {
  const { state } = host;
  const existing: string[] = [];
  const created: string[] = [];
  const seen = new Set<string>();
  // A comment imported before may have been moved to another page since: storage knows.
  const unknown = comments.filter((doc) => !state.comments.has(doc._id)).map((doc) => doc._id);
  const elsewhere = new Set(unknown.length === 0 ? [] : (await host.store.find(COMMENTS, { _id: { $in: unknown } })).map((doc) => doc._id));
  const yielder = new LoopYielder();
  for (const doc of comments) {
    await yielder.tick();
    if (seen.has(doc._id) || state.comments.has(doc._id) || elsewhere.has(doc._id)) {
      existing.push(doc._id);
      continue;
    }
    seen.add(doc._id);
    const stored: CommentDoc = { ...doc, tenantId: state.tenantId, urlId: state.urlId };
    host.insert(COMMENTS, stored);
    state.comments.set(stored._id, stored);
    created.push(stored._id);
  }
  for (const vote of votes) {
    await yielder.tick();
    if (!seen.has(vote.commentId)) continue;
    const stored = { ...vote, tenantId: state.tenantId, urlId: state.urlId };
    host.insert(VOTES, stored);
    state.votes.add(stored);
  }
  state.restructure();
  if (state.page === null) {
    syncPage(host, { title: page.title, url: page.url });
    if (page.isClosed && state.page !== null) {
      const closed: PageDoc = { ...(state.page as PageDoc), isClosed: true, updatedAt: new Date(clock.now()).toISOString() };
      host.put(PAGES, closed);
      state.page = closed;
    }
  } else syncPage(host, null);
  return { created, existing };
}

/**
 * `finishImport`: imported replies whose parent never arrived (not in the export, or skipped)
 * become top-level comments; answers their `externalId`s.
 */
export function finishImport(host: PageHost): PageProtocol['finishImport']['out'] {
  const { state } = host;
  const orphans: string[] = [];
  for (const doc of [...state.comments.values()]) {
    if (doc.parentId === null || doc.externalId === null || state.comments.has(doc.parentId)) continue;
    saveComment(host, changedComment(doc, { parentId: null }));
    orphans.push(doc.externalId);
  }
  if (orphans.length > 0) {
    state.restructure();
    syncPage(host, null);
  }
  return { orphans };
}
