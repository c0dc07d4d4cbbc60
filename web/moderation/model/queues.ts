/**
 * The queues of what needs a decision, each a `ModerationFilter`, and whether a comment still
 * belongs in one after an action (so it can leave the list without reading the queue again).
 */
import type { ModComment } from './types.js';

/** The queues, in the order the page shows them. */
export const QUEUES = [
  { id: 'unreviewed', label: 'QUEUE_UNREVIEWED', filter: { reviewed: false } },
  { id: 'flagged', label: 'QUEUE_FLAGGED', filter: { flagCountGt: 0 } },
  { id: 'pending', label: 'QUEUE_PENDING', filter: { approved: false } },
  { id: 'spam', label: 'QUEUE_SPAM', filter: { isSpam: true } },
  { id: 'all', label: 'QUEUE_ALL', filter: {} },
] as const;

export type QueueId = (typeof QUEUES)[number]['id'];

/** The queue's definition. */
export function queueOf(id: QueueId): (typeof QUEUES)[number] {
  return QUEUES.find((q) => q.id === id)!;
}

/**
 * Whether the comment is one the queue asks a decision on. Removed comments are decided: they
 * stay in "all" only (the API's filter has no field for removal, so they are left out here).
 */
export function belongs(id: QueueId, c: ModComment): boolean {
  if (id === 'all') return true;
  if (c.isDeleted === true) return false;
  switch (id) {
    case 'unreviewed':
      return c.reviewed !== true;
    case 'flagged':
      return (c.flagCount ?? 0) > 0;
    case 'pending':
      return c.approved === false && c.isSpam !== true;
    case 'spam':
      return c.isSpam === true;
  }
}
