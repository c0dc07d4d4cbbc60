/**
 * Pages whose stored vote counts may lag their votes. A page actor keeps exact counts in
 * memory and writes a hot comment's counts at most every `COUNTS_FLUSH_MS`; the first vote of
 * such a window stores this marker in the same commit as itself, and the commit that writes the
 * counts removes it. Reads that take comments straight from storage (tenant-wide search) first
 * have every marked page write its counts; a marker left by a crash gets the page recounted from
 * its votes on that occasion.
 */
import type { Doc } from '../../storage/store.js';

/** Collection of the markers; a marker's `_id` is its page actor's id. */
export const PENDING_COUNTS = 'pendingCounts';

/** One page with counts not yet stored. */
export interface PendingCountsDoc extends Doc {
  tenantId: string;
  urlId: string;
  /** The comments whose stored counts may lag (absent on markers of older versions: any may). */
  commentIds?: string[];
}
