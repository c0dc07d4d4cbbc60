/**
 * Reading comments: sort orders, filters, paging and trees, as pure functions over what the
 * page actor holds. Output is JSON text built from per-comment JSON the actor caches, so a
 * page of results costs string joins, not a serialisation of every comment.
 *
 * Orders (ties always broken by id, in the same direction as the date):
 * - `OF` oldest first: date ascending;
 * - `NF` newest first: date descending;
 * - `MR` most relevant: votes (up minus down) descending, then newest first.
 */
import type { CommentDoc } from './comment-doc.js';
import type { OrderedIds } from './sorted-ids.js';

/** The API's `SortDirections`. */
export const SORT_DIRECTIONS = { oldestFirst: 'OF', newestFirst: 'NF', mostRelevant: 'MR' } as const;
/** `OF`, `NF` or `MR`. */
export type SortDirection = (typeof SORT_DIRECTIONS)[keyof typeof SORT_DIRECTIONS];

/** Comments per page in precalculated paging when the settings name none. */
export const DEFAULT_PAGE_SIZE = 30;
/** The largest `limit` (and page size) one read may ask for. */
export const MAX_LIST_LIMIT = 1000;

/** A read with every default resolved (by the route, which knows the settings). */
export interface ListQuery {
  readonly direction: SortDirection;
  readonly skip: number;
  readonly limit: number;
  /** undefined: every level; null: top level only; an id: that comment's replies. */
  readonly parentId: string | null | undefined;
  readonly asTree: boolean;
  /** Levels of replies nested under each returned comment in tree mode; null: no limit. */
  readonly maxTreeDepth: number | null;
  /** Replies per comment in tree mode, after `skipChildren`; null: all. */
  readonly limitChildren: number | null;
  readonly skipChildren: number;
  /** Only comments by this user. */
  readonly userId: string | undefined;
  /** Inclusive bounds, ms since the epoch. */
  readonly fromDate: number | undefined;
  readonly toDate: number | undefined;
  /** Normalised tags; a comment must have all of them. */
  readonly hashTagKeys: readonly string[];
}

/** What listing needs from the page actor. */
export interface ListSource {
  doc(id: string): CommentDoc | undefined;
  /** Visible comments of the page, in this order. */
  sorted(direction: SortDirection): OrderedIds;
  /** Visible replies of a comment (null: top-level comments), in this order. */
  children(parentId: string | null, direction: SortDirection): OrderedIds;
  /** The comment's API JSON (an object literal). */
  json(id: string): string;
}

/** Per-reader additions: votes to tag, authors to leave out. */
export interface Viewer {
  /** The reader's vote on a comment, if any. */
  voteOn(commentId: string): { id: string; direction: number } | undefined;
  /** Author keys the reader has blocked. */
  readonly blocked: ReadonlySet<string>;
  /** Tag comments with `isVotedUp`, `isVotedDown`, `myVoteId`. */
  readonly tags: boolean;
}

/** Orders comment documents; the comparator of each sort direction. */
export function comparator(direction: SortDirection): (a: CommentDoc, b: CommentDoc) => number {
  const byId = (a: CommentDoc, b: CommentDoc) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);
  const byDate = (a: CommentDoc, b: CommentDoc) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0) || byId(a, b);
  switch (direction) {
    case 'OF':
      return byDate;
    case 'NF':
      return (a, b) => byDate(b, a);
    default:
      return (a, b) => b.votes - a.votes || byDate(b, a);
  }
}

function hasFilters(q: ListQuery): boolean {
  return q.userId !== undefined || q.fromDate !== undefined || q.toDate !== undefined || q.hashTagKeys.length > 0;
}

/** True when the comment passes the query's filters (not the level or the blocks). */
export function matches(doc: CommentDoc, q: ListQuery): boolean {
  if (q.userId !== undefined && doc.userId !== q.userId) return false;
  if (q.fromDate !== undefined || q.toDate !== undefined) {
    const at = Date.parse(doc.date);
    if (q.fromDate !== undefined && at < q.fromDate) return false;
    if (q.toDate !== undefined && at > q.toDate) return false;
  }
  for (const key of q.hashTagKeys) if (!doc.hashTagKeys.includes(key)) return false;
  return true;
}

/** Appends fields to a JSON object literal. */
function extend(json: string, extra: string): string {
  return extra === '' ? json : `${json.slice(0, -1)}${extra}}`;
}

function viewerFields(viewer: Viewer | undefined, id: string): string {
  if (viewer === undefined || !viewer.tags) return '';
  const vote = viewer.voteOn(id);
  if (vote === undefined) return ',"isVotedUp":false,"isVotedDown":false';
  return `,"isVotedUp":${vote.direction > 0},"isVotedDown":${vote.direction < 0},"myVoteId":${JSON.stringify(vote.id)}`;
}

function blockedOut(source: ListSource, viewer: Viewer | undefined, id: string): boolean {
  if (viewer === undefined || viewer.blocked.size === 0) return false;
  const key = source.doc(id)?.authorKey;
  return key != null && viewer.blocked.has(key);
}

/** The ids a read returns at its top level, before paging. */
function topLevel(source: ListSource, q: ListQuery, viewer: Viewer | undefined): OrderedIds {
  const base = q.parentId === undefined ? source.sorted(q.direction) : source.children(q.parentId, q.direction);
  const filtering = hasFilters(q) || (viewer !== undefined && viewer.blocked.size > 0);
  if (!filtering) return base;
  return base.filter((id) => !blockedOut(source, viewer, id) && matches(source.doc(id)!, q));
}

function treeJson(source: ListSource, q: ListQuery, viewer: Viewer | undefined, id: string, depth: number): string {
  const replies = source.children(id, q.direction).filter((c) => !blockedOut(source, viewer, c));
  let extra = `,"hasChildren":${replies.length > 0}`;
  if (replies.length > 0 && (q.maxTreeDepth === null || depth < q.maxTreeDepth)) {
    const end = q.limitChildren === null ? undefined : q.skipChildren + q.limitChildren;
    const shown = replies.slice(q.skipChildren, end).map((c) => treeJson(source, q, viewer, c, depth + 1));
    extra += `,"children":[${shown.join(',')}]`;
  }
  return extend(source.json(id), viewerFields(viewer, id) + extra);
}

/** The JSON array of comments a read returns. */
export function listJson(source: ListSource, q: ListQuery, viewer?: Viewer): string {
  const ids = topLevel(source, q, viewer).slice(q.skip, q.skip + q.limit);
  const items = q.asTree
    ? ids.map((id) => treeJson(source, q, viewer, id, 0))
    : ids.map((id) => extend(source.json(id), viewerFields(viewer, id)));
  return `[${items.join(',')}]`;
}
