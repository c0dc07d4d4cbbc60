/**
 * Root comments with the pinned ones first, as a view over an order: pinned comments are few,
 * so positions are mapped through their places in the order instead of copying the order.
 */
import type { OrderedIds } from './sorted-ids.js';

/** `base` with `pinned` (ids held in `base`) moved to its front, in base order. */
export class PinnedFirst implements OrderedIds {
  readonly #base: OrderedIds;
  /** Pinned ids in base order, and their positions in base, ascending. */
  readonly #pinned: string[];
  readonly #at: number[];

  constructor(base: OrderedIds, pinned: Iterable<string>) {
    this.#base = base;
    const placed: { id: string; at: number }[] = [];
    for (const id of pinned) {
      const at = base.indexOf(id);
      if (at >= 0) placed.push({ id, at });
    }
    placed.sort((a, b) => a.at - b.at);
    this.#pinned = placed.map((p) => p.id);
    this.#at = placed.map((p) => p.at);
  }

  get length(): number {
    return this.#base.length;
  }

  /** The base position of the `j`th unpinned id. */
  #unpinnedAt(j: number): number {
    let pos = j;
    for (const at of this.#at) if (at <= pos) pos++;
    return pos;
  }

  slice(start?: number, end?: number): string[] {
    const n = this.length;
    const from = start === undefined ? 0 : start < 0 ? Math.max(0, n + start) : Math.min(start, n);
    const to = end === undefined ? n : end < 0 ? Math.max(0, n + end) : Math.min(end, n);
    const out: string[] = [];
    const k = this.#pinned.length;
    for (let i = from; i < Math.min(to, k); i++) out.push(this.#pinned[i]!);
    if (to <= k) return out;
    const first = Math.max(from, k) - k;
    const pinned = new Set(this.#pinned);
    const want = to - Math.max(from, k);
    let pos = this.#unpinnedAt(first);
    while (out.length < to - from && pos < n) {
      const chunk = this.#base.slice(pos, pos + want + k);
      for (const id of chunk) {
        if (pinned.has(id)) continue;
        out.push(id);
        if (out.length === to - from) break;
      }
      pos += chunk.length;
    }
    return out;
  }

  indexOf(id: string): number {
    const p = this.#pinned.indexOf(id);
    if (p >= 0) return p;
    const at = this.#base.indexOf(id);
    if (at < 0) return -1;
    let before = 0;
    for (const q of this.#at) if (q < at) before++;
    return this.#pinned.length + at - before;
  }

  filter(keep: (id: string) => boolean): string[] {
    const out: string[] = [];
    for (const id of this) if (keep(id)) out.push(id);
    return out;
  }

  *[Symbol.iterator](): Iterator<string> {
    yield* this.#pinned;
    const pinned = new Set(this.#pinned);
    for (const id of this.#base) if (!pinned.has(id)) yield id;
  }
}
