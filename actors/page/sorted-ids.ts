/**
 * Comment ids kept in one order, changed in place: a two-level B-tree (sorted blocks of at most
 * `2 × BLOCK` entries, found by binary search). An insert or removal costs O(log n)
 * comparisons plus a move inside one block; positions (`slice`, `indexOf`) use block start
 * offsets recomputed lazily from the first changed block, O(n / BLOCK) once after a change.
 * At 100,000 comments that is a few hundred additions, against a full sort of every comment.
 */

/** What an order compares: a snapshot of the comment's sort fields, replaced when they change. */
export interface OrderEntry {
  readonly id: string;
  readonly date: string;
  readonly votes: number;
}

/** A read-only ordered list of ids: what the listings page through. Arrays satisfy it too. */
export interface OrderedIds extends Iterable<string> {
  readonly length: number;
  slice(start?: number, end?: number): string[];
  indexOf(id: string): number;
  filter(keep: (id: string) => boolean): string[];
}

/** The empty list. */
export const NO_IDS: OrderedIds = Object.freeze([] as string[]);

/** Entries per block after a split (blocks split above twice this). */
export const BLOCK = 256;

function clamp(i: number | undefined, fallback: number, length: number): number {
  if (i === undefined) return fallback;
  if (i < 0) return Math.max(0, length + i);
  return Math.min(i, length);
}

/** Ids ordered by a comparator over their entries, kept incrementally. */
export class SortedIds implements OrderedIds {
  readonly #cmp: (a: OrderEntry, b: OrderEntry) => number;
  readonly #entryOf: (id: string) => OrderEntry | undefined;
  #blocks: OrderEntry[][] = [];
  /** Start offset of each block, valid below `#validStarts`. */
  #starts: number[] = [];
  #validStarts = 0;
  #length = 0;
  readonly #block: number;

  /** `entryOf` gives the current entry of an id held (for `indexOf`). */
  constructor(cmp: (a: OrderEntry, b: OrderEntry) => number, entryOf: (id: string) => OrderEntry | undefined, block = BLOCK) {
    this.#cmp = cmp;
    this.#entryOf = entryOf;
    this.#block = block;
  }

  get length(): number {
    return this.#length;
  }

  /** The block that holds (or would hold) `e`: the first whose last entry is not before it. */
  #blockOf(e: OrderEntry): number {
    const blocks = this.#blocks;
    let lo = 0;
    let hi = blocks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const block = blocks[mid]!;
      if (this.#cmp(block[block.length - 1]!, e) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #lowerBound(block: readonly OrderEntry[], e: OrderEntry): number {
    let lo = 0;
    let hi = block.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#cmp(block[mid]!, e) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #changed(b: number): void {
    if (b < this.#validStarts) this.#validStarts = b;
  }

  insert(e: OrderEntry): void {
    this.#length++;
    if (this.#blocks.length === 0) {
      this.#blocks.push([e]);
      this.#changed(0);
      return;
    }
    const b = this.#blockOf(e);
    const block = this.#blocks[b]!;
    block.splice(this.#lowerBound(block, e), 0, e);
    if (block.length > 2 * this.#block) this.#blocks.splice(b + 1, 0, block.splice(this.#block));
    this.#changed(b);
  }

  /** Takes out the entry `e` (the one inserted, or an equal snapshot); false when not held. */
  remove(e: OrderEntry): boolean {
    if (this.#blocks.length === 0) return false;
    const b = this.#blockOf(e);
    const block = this.#blocks[b]!;
    const at = this.#lowerBound(block, e);
    if (block[at]?.id !== e.id) return false;
    block.splice(at, 1);
    this.#length--;
    if (block.length === 0) this.#blocks.splice(b, 1);
    this.#changed(b);
    return true;
  }

  #ensureStarts(): void {
    const blocks = this.#blocks;
    const starts = this.#starts;
    for (let i = this.#validStarts; i < blocks.length; i++) starts[i] = i === 0 ? 0 : starts[i - 1]! + blocks[i - 1]!.length;
    starts.length = blocks.length;
    this.#validStarts = blocks.length;
  }

  /** The block holding position `i` (0 ≤ i < length). */
  #blockAt(i: number): number {
    this.#ensureStarts();
    const starts = this.#starts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid]! <= i) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  slice(start?: number, end?: number): string[] {
    const from = clamp(start, 0, this.#length);
    const to = clamp(end, this.#length, this.#length);
    const out: string[] = [];
    if (from >= to) return out;
    let b = this.#blockAt(from);
    let at = from - this.#starts[b]!;
    for (let n = to - from; n > 0; ) {
      const block = this.#blocks[b]!;
      for (; at < block.length && n > 0; at++, n--) out.push(block[at]!.id);
      b++;
      at = 0;
    }
    return out;
  }

  indexOf(id: string): number {
    const e = this.#entryOf(id);
    if (e === undefined || this.#blocks.length === 0) return -1;
    const b = this.#blockOf(e);
    const block = this.#blocks[b]!;
    const at = this.#lowerBound(block, e);
    if (block[at]?.id !== id) return -1;
    this.#ensureStarts();
    return this.#starts[b]! + at;
  }

  /** How many entries come before `e` in this order (`e` itself need not be held). */
  countBefore(e: OrderEntry): number {
    if (this.#blocks.length === 0) return 0;
    const b = this.#blockOf(e);
    this.#ensureStarts();
    return this.#starts[b]! + this.#lowerBound(this.#blocks[b]!, e);
  }

  filter(keep: (id: string) => boolean): string[] {
    const out: string[] = [];
    for (const id of this) if (keep(id)) out.push(id);
    return out;
  }

  *[Symbol.iterator](): Iterator<string> {
    for (const block of this.#blocks) for (const e of block) yield e.id;
  }

  /** The ids last to first. */
  *reversed(): Iterator<string> {
    const blocks = this.#blocks;
    for (let b = blocks.length - 1; b >= 0; b--) {
      const block = blocks[b]!;
      for (let i = block.length - 1; i >= 0; i--) yield block[i]!.id;
    }
  }
}

/** A sorted list read last to first (newest first over oldest first), without a copy. */
export class ReversedIds implements OrderedIds {
  constructor(readonly base: SortedIds) {}

  get length(): number {
    return this.base.length;
  }

  slice(start?: number, end?: number): string[] {
    const n = this.base.length;
    const from = clamp(start, 0, n);
    const to = clamp(end, n, n);
    if (from >= to) return [];
    return this.base.slice(n - to, n - from).reverse();
  }

  indexOf(id: string): number {
    const at = this.base.indexOf(id);
    return at < 0 ? -1 : this.base.length - 1 - at;
  }

  filter(keep: (id: string) => boolean): string[] {
    const out: string[] = [];
    for (const id of this) if (keep(id)) out.push(id);
    return out;
  }

  [Symbol.iterator](): Iterator<string> {
    return this.base.reversed();
  }
}
