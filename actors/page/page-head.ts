/**
 * The head of a page: what the first pages of its root orders need, read from storage indexes
 * before the rest of the page, so that a large page answers its first anonymous view without
 * loading every comment. It holds the first `PageHead.rootsPerOrder` root comments of each order (OF, NF, MR,
 * from the `by_page_parent_*` indexes), every pinned root comment, and the whole thread under
 * each of them (while that stays under `maxReplies` replies).
 *
 * A read is answered from the head only when every comment it shows, and every count, is known
 * to be exact there: a window of root comments inside the prefix of its order that storage has
 * proved complete (nothing unread can rank before the last comment the index returned), replies
 * of a comment held, and the page record's stored counts (kept in the same commits as the
 * comments they count). Anything else waits for the whole page (`source` answers undefined).
 *
 * The head is only read while the page loads, and the page takes no write meanwhile, so it
 * never goes stale. Stored vote counts may lag the votes of the comments a pending-counts
 * marker names (pending-counts.ts): those comments are held too, recounted from their votes,
 * so that every comment left unread has exact counts. A page with no page record, or whose
 * marker names no comments (older versions) or very many, is loaded whole instead.
 */
import type { StoreReader } from '../../engine/actor.js';
import { POLL_COLLECTIONS, type PollDoc, pollView } from '../poll/poll-model.js';
import { changedComment, COMMENTS, type CommentDoc } from './comment-doc.js';
import type { SortDirection } from './listing.js';
import { PAGES, type PageDoc } from './page-doc.js';
import { PageState } from './page-state.js';
import { PENDING_COUNTS, type PendingCountsDoc } from './pending-counts.js';
import type { PublicListQuery, PublicSource } from './public-listing.js';
import { publicSource } from './public-source.js';
import type { OrderEntry, OrderedIds } from './sorted-ids.js';
import { type VoteDoc, VOTES } from './vote-doc.js';
import { VoteIndex } from './vote-index.js';

/** Pinned root comments read at most; past it, root reads wait for the page. */
const MAX_PINNED = 200;
/** Comments with lagging stored counts recounted at most; past it, the page is loaded whole. */
const MAX_LAGGING = 2000;

type Prefixes = Record<SortDirection, OrderEntry | null>;

function entryOf(doc: CommentDoc): OrderEntry {
  return { id: doc._id, date: doc.date, votes: doc.votes };
}

/** The last entry an index read returned when it was cut by its limit (null: it returned every match). */
function boundOf(docs: readonly CommentDoc[], limit: number): OrderEntry | null {
  return docs.length < limit ? null : entryOf(docs[docs.length - 1]!);
}

/** The comments of the page among `ids`, with their vote counts recounted from their votes. */
async function recounted(store: StoreReader, tenantId: string, urlId: string, ids: readonly string[]): Promise<CommentDoc[]> {
  const [docs, votes] = await Promise.all([
    store.find<CommentDoc>(COMMENTS, { _id: { $in: ids } }),
    store.find<VoteDoc>(VOTES, { tenantId, urlId, commentId: { $in: ids } }),
  ]);
  const index = new VoteIndex(tenantId, urlId);
  for (const vote of votes) index.add(vote);
  const totals = index.totals();
  return docs
    .filter((doc) => doc.tenantId === tenantId && doc.urlId === urlId)
    .map((doc) => changedComment(doc, totals.get(doc._id) ?? { votes: 0, votesUp: 0, votesDown: 0 }));
}

/** A proven prefix of an order, answering the order's full length (the page record's count). */
class HeadIds implements OrderedIds {
  constructor(
    readonly base: OrderedIds,
    readonly length: number,
  ) {}

  slice(start?: number, end?: number): string[] {
    const n = this.length;
    const from = start === undefined ? 0 : start < 0 ? Math.max(0, n + start) : Math.min(start, n);
    const to = end === undefined ? n : end < 0 ? Math.max(0, n + end) : Math.min(end, n);
    return this.base.slice(from, to);
  }

  indexOf(id: string): number {
    return this.base.indexOf(id);
  }

  filter(keep: (id: string) => boolean): string[] {
    return this.base.filter(keep);
  }

  [Symbol.iterator](): Iterator<string> {
    return this.base[Symbol.iterator]();
  }
}

/** A page's head: see the module comment. */
export class PageHead {
  /** Root comments read per order: two pages of the widget's default page size (30); 0 loads every page whole. */
  static rootsPerOrder = 60;
  /** Replies read under the head's root comments at most; past it, thread reads wait for the page. */
  static maxReplies = 4000;
  /** Reads answered from a head so far, in this process (tests check that heads answer). */
  static answered = 0;

  /** The comments read, in a page state of their own. */
  readonly state: PageState;
  readonly #bounds: Prefixes;
  /** Whether the whole thread under every comment held was read. */
  readonly #threads: boolean;
  readonly #pinnedAll: boolean;

  private constructor(state: PageState, bounds: Prefixes, threads: boolean, pinnedAll: boolean) {
    this.state = state;
    this.#bounds = bounds;
    this.#threads = threads;
    this.#pinnedAll = pinnedAll;
  }

  /** True when the head holds the whole page. */
  get complete(): boolean {
    return this.#threads && this.#pinnedAll && this.#bounds.OF === null && this.#bounds.NF === null && this.#bounds.MR === null;
  }

  /** Reads the head of a page; undefined when the page must be loaded whole (see the module comment). */
  static async load(store: StoreReader, tenantId: string, urlId: string, actorId: string): Promise<PageHead | undefined> {
    const page = { tenantId, urlId };
    if (PageHead.rootsPerOrder === 0) return undefined;
    const [pending, pages] = await Promise.all([store.get<PendingCountsDoc>(PENDING_COUNTS, actorId), store.find<PageDoc>(PAGES, page)]);
    const record = pages[0];
    const size = PageHead.rootsPerOrder;
    const maxReplies = PageHead.maxReplies;
    const lagging = pending === undefined ? [] : pending.commentIds;
    if (lagging === undefined || lagging.length > MAX_LAGGING || record === undefined || size === 0) return undefined;
    const roots = { ...page, parentId: null };
    const [of, nf, mr, pinned] = await Promise.all([
      store.find<CommentDoc>(COMMENTS, roots, { sort: [['date', 1], ['_id', 1]], limit: size }),
      store.find<CommentDoc>(COMMENTS, roots, { sort: [['date', -1], ['_id', -1]], limit: size }),
      store.find<CommentDoc>(COMMENTS, roots, { sort: [['votes', -1], ['date', -1], ['_id', -1]], limit: size }),
      store.find<CommentDoc>(COMMENTS, { ...page, isPinned: true }, { limit: MAX_PINNED + 1 }),
    ]);
    const docs = new Map<string, CommentDoc>();
    for (const list of [of, nf, mr, pinned]) for (const doc of list) docs.set(doc._id, doc);
    // Comments whose stored counts lag their votes: held, with their counts taken from the votes.
    // Every comment left unread then has exact stored counts, so the prefixes below hold.
    if (lagging.length > 0) for (const doc of await recounted(store, tenantId, urlId, lagging)) docs.set(doc._id, doc);
    // Every thread under what is held, a level at a time, while the replies stay few enough.
    let frontier = [...docs.keys()];
    let replies = 0;
    while (frontier.length > 0 && replies <= maxReplies) {
      const found = await store.find<CommentDoc>(COMMENTS, { ...page, parentId: { $in: frontier } }, { limit: maxReplies - replies + 1 });
      replies += found.length;
      frontier = [];
      for (const doc of found) {
        if (docs.has(doc._id)) continue;
        docs.set(doc._id, doc);
        frontier.push(doc._id);
      }
    }
    const state = new PageState(tenantId, urlId, () => {});
    state.page = record;
    state.holdAll([...docs.values()]);
    const withPolls = [...docs.values()].filter((d) => d.hasPoll).map((d) => d._id);
    if (withPolls.length > 0) {
      for (const poll of await store.find<PollDoc>(POLL_COLLECTIONS.polls, { _id: { $in: withPolls } })) {
        if (poll.tenantId === tenantId) state.polls.set(poll._id, pollView(poll));
      }
    }
    const bounds: Prefixes = { OF: boundOf(of, size), NF: boundOf(nf, size), MR: boundOf(mr, size) };
    return new PageHead(state, bounds, frontier.length === 0 && replies <= maxReplies, pinned.length <= MAX_PINNED);
  }

  /** Visible root comments held at the start of an order that no unread comment can precede. */
  #provenRoots(direction: SortDirection): number {
    const orders = this.state.comments.index.baseOrders(null);
    if (orders === undefined) return 0;
    const bound = this.#bounds[direction];
    if (bound === null) return orders.of.length;
    if (direction === 'OF') return orders.of.countBefore(bound);
    if (direction === 'MR') return orders.mr.countBefore(bound);
    // Newest first: what comes after the bound in oldest-first order (the bound itself left out).
    return Math.max(0, orders.of.length - orders.of.countBefore(bound) - 1);
  }

  /** The page's visible counts: the head's own when it holds the whole page, else the page record's. */
  counts(): { commentCount: number; rootCommentCount: number } {
    if (this.complete) return this.state.counts();
    const page = this.state.page!;
    return { commentCount: page.commentCount, rootCommentCount: page.rootCommentCount };
  }

  /**
   * What an anonymous read of the widget API reads, if the head answers it exactly as the whole
   * page would; undefined when the read must wait for the whole page.
   */
  source(q: PublicListQuery): PublicSource | undefined {
    if (q.searchText !== null || q.hashTagKeys.length > 0) return undefined;
    if (q.afterCommentId !== null || q.beforeCommentId !== null || q.fetchPageForCommentId !== null) return undefined;
    if (!this.#threads || !this.#pinnedAll) return undefined;
    const base = publicSource(this.state);
    const counts = this.counts();
    const source: PublicSource = { ...base, counts: () => counts };
    if (q.parentId !== null) {
      if (!this.state.comments.has(q.parentId)) return undefined;
      PageHead.answered++;
      return source;
    }
    const end = (q.skip ?? q.page * q.limit) + q.limit;
    const pinned = this.state.comments.index.pinnedRoots().size;
    if (end + pinned > this.#provenRoots(q.direction)) return undefined;
    const complete = this.complete;
    PageHead.answered++;
    return {
      ...source,
      children: (parentId, direction) => {
        const ids = base.children(parentId, direction);
        return parentId !== null || complete ? ids : new HeadIds(ids, counts.rootCommentCount);
      },
    };
  }
}
