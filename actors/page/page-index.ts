/**
 * The page's comment indexes, kept in step with every change of its comment map
 * (`CommentMap`): the orders of visible comments (oldest first and most relevant, over the
 * whole page and per parent; newest first is oldest first read backwards), the visible counts,
 * the hidden comments, the pinned root comments, every comment's replies (visible or not) and
 * the comments of each author. A change costs O(log n) per order it moves in, never a sort.
 */
import { type CommentDoc, isVisible } from './comment-doc.js';
import type { SortDirection } from './listing.js';
import { BLOCK, NO_IDS, type OrderEntry, type OrderedIds, ReversedIds, SortedIds } from './sorted-ids.js';

function byId(a: OrderEntry, b: OrderEntry): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Oldest first: date ascending, then id. */
export function oldestFirst(a: OrderEntry, b: OrderEntry): number {
  return (a.date < b.date ? -1 : a.date > b.date ? 1 : 0) || byId(a, b);
}

/** Most relevant: votes descending, then newest first. */
export function mostRelevant(a: OrderEntry, b: OrderEntry): number {
  return b.votes - a.votes || oldestFirst(b, a);
}

/** One set of orders over some comments (a whole page, or one comment's replies). */
class Orders {
  readonly of: SortedIds;
  readonly nf: ReversedIds;
  readonly mr: SortedIds;

  constructor(entryOf: (id: string) => OrderEntry | undefined, block: number) {
    this.of = new SortedIds(oldestFirst, entryOf, block);
    this.nf = new ReversedIds(this.of);
    this.mr = new SortedIds(mostRelevant, entryOf, block);
  }

  add(e: OrderEntry): void {
    this.of.insert(e);
    this.mr.insert(e);
  }

  remove(e: OrderEntry): void {
    this.of.remove(e);
    this.mr.remove(e);
  }

  get(direction: SortDirection): OrderedIds {
    return direction === 'OF' ? this.of : direction === 'NF' ? this.nf : this.mr;
  }
}

/** The author identities a comment is found under by the repeat check. */
export const AUTHOR_KINDS = ['userId', 'anonUserId', 'email', 'name'] as const;
type AuthorKind = (typeof AUTHOR_KINDS)[number];

/** The comment's identity of one kind (lower-cased email; a name only without any other identity). */
export function authorOf(doc: CommentDoc, kind: AuthorKind): string | null {
  switch (kind) {
    case 'userId':
      return doc.userId ?? null;
    case 'anonUserId':
      return doc.anonUserId ?? null;
    case 'email':
      return doc.commenterEmail?.toLowerCase() ?? null;
    default:
      return doc.authorKey === null ? (doc.commenterName ?? null) : null;
  }
}

/** A page's indexes over its comments. */
export class PageIndex {
  readonly #entries = new Map<string, OrderEntry>();
  readonly #entryOf = (id: string): OrderEntry | undefined => this.#entries.get(id);
  readonly #block: number;
  readonly #all: Orders;
  readonly #byParent = new Map<string | null, Orders>();
  readonly #replies = new Map<string, Set<string>>();
  readonly #hidden = new Set<string>();
  readonly #pinnedRoots = new Set<string>();
  readonly #authors = new Map<AuthorKind, Map<string, Set<string>>>(AUTHOR_KINDS.map((k) => [k, new Map()]));
  commentCount = 0;
  rootCommentCount = 0;

  /** `block`: entries per block of each order (small ones only in tests, to exercise splits). */
  constructor(block = BLOCK) {
    this.#block = block;
    this.#all = new Orders(this.#entryOf, block);
  }

  /** Visible comments of the page, in this order. */
  sorted(direction: SortDirection): OrderedIds {
    return this.#all.get(direction);
  }

  /** The oldest-first and most-relevant orders of a comment's visible replies (null: root comments). */
  baseOrders(parentId: string | null): { of: SortedIds; mr: SortedIds } | undefined {
    return this.#byParent.get(parentId);
  }

  /** Visible replies of a comment (null: root comments), in this order. */
  children(parentId: string | null, direction: SortDirection): OrderedIds {
    return this.#byParent.get(parentId)?.get(direction) ?? NO_IDS;
  }

  /** Ids of every reply of a comment, visible or not. */
  replies(parentId: string): ReadonlySet<string> {
    return this.#replies.get(parentId) ?? EMPTY;
  }

  /** Ids of the comments readers do not see. */
  hidden(): ReadonlySet<string> {
    return this.#hidden;
  }

  /** Visible root comments that are pinned. */
  pinnedRoots(): ReadonlySet<string> {
    return this.#pinnedRoots;
  }

  /** Ids of the comments of an author identity of one kind. */
  byAuthor(kind: AuthorKind, value: string): ReadonlySet<string> {
    return this.#authors.get(kind)!.get(value) ?? EMPTY;
  }

  /** Moves the indexes from `old` (null: new comment) to `doc` (null: gone). */
  update(old: CommentDoc | null, doc: CommentDoc | null): void {
    const wasVisible = old !== null && isVisible(old);
    const visible = doc !== null && isVisible(doc);
    const sameOrder = wasVisible && visible && old.parentId === doc.parentId && old.date === doc.date && old.votes === doc.votes;
    if (!sameOrder) {
      if (wasVisible) this.#removeVisible(old);
      if (visible) this.#addVisible(doc);
    }
    if (old !== null) {
      if (!wasVisible) this.#hidden.delete(old._id);
      if (old.parentId !== null) this.#replies.get(old.parentId)?.delete(old._id);
      this.#pinnedRoots.delete(old._id);
      this.#authorsOf(old, false);
    }
    if (doc !== null) {
      if (!visible) this.#hidden.add(doc._id);
      if (doc.parentId !== null) {
        let set = this.#replies.get(doc.parentId);
        if (set === undefined) this.#replies.set(doc.parentId, (set = new Set()));
        set.add(doc._id);
      }
      if (visible && doc.parentId === null && doc.isPinned) this.#pinnedRoots.add(doc._id);
      this.#authorsOf(doc, true);
    }
    if (old !== null && old.parentId !== null && doc?.parentId !== old.parentId && this.#replies.get(old.parentId)?.size === 0) this.#replies.delete(old.parentId);
  }

  #addVisible(doc: CommentDoc): void {
    const e: OrderEntry = { id: doc._id, date: doc.date, votes: doc.votes };
    this.#entries.set(doc._id, e);
    this.#all.add(e);
    let orders = this.#byParent.get(doc.parentId);
    if (orders === undefined) this.#byParent.set(doc.parentId, (orders = new Orders(this.#entryOf, this.#block)));
    orders.add(e);
    this.commentCount++;
    if (doc.parentId === null) this.rootCommentCount++;
  }

  #removeVisible(doc: CommentDoc): void {
    const e = this.#entries.get(doc._id);
    if (e === undefined) return;
    this.#entries.delete(doc._id);
    this.#all.remove(e);
    const orders = this.#byParent.get(doc.parentId);
    if (orders !== undefined) {
      orders.remove(e);
      if (orders.of.length === 0) this.#byParent.delete(doc.parentId);
    }
    this.commentCount--;
    if (doc.parentId === null) this.rootCommentCount--;
  }

  #authorsOf(doc: CommentDoc, add: boolean): void {
    for (const kind of AUTHOR_KINDS) {
      const value = authorOf(doc, kind);
      if (value === null) continue;
      const map = this.#authors.get(kind)!;
      let ids = map.get(value);
      if (add) {
        if (ids === undefined) map.set(value, (ids = new Set()));
        ids.add(doc._id);
      } else if (ids !== undefined) {
        ids.delete(doc._id);
        if (ids.size === 0) map.delete(value);
      }
    }
  }
}

const EMPTY: ReadonlySet<string> = new Set();

/** What a `CommentMap` tells of each change. */
export interface CommentObserver {
  /** `old` null: a new comment; `doc` null: it left. */
  changed(old: CommentDoc | null, doc: CommentDoc | null): void;
  cleared(): void;
}

/** The page's comments by id; every change goes through `set`, `delete` and `clear`, which keep `index` in step. */
export class CommentMap extends Map<string, CommentDoc> {
  index = new PageIndex();
  /** Called after every change. */
  onChange: (() => void) | undefined;
  /** Told of every change after `onChange`, with the documents before and after (caches that drop only what changed). */
  observer: CommentObserver | undefined;

  override set(id: string, doc: CommentDoc): this {
    // Map's constructor calls set before the fields exist; it is never given entries here.
    const old = super.get(id) ?? null;
    super.set(id, doc);
    this.index?.update(old, doc);
    this.onChange?.();
    this.observer?.changed(old, doc);
    return this;
  }

  override delete(id: string): boolean {
    const old = super.get(id);
    if (old === undefined) return false;
    super.delete(id);
    this.index.update(old, null);
    this.onChange?.();
    this.observer?.changed(old, null);
    return true;
  }

  override clear(): void {
    super.clear();
    this.index = new PageIndex();
    this.onChange?.();
    this.observer?.cleared();
  }
}
