/** What the widget API's listing reads of a page actor's state (public-listing.ts). */
import { type CommentDoc, isVisible } from './comment-doc.js';
import { flagId } from './flag-doc.js';
import type { SortDirection } from './listing.js';
import type { PageState } from './page-state.js';
import type { PublicSource } from './public-listing.js';

/** The page's state as the public listing reads it, over the state's sorted caches. */
export function publicSource(state: PageState): PublicSource {
  const base = state.source();
  return {
    doc: (id) => state.comments.get(id),
    sorted: (direction) => base.sorted(direction),
    children: (parentId, direction) => base.children(parentId, direction),
    hidden: () => hiddenOf(state, base.sorted('MR')),
    poll: (id) => state.polls.get(id),
    voteOf: (commentId, voterKey) => state.votes.held(commentId, voterKey),
    flagged: (commentId, voterKey) => state.flags.has(flagId(commentId, voterKey)),
    isClosed: state.page?.isClosed === true,
    counts: () => countsOf(state, base.sorted('MR')),
    // The state rebuilds its most-relevant list on every change of a comment (touch, restructure).
    version: () => base.sorted('MR'),
  };
}

/**
 * The page's hidden comments, kept per version of its most-relevant list: the state rebuilds
 * that list (a new array) whenever any comment changed (`touch`, `restructure`), so a
 * signed-in read does not scan every comment of the page, and never sees a stale one.
 */
const hiddenByVersion = new WeakMap<readonly string[], readonly CommentDoc[]>();

function hiddenOf(state: PageState, version: readonly string[]): readonly CommentDoc[] {
  let hidden = hiddenByVersion.get(version);
  if (hidden === undefined) {
    hidden = [...state.comments.values()].filter((d) => !isVisible(d));
    hiddenByVersion.set(version, hidden);
  }
  return hidden;
}

const countsByVersion = new WeakMap<readonly string[], { commentCount: number; rootCommentCount: number }>();

/** The page's visible counts, kept per version like `hiddenOf`. */
function countsOf(state: PageState, version: readonly string[]): { commentCount: number; rootCommentCount: number } {
  let counts = countsByVersion.get(version);
  if (counts === undefined) {
    counts = state.counts();
    countsByVersion.set(version, counts);
  }
  return counts;
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
    const ordered = [...roots.filter((id) => source.doc(id)?.isPinned), ...roots.filter((id) => !source.doc(id)?.isPinned)];
    const at = ordered.indexOf(commentId);
    out[direction] = at < 0 ? { before: null, after: null } : { before: ordered[at - 1] ?? null, after: ordered[at + 1] ?? null };
  }
  return out;
}
