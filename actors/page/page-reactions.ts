/**
 * A page's likes (v1, one per user) and reactions (v2, one of each reaction id per user),
 * from signed-on users and anonymous sessions alike. Widgets reach these without an API key,
 * so what they may do is bounded: distinct reaction ids per page, pages created per tenant per
 * hour, and, on pages that require single sign-on, only signed-on readers of the page's groups.
 */
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { TenantKind } from '../tenant/tenant-actor.js';
import { pageReactEvent } from './page-events.js';
import { syncPage } from './page-record.js';
import type { PageHost } from './page-state.js';
import type { PageProtocol, ReactRules, ReactState } from './protocol.js';
import { PAGE_REACTS, REACT_KINDS, type ReactDoc, reactDocId } from './react-doc.js';

type ReactRequest = PageProtocol['react']['in'];
type ReactAnswer = PageProtocol['react']['out'];

/** Adds or removes one like or reaction; `code` names a change that did not happen. */
export function react(host: PageHost, request: ReactRequest): ReactAnswer | Promise<ReactAnswer> {
  const { state } = host;
  checkReader(host, request.rules);
  const id = reactDocId(state.tenantId, state.urlId, request.kind, request.reactId, request.user.key);
  const existing = state.reacts.get(id);
  const like = request.kind === REACT_KINDS.like;
  if (request.remove) {
    if (existing === undefined) return { code: like ? 'not-liked' : 'no-react' };
    host.remove(PAGE_REACTS, id);
    publish(host, request, state.removeReact(id));
    return { code: null };
  }
  if (existing !== undefined) return { code: like ? 'already-liked' : 'already-reacted' };
  if (!like && !state.reactCounts.has(request.reactId) && state.reactCounts.size >= request.rules.maxReactionIds) {
    throw new ApiError('too-many-reaction-ids', `This page already has ${request.rules.maxReactionIds} different reactions (maxReactionIdsPerPage).`);
  }
  // A page this request would create counts toward the tenant's hourly bound first.
  if (state.page === null) return admitPage(host, request.rules).then(() => add(host, request, id));
  return add(host, request, id);
}

async function admitPage(host: PageHost, rules: ReactRules): Promise<void> {
  await host.system.ask(TenantKind, host.state.tenantId, 'admitPublicPage', { perHour: rules.pagesPerHour });
}

function add(host: PageHost, request: ReactRequest, id: string): ReactAnswer {
  const { state } = host;
  // Checked again: the page may have been created while the tenant was asked.
  if (state.reacts.has(id)) return { code: request.kind === REACT_KINDS.like ? 'already-liked' : 'already-reacted' };
  const doc: ReactDoc = {
    _id: id,
    tenantId: state.tenantId,
    urlId: state.urlId,
    kind: request.kind,
    reactId: request.reactId,
    userKey: request.user.key,
    userId: request.user.userId,
    createdAt: new Date(clock.now()).toISOString(),
  };
  host.put(PAGE_REACTS, doc);
  state.addReact(doc);
  syncPage(host, { title: request.title, url: request.url });
  publish(host, request, request.kind === REACT_KINDS.like ? state.likeCount : state.reactCounts.get(request.reactId)!);
  return { code: null };
}

/** The change, not the page: a like's new total, or one reaction id's new count. */
function publish(host: PageHost, request: ReactRequest, count: number): void {
  host.publish(pageReactEvent(host.state.urlId, request.kind === REACT_KINDS.like ? { kind: 'like', likeCount: count } : { kind: 'react', reactId: request.reactId, count }));
}

/** On a page that requires single sign-on, the reader must share a group with it (when it has groups). */
function checkReader(host: PageHost, rules: ReactRules): void {
  if (rules.readerGroups === null) return;
  const groups = host.state.page?.accessibleByGroupIds ?? [];
  if (groups.length === 0) return;
  if (!groups.some((g) => rules.readerGroups!.includes(g))) throw new ApiError('page-forbidden', 'This page is restricted to groups this user is not in.');
}

/** Counts, the reader's own likes and reactions, and (when `recent` > 0) the most recent reactors. */
export function reactState(host: PageHost, { userKey, kind, reactId, recent }: PageProtocol['reactState']['in']): ReactState {
  const { state } = host;
  let didLike = false;
  const reactedIds: string[] = [];
  const matching: ReactDoc[] = [];
  for (const doc of state.reacts.values()) {
    if (doc.userKey === userKey) {
      if (doc.kind === REACT_KINDS.like) didLike = true;
      else reactedIds.push(doc.reactId);
    }
    if (recent > 0 && doc.kind === kind && (reactId === null || doc.reactId === reactId)) matching.push(doc);
  }
  matching.sort((a, b) => (a.createdAt > b.createdAt ? -1 : a.createdAt < b.createdAt ? 1 : a._id > b._id ? -1 : 1));
  // Reaction ids are callers' words: "__proto__" must be a count like any other.
  const counts = Object.create(null) as Record<string, number>;
  for (const [id, n] of state.reactCounts) counts[id] = n;
  return {
    likeCount: state.likeCount,
    didLike,
    counts,
    reactedIds: reactedIds.sort(),
    commentCount: state.page?.commentCount ?? state.counts().commentCount,
    pageExists: state.page !== null,
    accessibleByGroupIds: state.page?.accessibleByGroupIds ?? [],
    // The most recent are looked up; anonymous readers among them are left out.
    recent: matching
      .slice(0, recent)
      .filter((d) => d.userId !== null)
      .map((d) => ({ userId: d.userId!, reactId: d.reactId })),
  };
}
