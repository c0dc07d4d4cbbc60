/**
 * The anonymous answer cache of a large page (actors/page/public-cache.ts), in this process on
 * the page state alone: a page of `PUBLIC_CACHE_COMMENTS` comments (default 100,000; a fifth of
 * them replies) with 30 answers kept (pages 0–9 of OF, NF and MR, 30 root comments each, flat
 * with their replies), all read again after every change, as a hot page's readers do. Each
 * kind of change is measured twice in the same run: with answers dropped only when the change
 * alters them (the subject), and with every answer dropped on every change (the baseline, the
 * model before). Reported: time per change including the reads that follow, and answers
 * rebuilt (walked and compressed) or re-joined (compressed only) per change.
 */
import { PageState } from '../../actors/page/page-state.js';
import type { CommentDoc } from '../../actors/page/comment-doc.js';
import { PublicCache } from '../../actors/page/public-cache.js';
import type { PublicListQuery } from '../../actors/page/public-listing.js';
import { publicSource } from '../../actors/page/public-source.js';
import type { Suite, SuiteContext } from '../lib/suite.js';
import { resolvePublicQuery } from '../../http/public/read-query.js';

const PAGES_PER_ORDER = 10;
const LIMIT = 30;

const QUERY: PublicListQuery = resolvePublicQuery({ urlId: '', direction: 'MR', limit: LIMIT }, {});

function comment(id: string, parentId: string | null, at: number, votes: number): CommentDoc {
  return {
    _id: id,
    tenantId: 't',
    urlId: '/bench/public-cache',
    parentId,
    date: new Date(1.7e12 + at * 1000).toISOString(),
    votes,
    votesUp: Math.max(0, votes),
    votesDown: 0,
    approved: true,
    isSpam: false,
    isPinned: false,
    isDeleted: false,
    userId: null,
    anonUserId: null,
    commenterName: `Reader ${at % 97}`,
    commenterEmail: null,
    comment: `Comment number ${at}, of a usual length for a news page comment thread.`,
    commentHTML: `<p>Comment number ${at}, of a usual length for a news page comment thread.</p>`,
    authorKey: null,
    hashTagKeys: [],
    flagCount: 0,
    hasPoll: false,
  } as unknown as CommentDoc;
}

interface Measured {
  readonly microsPerChange: number;
  readonly rebuiltPerChange: number;
}

async function run(ctx: SuiteContext): Promise<void> {
  const n = Number(process.env['PUBLIC_CACHE_COMMENTS'] ?? 100_000);
  ctx.progress(`build a page of ${n.toLocaleString('en-US')} comments`);
  const state = new PageState('t', '/bench/public-cache', () => undefined);
  const ids: string[] = [];
  const roots: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = `c${String(i).padStart(7, '0')}`;
    const parent = i % 5 === 4 ? ids[i - 1 - (i % 3)]! : null;
    ids.push(id);
    if (parent === null) roots.push(id);
    state.comments.set(id, comment(id, parent, i, i % 7));
  }
  const queries: PublicListQuery[] = [];
  for (const direction of ['OF', 'NF', 'MR'] as const) for (let page = 0; page < PAGES_PER_ORDER; page++) queries.push({ ...QUERY, direction, page });
  const keys = queries.map((q) => JSON.stringify(q));
  let rebuilt = 0;
  const cache = new PublicCache(() => rebuilt++);
  const readAll = () => {
    for (let i = 0; i < queries.length; i++) cache.answer(publicSource(state), keys[i]!, queries[i]!, '');
  };
  const selective = () => {
    state.comments.observer = { changed: (old, doc) => cache.size > 0 && cache.commentChanged(publicSource(state), old, doc), cleared: () => cache.clear() };
  };
  const dropAll = () => {
    state.comments.observer = { changed: () => cache.clear(), cleared: () => cache.clear() };
  };
  // Roots away from both ends of every order: a vote moves them inside MR, rarely across a kept window.
  const middle = roots.slice(Math.floor(roots.length / 4), Math.floor((roots.length * 3) / 4));
  let fresh = 0;
  const changes: Record<string, (r: number) => void> = {
    'vote on a root comment outside the kept windows': (r) => {
      const doc = state.comments.get(middle[(r * 7919) % middle.length]!)!;
      state.comments.set(doc._id, { ...doc, votes: doc.votes + (r % 2 === 0 ? 1 : -1) });
    },
    'edit of a random comment': (r) => {
      const doc = state.comments.get(ids[(r * 7919) % ids.length]!)!;
      state.comments.set(doc._id, { ...doc, comment: `${doc.comment}!`, commentHTML: `${doc.commentHTML}!` });
    },
    'new root comment (newest)': () => {
      const id = `n${fresh++}`;
      state.comments.set(id, comment(id, null, n + fresh, 0));
    },
    'new reply to a random comment': (r) => {
      const id = `n${fresh++}`;
      state.comments.set(id, comment(id, ids[(r * 7919) % ids.length]!, n + fresh, 0));
    },
  };
  const measure = (change: (r: number) => void, reps: number): Measured => {
    readAll();
    rebuilt = 0;
    const start = performance.now();
    for (let r = 0; r < reps; r++) {
      change(r);
      readAll();
    }
    return { microsPerChange: ((performance.now() - start) * 1000) / reps, rebuiltPerChange: rebuilt / reps };
  };
  for (const [label, change] of Object.entries(changes)) {
    ctx.progress(label);
    dropAll();
    const before = measure(change, 40);
    selective();
    const after = measure(change, 400);
    ctx.row({ label: `${label}, then 30 reads: every answer dropped`, role: 'baseline', throughput: 1e6 / before.microsPerChange, unit: 'changes/s', p50Ms: before.microsPerChange / 1000, p99Ms: before.microsPerChange / 1000, errors: 0 });
    ctx.row({ label: `${label}, then 30 reads: answers kept per window`, role: 'subject', throughput: 1e6 / after.microsPerChange, unit: 'changes/s', p50Ms: after.microsPerChange / 1000, p99Ms: after.microsPerChange / 1000, errors: 0 });
    const key = label.split(' ').slice(0, 2).join('-');
    ctx.figure({ key: `${key}-ratio`, label: `${label}: time per change, kept ÷ dropped`, value: after.microsPerChange / before.microsPerChange, unit: '×', digits: 3 });
    ctx.figure({ key: `${key}-dropped`, label: `${label}: answers no longer served per change (rebuilt or re-joined on the next read), of 30`, value: after.rebuiltPerChange, unit: '', digits: 2 });
  }
  ctx.note(
    'p50 and p99 columns show the mean time per change including the 30 reads after it (a loop, not a latency distribution). ' +
      'An answer no longer served is either rebuilt (its comments walked, its JSON joined and compressed) or, when only its page-wide fields ' +
      'changed (commentCount, hasMore, pageNumber), re-joined from its kept comments and compressed again.',
  );
}

/** See the module comment. */
export const publicCache: Suite = {
  name: 'public-cache',
  description: 'Anonymous answers of a page of 100,000 comments, 30 kept and read after every change: kept per window against dropped whole.',
  targets: [],
  run,
};
