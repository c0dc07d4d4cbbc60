/** The page's keys: which key does what, and when keys are left to the element that has focus. */
import type { ModComment } from '../model/types.js';

export interface KeyTargets {
  dialogOpen: boolean;
  comments: readonly ModComment[];
  focusId: string | null;
  focusAt(index: number): void;
  search(): void;
  toggle(id: string): void;
  ban(c: ModComment): void;
  /** Moves the focus to the focused comment's tools in the context panel. */
  tools(): void;
  act(key: string, c: ModComment): void;
}

/** Elements whose typing is their own: keys there are never shortcuts. */
function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (el === null || typeof el.closest !== 'function') return false;
  if (el.isContentEditable) return true;
  const field = el.closest('textarea, select, input');
  return field !== null && (field as HTMLInputElement).type !== 'checkbox';
}

/** Handles a keydown on the page. */
export function handleKey(e: KeyboardEvent, k: KeyTargets): void {
  if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || k.dialogOpen || typing(e.target)) return;
  if ((e.target as HTMLElement | null)?.closest?.('[role="tablist"]') && (e.key === 'ArrowLeft' || e.key === 'ArrowRight')) return;
  const at = k.focusId === null ? -1 : k.comments.findIndex((c) => c._id === k.focusId);
  const current = at >= 0 ? k.comments[at] : undefined;
  switch (e.key) {
    case 'j':
    case 'ArrowDown':
      e.preventDefault();
      k.focusAt(at + 1);
      return;
    case 'k':
    case 'ArrowUp':
      e.preventDefault();
      k.focusAt(at <= 0 ? 0 : at - 1);
      return;
    case '/':
      e.preventDefault();
      k.search();
      return;
  }
  // Acting keys work on the focused comment only while the focus is in the queue (or nowhere).
  const target = e.target as HTMLElement | null;
  const inQueue = target === null || target === document.body || target.closest?.('#queue-panel') != null;
  if (current === undefined || !inQueue) return;
  if (e.key === 'x') {
    e.preventDefault();
    k.toggle(current._id);
  } else if (e.key === 'b') {
    e.preventDefault();
    k.ban(current);
  } else if (e.key === 'c') {
    e.preventDefault();
    k.tools();
  } else if (e.key.length === 1) {
    k.act(e.key, current);
  }
}
