/**
 * Reading a page's comments through the widget API (`GET /comments/{tenantId}`), as pure
 * functions over what the page actor holds. The answer is JSON text joined from per-comment
 * JSON cached per stored document, so building a page costs string joins, and an anonymous
 * reader's answer is built once per change of the page (public-answers.ts keeps it).
 *
 * Orders (of root comments; replies follow the same order, without the pinning):
 * - pinned comments come first in every order, in that order among themselves;
 * - `OF` oldest first, `NF` newest first;
 * - `MR` most relevant (the default): net votes (up minus down) descending, then newest first.
 * Ties are broken by id. See docs/public-api.md.
 *
 * Paging is over root comments (or the replies of `parentId`): `page` × page size, or `skip`
 * and `limit`, or a cursor (`afterCommentId` / `beforeCommentId`). Without `asTree` each root
 * comment of the page is followed by all its visible replies (every level, flat, each naming
 * its `parentId`); with `asTree` replies are nested under `children`. A search (`searchText`,
 * `hashTags`) answers matching comments of every level, flat, in the order asked.
 */
import type { CommentDoc } from './comment-doc.js';
import { editKeyFor } from './edit-key.js';
import type { SortDirection } from './listing.js';
import { PinnedFirst } from './pinned-first.js';
import { isOwnComment, ownFields, publicCommentJson } from './public-comment.js';
import type { OrderedIds } from './sorted-ids.js';

/** A widget read with every default resolved by the route. */
export interface PublicListQuery {
  readonly direction: SortDirection;
  /** The page asked for (precalculated paging), used unless `skip` is given. */
  readonly page: number;
  /** Flexible paging: root comments to skip; null with precalculated paging. */
  readonly skip: number | null;
  /** Root comments per answer. */
  readonly limit: number;
  readonly asTree: boolean;
  readonly maxTreeDepth: number | null;
  readonly limitChildren: number | null;
  readonly skipChildren: number;
  readonly countChildren: boolean;
  /** null: the page's root comments; an id: that comment's replies. */
  readonly parentId: string | null;
  readonly fetchPageForCommentId: string | null;
  readonly afterCommentId: string | null;
  readonly beforeCommentId: string | null;
  readonly countAll: boolean;
  readonly hashTagKeys: readonly string[];
  /** Lower-cased text a comment must contain; null: no search. */
  readonly searchText: string | null;
}

/** The reader of a personal answer: whose votes, flags, blocks and pending comments to show. */
export interface PublicReader {
  readonly userId: string | null;
  readonly anonUserId: string | null;
  /** `u:<userId>` or `a:<anonUserId>`: the reader's votes and flags. */
  readonly voterKey: string | null;
  /** Author keys the reader blocked. */
  readonly blocked: readonly string[];
  /** The reader's edit secret (anonymous authors): their comments carry their edit keys. */
  readonly editSecret: string | null;
}

/** What the listing reads from the page actor. */
export interface PublicSource {
  doc(id: string): CommentDoc | undefined;
  /** Visible comments of every level, in this order. */
  sorted(direction: SortDirection): OrderedIds;
  /** Visible replies of a comment (null: root comments), in this order. */
  children(parentId: string | null, direction: SortDirection): OrderedIds;
  /** Visible root comments that are pinned. */
  pinnedRoots(): ReadonlySet<string>;
  /** Comments held that readers do not see (awaiting approval, spam): a reader's own are shown to them. */
  hidden(): readonly CommentDoc[];
  /** The poll of a comment, if it has one. */
  poll(id: string): unknown;
  /** The reader's vote on a comment. */
  voteOf(commentId: string, voterKey: string): { readonly id: string; readonly direction: number } | undefined;
  /** Whether the reader flagged a comment. */
  flagged(commentId: string, voterKey: string): boolean;
  readonly isClosed: boolean;
  counts(): { commentCount: number; rootCommentCount: number };
  /** An object that is replaced whenever any comment of the page changes (for caches derived from them). */
  version(): object;
}

/** Levels of replies nested in tree mode at most, whatever `maxTreeDepth` says (deeper ones: `hasChildren`). */
export const MAX_TREE_DEPTH = 100;

/** The per-document public JSON: documents are replaced on every change, so the cache never goes stale. */
const jsonCache = new WeakMap<CommentDoc, { poll: unknown; json: string }>();

function sharedJson(source: PublicSource, doc: CommentDoc): string {
  const poll = source.poll(doc._id);
  const hit = jsonCache.get(doc);
  if (hit !== undefined && hit.poll === poll) return hit.json;
  const json = publicCommentJson(doc, poll);
  jsonCache.set(doc, { poll, json });
  return json;
}

/** Root lists with pinned comments first, per version of the page and per sorted list. */
const pinnedOrders = new WeakMap<object, WeakMap<OrderedIds, OrderedIds>>();

/** Pinned first, the rest in the order given; kept per version, so a read does not scan the page. */
function pinnedFirst(source: PublicSource, ids: OrderedIds): OrderedIds {
  const pinned = source.pinnedRoots();
  if (pinned.size === 0) return ids;
  const version = source.version();
  let lists = pinnedOrders.get(version);
  if (lists === undefined) pinnedOrders.set(version, (lists = new WeakMap()));
  let ordered = lists.get(ids);
  if (ordered === undefined) {
    ordered = new PinnedFirst(ids, pinned);
    lists.set(ids, ordered);
  }
  return ordered;
}

/** Builds one answer: shared by every anonymous reader when `reader` is null. */
class Builder {
  readonly #pending = new Map<string | null, string[]>();
  /** With `record`: comments whose JSON the answer holds, and whose replies it read (null: the root list). */
  readonly shown: Set<string> | undefined;
  readonly expanded: Set<string | null> | undefined;

  constructor(
    readonly source: PublicSource,
    readonly q: PublicListQuery,
    readonly reader: PublicReader | null,
    record = false,
  ) {
    if (record) {
      this.shown = new Set();
      this.expanded = new Set();
    }
    if (reader === null || (reader.userId === null && reader.anonUserId === null)) return;
    // The reader's own held comments (awaiting approval, or taken for spam): theirs to see.
    const mine = source.hidden().filter((d) => !d.isDeleted && isOwnComment(d, reader));
    mine.sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
    for (const doc of mine) {
      const list = this.#pending.get(doc.parentId);
      if (list === undefined) this.#pending.set(doc.parentId, [doc._id]);
      else list.push(doc._id);
    }
  }

  /** Replies of a comment (null: roots) as this reader sees them: the reader's held ones first. */
  kids(parentId: string | null): OrderedIds {
    this.expanded?.add(parentId);
    const visible = this.source.children(parentId, this.q.direction);
    const ordered = parentId === null ? pinnedFirst(this.source, visible) : visible;
    const own = this.#pending.get(parentId);
    return own === undefined ? ordered : [...own, ...ordered];
  }

  item(id: string, extra = ''): string {
    this.shown?.add(id);
    const doc = this.source.doc(id)!;
    const json = sharedJson(this.source, doc);
    const personal = this.#personal(doc) + extra;
    return personal === '' ? json : `${json.slice(0, -1)}${personal}}`;
  }

  #personal(doc: CommentDoc): string {
    const reader = this.reader;
    if (reader === null) return '';
    let out = '';
    if (reader.voterKey !== null) {
      const vote = this.source.voteOf(doc._id, reader.voterKey);
      out += vote === undefined ? ',"isVotedUp":false,"isVotedDown":false' : `,"isVotedUp":${vote.direction > 0},"isVotedDown":${vote.direction < 0},"myVoteId":${JSON.stringify(vote.id)}`;
      out += `,"isFlagged":${this.source.flagged(doc._id, reader.voterKey)}`;
    }
    out += `,"isBlocked":${doc.authorKey !== null && reader.blocked.includes(doc.authorKey)}`;
    if (isOwnComment(doc, reader)) {
      const key = reader.editSecret !== null && doc.anonUserId !== null && doc.anonUserId === reader.anonUserId ? editKeyFor(reader.editSecret, doc._id) : null;
      out += ownFields(doc, key);
    }
    return out;
  }

  tree(id: string, depth: number): { json: string; nested: number } {
    const replies = this.kids(id);
    let extra = `,"hasChildren":${replies.length > 0}`;
    if (this.q.countChildren) extra += `,"childCount":${replies.length}`;
    let nested = 0;
    if (replies.length > 0 && depth < Math.min(this.q.maxTreeDepth ?? MAX_TREE_DEPTH, MAX_TREE_DEPTH)) {
      const end = this.q.limitChildren === null ? undefined : this.q.skipChildren + this.q.limitChildren;
      const shown = replies.slice(this.q.skipChildren, end).map((c) => this.tree(c, depth + 1));
      for (const child of shown) nested += 1 + child.nested;
      extra += `,"nestedChildrenCount":${nested},"children":[${shown.map((c) => c.json).join(',')}]`;
    }
    return { json: this.item(id, extra), nested };
  }

  /** A root comment and every reply under it, depth first, flat (without recursion: threads may be deep). */
  flat(id: string, out: string[]): void {
    const stack = [id];
    while (stack.length > 0) {
      const next = stack.pop()!;
      out.push(this.item(next));
      const kids = this.kids(next).slice();
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
    }
  }
}

/** The root comment a comment hangs under (itself for a root), or undefined when not held. */
function rootOf(source: PublicSource, id: string): string | undefined {
  let doc = source.doc(id);
  for (let hops = 0; doc !== undefined && doc.parentId !== null && hops < 10_000; hops++) doc = source.doc(doc.parentId);
  return doc?._id;
}

function matchesSearch(doc: CommentDoc, q: PublicListQuery): boolean {
  for (const key of q.hashTagKeys) if (!doc.hashTagKeys.includes(key)) return false;
  if (q.searchText !== null && !doc.comment.toLowerCase().includes(q.searchText) && !(doc.commenterName ?? '').toLowerCase().includes(q.searchText)) return false;
  return true;
}

/** Where the answer's slice of root comments starts, and the page number it is. */
function window(source: PublicSource, q: PublicListQuery, roots: OrderedIds): { start: number; end: number; pageNumber: number } {
  const limit = q.limit;
  if (q.afterCommentId !== null) {
    const at = roots.indexOf(q.afterCommentId);
    const start = at + 1;
    return { start, end: start + limit, pageNumber: Math.floor(start / Math.max(limit, 1)) };
  }
  if (q.beforeCommentId !== null) {
    const at = roots.indexOf(q.beforeCommentId);
    const end = at < 0 ? 0 : at;
    const start = Math.max(0, end - limit);
    return { start, end, pageNumber: Math.floor(start / Math.max(limit, 1)) };
  }
  let page = q.page;
  if (q.fetchPageForCommentId !== null) {
    const root = rootOf(source, q.fetchPageForCommentId);
    const at = root === undefined ? -1 : roots.indexOf(root);
    if (at >= 0) page = Math.floor(at / Math.max(limit, 1));
  }
  const start = q.skip ?? page * limit;
  return { start, end: start + limit, pageNumber: q.skip === null ? page : Math.floor(start / Math.max(limit, 1)) };
}

/** Whether a query is a search (`searchText`, `hashTags`): it reads every comment of the page. */
export function isSearch(q: PublicListQuery): boolean {
  return q.searchText !== null || q.hashTagKeys.length > 0;
}

/** Whether the window of a query is placed by a comment (a cursor, or `fetchPageForCommentId`). */
export function isAnchored(q: PublicListQuery): boolean {
  return q.afterCommentId !== null || q.beforeCommentId !== null || q.fetchPageForCommentId !== null;
}

/** The root comments an anonymous answer of a (non-search) query shows, and its paging fields. */
export interface PublicWindow {
  readonly slice: readonly string[];
  readonly pageNumber: number;
  readonly hasMore: boolean;
}

function windowOf(source: PublicSource, q: PublicListQuery, roots: OrderedIds): PublicWindow {
  const w = window(source, q, roots);
  return { slice: roots.slice(w.start, w.end), pageNumber: w.pageNumber, hasMore: w.end < roots.length };
}

/** The window an anonymous reader's answer of a non-search query shows now: O(log n + limit), no comment JSON. */
export function publicWindow(source: PublicSource, q: PublicListQuery): PublicWindow {
  return windowOf(source, q, new Builder(source, q, null).kids(q.parentId));
}

/**
 * What an anonymous answer read of the page, to tell which changes alter it (public-cache.ts):
 * the window it slices, the comments it shows and those whose replies it walked.
 */
export interface ListFootprint {
  /** null for a search, which reads every comment. */
  readonly window: PublicWindow | null;
  readonly shown: ReadonlySet<string>;
  /** Comments whose replies the answer read below its window's roots (not the listed parent itself). */
  readonly expanded: ReadonlySet<string>;
}

/** An answer in two parts: its comments (the costly part) and the page-wide fields around them. */
export interface ListParts {
  /** `{"status":"success","comments":[...]`. */
  readonly items: string;
  readonly pageNumber: number;
  readonly hasMore: boolean;
  readonly commentCount: number;
  readonly isClosed: boolean;
}

/** The page-wide fields an answer of `q` shows now (its comments aside). */
export function envelopeOf(source: PublicSource, q: PublicListQuery): { commentCount: number; isClosed: boolean } {
  const counts = source.counts();
  return { commentCount: q.countAll ? counts.commentCount : counts.rootCommentCount, isClosed: source.isClosed };
}

/** The answer's body from its parts, followed by `tail` and `}`. */
export function joinParts(parts: ListParts, tail: string): string {
  return `${parts.items},"pageNumber":${parts.pageNumber},"hasMore":${parts.hasMore},"commentCount":${parts.commentCount},"isClosed":${parts.isClosed}${tail}}`;
}

/** Builds an answer's parts; with `record`, also what it read (for an anonymous answer kept by public-cache.ts). */
export function publicListParts(source: PublicSource, q: PublicListQuery, reader: PublicReader | null, record = false): { parts: ListParts; footprint: ListFootprint | undefined } {
  const b = new Builder(source, q, reader, record);
  let items: string[];
  let pageNumber: number;
  let hasMore: boolean;
  let listed: PublicWindow | null = null;
  if (isSearch(q)) {
    const found = source.sorted(q.direction).filter((id) => matchesSearch(source.doc(id)!, q));
    const start = q.skip ?? q.page * q.limit;
    items = found.slice(start, start + q.limit).map((id) => b.item(id));
    pageNumber = q.skip === null ? q.page : Math.floor(start / Math.max(q.limit, 1));
    hasMore = start + q.limit < found.length;
  } else {
    const roots = b.kids(q.parentId);
    b.expanded?.delete(q.parentId);
    listed = windowOf(source, q, roots);
    pageNumber = listed.pageNumber;
    hasMore = listed.hasMore;
    if (q.asTree) items = listed.slice.map((id) => b.tree(id, 0).json);
    else {
      items = [];
      for (const id of listed.slice) b.flat(id, items);
    }
  }
  const parts = { items: `{"status":"success","comments":[${items.join(',')}]`, pageNumber, hasMore, ...envelopeOf(source, q) };
  if (!record) return { parts, footprint: undefined };
  const expanded = new Set<string>();
  for (const id of b.expanded!) if (id !== null) expanded.add(id);
  return { parts, footprint: { window: listed, shown: b.shown!, expanded } };
}

/**
 * The answer's body: `{"status":"success","comments":[...],"pageNumber":..,"hasMore":..,
 * "commentCount":..,"isClosed":..` followed by `tail` and `}`.
 */
export function publicListJson(source: PublicSource, q: PublicListQuery, reader: PublicReader | null, tail: string): string {
  return joinParts(publicListParts(source, q, reader).parts, tail);
}
