/**
 * Anonymous readers' answers of one page, kept per query (order, window, parent, shape) and
 * dropped only when a change alters them. Each kept answer remembers what it read
 * (`ListFootprint`): the root comments of its window, the comments it shows and those whose
 * replies it walked. A change of one comment (old and new document) then drops an answer only if
 * - the answer shows that comment (an edit, a vote, a pin, a removal), or
 * - the comment is, or was, a visible reply of a comment the answer walked (a new, moved or
 *   removed reply, or one whose votes reorder its siblings), or
 * - the comment is, or was, in the list the answer slices and the window, computed again
 *   (O(log n + limit)), holds other root comments than before (an insert or removal before the
 *   window's end shifts it; a vote moves a comment between its old and new place), or
 * - the answer is a search (which reads every comment) and the comment is or was visible.
 * The page-wide fields around the comments (`pageNumber`, `hasMore`, `commentCount`,
 * `isClosed`) are cheap: when only they change, the comments' JSON is kept and the answer's
 * bytes are joined again on the next read, without walking a comment. docs/scaling.md has the
 * resulting costs per kind of change.
 */
import { type CommentDoc, isVisible } from './comment-doc.js';
import { PublicAnswer } from './public-answers.js';
import { envelopeOf, isAnchored, joinParts, type ListFootprint, type ListParts, type PublicListQuery, publicListParts, type PublicSource, publicWindow, type PublicWindow } from './public-listing.js';

/** Answers kept per page; the oldest goes first. */
export const MAX_ANSWERS = 32;

interface Kept {
  readonly query: PublicListQuery;
  parts: ListParts;
  readonly footprint: ListFootprint;
  /** The window as it stands (its roots are the footprint's; its page number and `hasMore` may have moved since). */
  window: PublicWindow | null;
  /** The bytes served (and published as a view); undefined once the page-wide fields changed. */
  answer: PublicAnswer | undefined;
}

function sameSlice(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The anonymous answers of one page; see the module comment. */
export class PublicCache {
  readonly #kept = new Map<string, Kept>();
  /** Called for every key whose bytes stop being served (dropped or evicted). */
  readonly #onDropped: (key: string) => void;

  constructor(onDropped: (key: string) => void) {
    this.#onDropped = onDropped;
  }

  get size(): number {
    return this.#kept.size;
  }

  /** The bytes kept for `key`, if they are still right. */
  get(key: string): PublicAnswer | undefined {
    return this.#kept.get(key)?.answer;
  }

  /** The answer of `key` now: the kept bytes, or bytes joined from kept comments, or built afresh. */
  answer(source: PublicSource, key: string, query: PublicListQuery, tail: string): { answer: PublicAnswer; evicted: string | undefined } {
    const kept = this.#kept.get(key);
    if (kept !== undefined) {
      if (kept.answer === undefined) {
        const window = kept.window;
        kept.parts = { ...kept.parts, ...envelopeOf(source, query), ...(window === null ? {} : { pageNumber: window.pageNumber, hasMore: window.hasMore }) };
        kept.answer = new PublicAnswer(Buffer.from(joinParts(kept.parts, tail)));
      }
      return { answer: kept.answer, evicted: undefined };
    }
    const { parts, footprint } = publicListParts(source, query, null, true);
    const answer = new PublicAnswer(Buffer.from(joinParts(parts, tail)));
    let evicted: string | undefined;
    if (this.#kept.size >= MAX_ANSWERS) {
      evicted = this.#kept.keys().next().value!;
      this.#kept.delete(evicted);
    }
    this.#kept.set(key, { query, parts, footprint: footprint!, window: footprint!.window, answer });
    return { answer, evicted };
  }

  /** One comment changed (`old` null: it is new; `doc` null: it left the page); `source` reads the page after it. */
  commentChanged(source: PublicSource, old: CommentDoc | null, doc: CommentDoc | null): void {
    if (this.#kept.size === 0) return;
    const id = (doc ?? old)!._id;
    const was = old !== null && isVisible(old);
    const is = doc !== null && isVisible(doc);
    for (const [key, kept] of this.#kept) {
      const { footprint, query, window } = kept;
      let stale = footprint.shown.has(id) || (was && footprint.expanded.has(old.parentId!)) || (is && footprint.expanded.has(doc.parentId!));
      if (!stale && window === null) stale = was || is;
      let moved: { pageNumber: number; hasMore: boolean } | undefined;
      if (!stale && window !== null && (isAnchored(query) || (was && old.parentId === query.parentId) || (is && doc.parentId === query.parentId))) {
        const now = publicWindow(source, query);
        if (!sameSlice(now.slice, window.slice)) stale = true;
        else if (now.pageNumber !== window.pageNumber || now.hasMore !== window.hasMore) moved = now;
      }
      if (stale) {
        this.#kept.delete(key);
        this.#onDropped(key);
        continue;
      }
      if (moved !== undefined) kept.window = { slice: window!.slice, ...moved };
      this.#checkEnvelope(source, key, kept, moved !== undefined);
    }
  }

  /** What readers see of one comment changed besides its document (its poll). */
  commentTouched(id: string): void {
    for (const [key, kept] of this.#kept) {
      if (!kept.footprint.shown.has(id)) continue;
      this.#kept.delete(key);
      this.#onDropped(key);
    }
  }

  /** The page record may have changed (`isClosed`): answers whose page-wide fields differ are joined again. */
  pageChanged(source: PublicSource): void {
    for (const [key, kept] of this.#kept) this.#checkEnvelope(source, key, kept, false);
  }

  #checkEnvelope(source: PublicSource, key: string, kept: Kept, moved: boolean): void {
    if (kept.answer === undefined) return;
    const now = envelopeOf(source, kept.query);
    if (!moved && now.commentCount === kept.parts.commentCount && now.isClosed === kept.parts.isClosed) return;
    kept.answer = undefined;
    this.#onDropped(key);
  }

  /** Forgets every answer (the page reloaded or moved). */
  clear(): void {
    for (const key of this.#kept.keys()) this.#onDropped(key);
    this.#kept.clear();
  }
}
