/**
 * A page's likes (v1, one per user) and reactions (v2, one of each reaction id per user),
 * from signed-on users and anonymous sessions alike.
 */
import { clock } from '../../engine/clock.js';
import { pageReactEvent } from './page-events.js';
import { syncPage } from './page-record.js';
import type { PageHost } from './page-state.js';
import type { PageProtocol, ReactState } from './protocol.js';
import { PAGE_REACTS, REACT_KINDS, type ReactDoc, reactDocId } from './react-doc.js';

/** Adds or removes one like or reaction; `code` names a change that did not happen. */
export function react(host: PageHost, { kind, reactId, user, remove, title, url }: PageProtocol['react']['in']): PageProtocol['react']['out'] {
  const { state } = host;
  const id = reactDocId(state.tenantId, state.urlId, kind, reactId, user.key);
  const existing = state.reacts.get(id);
  const like = kind === REACT_KINDS.like;
  if (!remove) {
    if (existing !== undefined) return { code: like ? 'already-liked' : 'already-reacted' };
    const doc: ReactDoc = {
      _id: id,
      tenantId: state.tenantId,
      urlId: state.urlId,
      kind,
      reactId,
      userKey: user.key,
      userId: user.userId,
      createdAt: new Date(clock.now()).toISOString(),
    };
    host.put(PAGE_REACTS, doc);
    state.reacts.set(id, doc);
    syncPage(host, { title, url });
  } else {
    if (existing === undefined) return { code: like ? 'not-liked' : 'no-react' };
    host.remove(PAGE_REACTS, id);
    state.reacts.delete(id);
  }
  const totals = reactTotals(host);
  host.publish(pageReactEvent(state.urlId, totals.likeCount, totals.counts));
  return { code: null };
}

/** Counts, the reader's own likes and reactions, and the most recent reactors. */
export function reactState(host: PageHost, { userKey, kind, reactId, recent }: PageProtocol['reactState']['in']): ReactState {
  const { state } = host;
  const totals = reactTotals(host);
  let didLike = false;
  const reactedIds: string[] = [];
  const matching: ReactDoc[] = [];
  for (const doc of state.reacts.values()) {
    if (doc.userKey === userKey) {
      if (doc.kind === REACT_KINDS.like) didLike = true;
      else reactedIds.push(doc.reactId);
    }
    if (doc.kind === kind && (reactId === null || doc.reactId === reactId)) matching.push(doc);
  }
  matching.sort((a, b) => (a.createdAt > b.createdAt ? -1 : a.createdAt < b.createdAt ? 1 : a._id > b._id ? -1 : 1));
  return {
    likeCount: totals.likeCount,
    didLike,
    counts: totals.counts,
    reactedIds: reactedIds.sort(),
    commentCount: state.page?.commentCount ?? state.counts().commentCount,
    pageExists: state.page !== null,
    accessibleByGroupIds: state.page?.accessibleByGroupIds ?? [],
    recent: matching
      .slice(0, recent)
      .filter((d) => d.userId !== null)
      .map((d) => ({ userId: d.userId!, reactId: d.reactId })),
  };
}

function reactTotals(host: PageHost): { likeCount: number; counts: Record<string, number> } {
  let likeCount = 0;
  // Reaction ids are callers' words: "__proto__" must be a count like any other.
  const counts = Object.create(null) as Record<string, number>;
  for (const doc of host.state.reacts.values()) {
    if (doc.kind === REACT_KINDS.like) likeCount++;
    else counts[doc.reactId] = (counts[doc.reactId] ?? 0) + 1;
  }
  return { likeCount, counts };
}
