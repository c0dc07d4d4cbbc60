/**
 * A page activated lazily (its head first, the rest in the background: page-head.ts) answers
 * every read exactly as the same page loaded whole, on both storages: widget reads of every
 * order, paging, skips, threads, child counts, permalinks (`fetchPageForCommentId`), cursors,
 * search, and the API's list. The background load is held back by the store below, so the
 * head's answers are known to come before the rest of the page is read, and a write sent
 * meanwhile lands once the page is whole, counted once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PageHead } from '../../actors/page/page-head.js';
import { COLLECTIONS } from '../../storage/collections.js';
import { createStore } from '../../storage/create-store.js';
import type { Doc, Filter, FindOptions, ScanOptions, Store, WriteOp } from '../../storage/store.js';
import { eventually } from '../fixtures/eventually.js';
import { startTestServer, storages, type TestServer, withQuery } from '../fixtures/server.js';

/** A real store whose scans of comments (the background load) wait while held. */
class HoldingStore implements Store {
  #gate: Promise<void> | undefined;
  #open: (() => void) | undefined;
  scansWaiting = 0;

  constructor(readonly inner: Store) {}

  get kind() {
    return this.inner.kind;
  }

  hold(): void {
    this.#gate = new Promise((resolve) => (this.#open = resolve));
  }

  release(): void {
    this.#open?.();
    this.#gate = undefined;
  }

  open() {
    return this.inner.open();
  }
  close() {
    return this.inner.close();
  }
  ping() {
    return this.inner.ping();
  }
  get<T extends Doc = Doc>(collection: string, id: string) {
    return this.inner.get<T>(collection, id);
  }
  find<T extends Doc = Doc>(collection: string, filter: Filter, options?: FindOptions) {
    return this.inner.find<T>(collection, filter, options);
  }
  count(collection: string, filter: Filter) {
    return this.inner.count(collection, filter);
  }
  async *scan<T extends Doc = Doc>(collection: string, filter: Filter, options?: ScanOptions): AsyncIterable<T[]> {
    const gate = this.#gate;
    if (collection === 'comments' && gate !== undefined) {
      this.scansWaiting++;
      await gate;
      this.scansWaiting--;
    }
    yield* this.inner.scan<T>(collection, filter, options);
  }
  commit(ops: readonly WriteOp[], fence?: Parameters<Store['commit']>[1]) {
    return this.inner.commit(ops, fence);
  }
  claimWriter(...args: Parameters<NonNullable<Store['claimWriter']>>) {
    return this.inner.claimWriter!(...args);
  }
}

const URL_ID = '/lazy';
const ROOTS = 60;
const HEAD = 20;

type Query = Record<string, string | number | boolean>;

/** What a widget read answers that depends on the comments (not the per-request tail). */
function essence(body: Record<string, unknown>): unknown {
  return { comments: body['comments'], commentCount: body['commentCount'], hasMore: body['hasMore'], pageNumber: body['pageNumber'] };
}

describe('a lazily activated page answers as a fully loaded one', () => {
  for (const storage of storages()) {
    describe(storage, () => {
      let t: TestServer;
      let holder: HoldingStore;
      const roots: string[] = [];
      const replies: string[] = [];
      const defaults = { rootsPerOrder: PageHead.rootsPerOrder, maxReplies: PageHead.maxReplies };

      before(async () => {
        t = await startTestServer(storage, {}, {
          store: (config) =>
            (holder = new HoldingStore(
              createStore({ dataDir: config.dataDir, mongodbUri: config.mongodbUri, mongodbDb: config.mongodbDb, mongoTimeoutMs: config.storageTimeoutMs }, COLLECTIONS),
            )),
        });
        const post = async (body: Record<string, unknown>) => {
          const r = await t.api<{ comment: { _id: string } }>('POST', '/api/v1/comments', {
            body: { commenterName: 'Ann', url: 'https://blog.example/lazy', urlId: URL_ID, locale: 'en', ...body },
          });
          assert.equal(r.status, 200, JSON.stringify(r.body));
          return r.body.comment._id;
        };
        for (let i = 0; i < ROOTS; i++) {
          // Some dates repeat, so ties are broken by id in every order.
          const date = new Date(Date.UTC(2024, 0, 1, 0, Math.floor(i / 2))).toISOString();
          roots.push(await post({ comment: `root ${i}`, date, isPinned: i === 7 || i === 50, approved: i % 13 !== 5 }));
        }
        for (let i = 0; i < 30; i++) {
          const parentId = i < 20 ? roots[(i * 7) % ROOTS]! : replies[i - 20]!;
          replies.push(await post({ comment: `reply ${i}`, parentId, date: new Date(Date.UTC(2024, 0, 2, 0, i)).toISOString() }));
        }
        for (let i = 0; i < 40; i++) {
          const r = await t.api('POST', '/api/v1/votes', { query: { commentId: roots[(i * 11) % ROOTS]!, direction: i % 4 === 0 ? 'down' : 'up', userId: `voter-${i}` } });
          assert.equal(r.status, 200);
        }
      });

      after(async () => {
        PageHead.rootsPerOrder = defaults.rootsPerOrder;
        PageHead.maxReplies = defaults.maxReplies;
        holder?.release();
        await t?.destroy();
      });

      /** Reads the head answers (a window inside the proven prefix of each order, or a held thread). */
      const headReads = (): Query[] => {
        const out: Query[] = [];
        for (const direction of ['OF', 'NF', 'MR']) {
          out.push({ direction, skip: 0, limit: 5 });
          out.push({ direction, skip: 5, limit: 5, asTree: true, countChildren: true });
          out.push({ direction, skip: 8, limit: 5, countAll: true });
        }
        out.push({ parentId: roots[0]!, direction: 'NF' });
        return out;
      };
      /** Reads the whole page answers: past the head, permalinks, cursors, search. */
      const wholeReads = (): Query[] => {
        const out: Query[] = [];
        for (const direction of ['OF', 'NF', 'MR']) {
          out.push({ direction });
          out.push({ direction, skip: 40, limit: 10, asTree: true, maxTreeDepth: 1 });
          out.push({ direction, fetchPageForCommentId: replies[25]!, limit: 10 });
          out.push({ direction, afterCommentId: roots[30]!, limit: 7 });
        }
        out.push({ searchText: 'reply 1', direction: 'OF' });
        out.push({ page: 1, asTree: true });
        return out;
      };

      const read = async (q: Query): Promise<unknown> => {
        const res = await fetch(withQuery(`${t.url}/comments/${t.tenant.tenantId}`, { urlId: URL_ID, ...q }));
        const body = (await res.json()) as Record<string, unknown>;
        assert.equal(res.status, 200, JSON.stringify(body));
        return essence(body);
      };
      const list = async (): Promise<unknown> => {
        const r = await t.api<{ comments: unknown }>('GET', '/api/v1/comments', { query: { urlId: URL_ID, direction: 'MR', limit: 100 } });
        assert.equal(r.status, 200);
        return r.body.comments;
      };
      /** Waits until the page's vote counts are stored (a page stopped before that is loaded whole, by design). */
      const countsStored = () => eventually(async () => (await holder.get('pendingCounts', `${t.tenant.tenantId}:${URL_ID}`)) === undefined, 20_000);
      const everything = async () => ({ head: await Promise.all(headReads().map(read)), whole: await Promise.all(wholeReads().map(read)), list: await list() });

      it('answers from its head while the rest loads, then answers everything the same, a write counted once', async () => {
        await countsStored();
        PageHead.rootsPerOrder = 0;
        t = await t.restart();
        const reference = await everything();

        PageHead.rootsPerOrder = HEAD;
        t = await t.restart();
        // The restart made a new store: the page activates on the first read below.
        holder.hold();
        const answeredBefore = PageHead.answered;
        // These resolve while the rest of the page is held back: the head answers them.
        const fromHead = [];
        for (const q of headReads()) fromHead.push(await read(q));
        assert.equal(holder.scansWaiting, 1, 'the background load is held');
        assert.equal(PageHead.answered - answeredBefore, headReads().length);
        assert.deepEqual(fromHead, reference.head);

        // Reads past the head and a write wait for the whole page.
        const waiting = Promise.all(wholeReads().map(read));
        const listed = list();
        const written = t.api<{ comment: { _id: string } }>('POST', '/api/v1/comments', {
          body: { commenterName: 'Bea', comment: 'late', url: 'https://blog.example/lazy', urlId: URL_ID, locale: 'en' },
        });
        const voted = t.api('POST', '/api/v1/votes', { query: { commentId: roots[59]!, direction: 'up', userId: 'late-voter' } });
        holder.release();
        const [whole, listAnswer, posted, vote] = await Promise.all([waiting, listed, written, voted]);
        assert.equal(posted.status, 200);
        assert.equal(vote.status, 200);

        const now = await everything();
        await countsStored();
        // Each read sent with the write saw the page either before it or after it, never half.
        for (let i = 0; i < whole.length; i++) {
          assert.ok(JSON.stringify(whole[i]) === JSON.stringify(reference.whole[i]) || JSON.stringify(whole[i]) === JSON.stringify(now.whole[i]), `read ${i}`);
        }
        assert.ok(JSON.stringify(listAnswer) === JSON.stringify(reference.list) || JSON.stringify(listAnswer) === JSON.stringify(now.list));
        const counted = (answers: unknown[]) => (answers[2] as { commentCount: number }).commentCount;
        assert.equal(counted(now.head), counted(reference.head) + 1, 'the new comment is counted once');
        const voteOf = (comments: unknown, id: string) => (comments as { _id: string; votes: number }[]).find((c) => c._id === id)?.votes;
        assert.equal(voteOf(now.list, roots[59]!), (voteOf(reference.list, roots[59]!) ?? 0) + 1, 'the vote is counted once');

        // The same page loaded whole answers exactly what the lazily activated one answers now.
        PageHead.rootsPerOrder = 0;
        t = await t.restart();
        assert.deepEqual(await everything(), now);

        // And lazily again, every read at once, nothing held.
        await countsStored();
        PageHead.rootsPerOrder = HEAD;
        t = await t.restart();
        const [head, whole2, list2] = await Promise.all([Promise.all(headReads().map(read)), Promise.all(wholeReads().map(read)), list()]);
        assert.deepEqual({ head, whole: whole2, list: list2 }, now);

        // An answer the head gave is kept, and goes with the page's first change once it is whole.
        t = await t.restart();
        const q = { direction: 'MR', skip: 0, limit: 5 };
        const shown = (await read(q)) as { comments: { _id: string }[] };
        await list();
        const top = shown.comments[0]!._id;
        assert.equal((await t.api('POST', '/api/v1/votes', { query: { commentId: top, direction: 'down', userId: 'later-voter' } })).status, 200);
        assert.notDeepEqual(await read(q), shown);
      });

      it('answers from its head after a stop that left vote counts unstored, recounting the comments the marker names', async () => {
        const markerId = `${t.tenant.tenantId}:${URL_ID}`;
        let marker: { commentIds?: string[] } | undefined;
        // Votes that move comments into and out of the first most-relevant page, then a stop
        // before the counts are stored (tried again should the counts be stored first).
        for (let round = 0; marker === undefined && round < 10; round++) {
          for (let i = 0; i < 8; i++) {
            const r = await t.api('POST', '/api/v1/votes', { query: { commentId: roots[40 + (i % 4)]!, direction: 'up', userId: `lag-${round}-${i}` } });
            assert.equal(r.status, 200);
          }
          assert.equal((await t.api('POST', '/api/v1/votes', { query: { commentId: roots[(round * 11) % ROOTS]!, direction: 'down', userId: `lag-down-${round}` } })).status, 200);
          PageHead.rootsPerOrder = HEAD;
          t = await t.restart();
          marker = await holder.get<{ _id: string; commentIds?: string[] }>('pendingCounts', markerId);
        }
        assert.ok(marker?.commentIds !== undefined && marker.commentIds.length > 0, 'the stop left counts unstored');
        holder.hold();
        const answeredBefore = PageHead.answered;
        const fromHead = [];
        for (const q of headReads()) fromHead.push(await read(q));
        assert.equal(PageHead.answered - answeredBefore, headReads().length);
        holder.release();
        await list();

        PageHead.rootsPerOrder = 0;
        t = await t.restart();
        assert.deepEqual(fromHead, await Promise.all(headReads().map(read)));
      });
    });
  }
});
