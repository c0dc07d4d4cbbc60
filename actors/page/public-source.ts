/** What the widget API's listing reads of a page actor's state (public-listing.ts). */
import type { CommentDoc } from './comment-doc.js';
import { flagId } from './flag-doc.js';
import type { SortDirection } from './listing.js';
import type { PageState } from './page-state.js';
import type { PublicSource } from './public-listing.js';

/** The page's state as the public listing reads it, over the state's indexes. */
export function publicSource(state: PageState): PublicSource {
  const base = state.source();
  const index = state.comments.index;
  return {
    doc: (id) => state.comments.get(id),
    sorted: (direction) => base.sorted(direction),
    children: (parentId, direction) => base.children(parentId, direction),
    pinnedRoots: () => index.pinnedRoots(),
    hidden: () => hiddenOf(state, index.hidden()),
    poll: (id) => state.polls.get(id),
    voteOf: (commentId, voterKey) => state.votes.held(commentId, voterKey),
    flagged: (commentId, voterKey) => state.flags.has(flagId(commentId, voterKey)),
    isClosed: state.page?.isClosed === true,
    counts: () => state.counts(),
    version: () => state.version(),
  };
}

function hiddenOf(state: PageState, ids: ReadonlySet<string>): CommentDoc[] {
  const out: CommentDoc[] = [];
  for (const id of ids) out.push(state.comments.get(id)!);
  return out;
}

const DIRECTIONS: readonly SortDirection[] = ['OF', 'NF', 'MR'];

/**
 * Where a root comment sits in each order (`commentPositions` of pin and unpin answers and
 * events): the visible root comments just before and after it, pinned ones first.
 */
export function commentPositions(source: PublicSource, commentId: string): Record<SortDirection, { before: string | null; after: string | null }> {
  const out = {} as Record<SortDirection, { before: string | null; after: string | null }>;
  for (const direction of DIRECTIONS) {
    const roots = source.children(null, direction);
    const ordered = [...roots.filter((id) => source.doc(id)?.isPinned === true), ...roots.filter((id) => source.doc(id)?.isPinned !== true)];
    const at = ordered.indexOf(commentId);
    out[direction] = at < 0 ? { before: null, after: null } : { before: ordered[at - 1] ?? null, after: ordered[at + 1] ?? null };
  }
  return out;
}
