/**
 * The comments the widget holds and their display order, with the live ones still waiting to be
 * shown, and what arrived while a thread-replacing read was in flight (kept over its answer).
 */
import type { SortDirection, WidgetComment } from '../shared/types.js';

export class ThreadState {
  comments = new Map<string, WidgetComment>();
  /** Ids in display order as loaded (roots each followed by their replies). */
  order: string[] = [];
  /** Live comments not shown yet: roots behind "Show N new comments", replies under their parent. */
  readonly waiting = new Set<string>();
  /** The thread-replacing read in flight (0: none); its answer was taken before what arrives meanwhile. */
  #replacing = 0;
  /** Comments posted or received live while `#replacing` was in flight (id → shown), kept over its answer. */
  readonly #arrived = new Map<string, boolean>();

  /** A read that will replace the thread starts: what arrives from now on is kept over its answer. */
  beginReplacing(read: number): void {
    this.#replacing = read;
    this.#arrived.clear();
  }

  /** Ends the replacing read `read`, if it is the one in flight. */
  endReplacing(read: number): void {
    if (read !== this.#replacing) return;
    this.#replacing = 0;
    this.#arrived.clear();
  }

  /** Empties the thread for a replacing read's answer; answers what it held. */
  reset(): Map<string, WidgetComment> {
    const before = this.comments;
    this.comments = new Map();
    this.order = [];
    this.waiting.clear();
    return before;
  }

  /** Adds a read's comment at the end of the order. */
  add(comment: WidgetComment): void {
    if (!this.comments.has(comment._id)) this.order.push(comment._id);
    this.comments.set(comment._id, comment);
  }

  /**
   * Puts back what was posted or received live while the replacing read was in flight: the read
   * may predate it, and a post's own fields (its `editKey`) are in no read of another session.
   * Answers how many root comments were put back.
   */
  keepArrived(before: Map<string, WidgetComment>, direction: SortDirection): number {
    let roots = 0;
    for (const [id, shown] of this.#arrived) {
      const held = before.get(id);
      if (!held) continue;
      const read = this.comments.get(id);
      if (read) {
        this.comments.set(id, { ...held, ...read });
        continue;
      }
      this.insert(held, shown, direction);
      if (!held.parentId) roots++;
    }
    return roots;
  }

  /** Puts a comment into the thread: roots at the top (bottom for oldest first), replies after their parent's subtree. */
  insert(comment: WidgetComment, shown: boolean, direction: SortDirection): void {
    const known = this.comments.has(comment._id);
    this.comments.set(comment._id, { ...this.comments.get(comment._id), ...comment });
    if (this.#replacing !== 0) this.#arrived.set(comment._id, shown);
    if (known) return;
    if (!comment.parentId && direction !== 'OF') this.order.unshift(comment._id);
    else this.order.push(comment._id);
    if (!shown) this.waiting.add(comment._id);
  }

  /** Changes fields of a held comment; answers whether it was held. */
  patch(id: string, fields: Partial<WidgetComment>): boolean {
    const held = this.comments.get(id);
    if (!held) return false;
    this.comments.set(id, { ...held, ...fields });
    return true;
  }

  /** Takes a comment out of the thread; answers it, if it was held. */
  drop(id: string): WidgetComment | undefined {
    const held = this.comments.get(id);
    if (!held) return undefined;
    this.comments.delete(id);
    this.#arrived.delete(id);
    this.order = this.order.filter((x) => x !== id);
    this.waiting.delete(id);
    return held;
  }

  /** Shows the waiting comments: all root ones, or the replies waiting under `parentId`. */
  reveal(parentId: string | null): void {
    for (const id of [...this.waiting]) if ((this.comments.get(id)?.parentId ?? null) === parentId) this.waiting.delete(id);
  }

  /** How many comments wait under `parentId` (null: the root level). */
  waitingUnder(parentId: string | null): number {
    let n = 0;
    for (const id of this.waiting) if ((this.comments.get(id)?.parentId ?? null) === parentId) n++;
    return n;
  }

  /** The shown replies of `id`, in display order. */
  repliesOf(id: string): string[] {
    return this.order.filter((x) => this.comments.get(x)?.parentId === id && !this.waiting.has(x));
  }

  /** How many shown comments are under `id`, at any depth. */
  descendantCount(id: string): number {
    let n = 0;
    for (const r of this.repliesOf(id)) n += 1 + this.descendantCount(r);
    return n;
  }
}
