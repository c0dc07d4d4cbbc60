/**
 * The anonymous page view's kept answers (actors/page/public-cache.ts) on the real page actor:
 * after any sequence of inserts, replies, votes, edits, pins, hides, moves and deletes, every answer
 * the page still serves equals one computed afresh from its state, and answers a change does
 * not alter are kept.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { PAGE_VIEWS, PageKind, pageActorId } from '../../actors/page/protocol.js';
import type { PublicAnswer } from '../../actors/page/public-answers.js';
import type { PublicListQuery, PublicReader } from '../../actors/page/public-listing.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { resolvePublicQuery } from '../../http/public/read-query.js';

const BASE: PublicListQuery = resolvePublicQuery({ urlId: '', direction: 'MR', limit: 3 }, {});

/** A reader with no identity: the personal path, which keeps nothing, adds only `isBlocked: false` to each comment. */
const NOBODY: PublicReader = { userId: null, anonUserId: null, voterKey: null, blocked: [], editSecret: null };

/** The queries watched: every order, several windows, tree and flat, a parent's replies, a cursor, a search. */
function queries(first: string | undefined, second: string | undefined): Record<string, PublicListQuery> {
  const out: Record<string, PublicListQuery> = {};
  for (const direction of ['OF', 'NF', 'MR'] as const) {
    for (const page of [0, 1, 2]) out[`${direction}-${page}`] = { ...BASE, direction, page };
  }
  out['MR-tree'] = { ...BASE, asTree: true, countChildren: true, limitChildren: 1, countAll: true };
  out['OF-skip'] = { ...BASE, direction: 'OF', skip: 2, limit: 2, maxTreeDepth: 1, asTree: true };
  out['search'] = { ...BASE, direction: 'OF', searchText: 'edited', limit: 5 };
  if (first !== undefined) {
    out['replies'] = { ...BASE, direction: 'NF', parentId: first, limit: 2 };
    out['after'] = { ...BASE, direction: 'OF', afterCommentId: first, limit: 2 };
    out['for-page'] = { ...BASE, direction: 'NF', fetchPageForCommentId: first, limit: 2 };
  }
  if (second !== undefined) out['before'] = { ...BASE, direction: 'MR', beforeCommentId: second, limit: 2 };
  return out;
}

const op = fc.oneof(
  fc.record({ kind: fc.constant('root' as const) }),
  fc.record({ kind: fc.constant('reply' as const), to: fc.nat() }),
  fc.record({ kind: fc.constant('vote' as const), on: fc.nat(), up: fc.boolean() }),
  fc.record({ kind: fc.constant('edit' as const), on: fc.nat() }),
  fc.record({ kind: fc.constant('pin' as const), on: fc.nat(), pinned: fc.boolean() }),
  fc.record({ kind: fc.constant('hide' as const), on: fc.nat(), approved: fc.boolean() }),
  fc.record({ kind: fc.constant('delete' as const), on: fc.nat() }),
  fc.record({ kind: fc.constant('move' as const), on: fc.nat(), to: fc.option(fc.nat(), { nil: null }) }),
);
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

for (const storage of storages()) {
  describe(`anonymous page answers are kept per window and dropped only when a change alters them, on ${storage}`, () => {
    let t: TestServer;
    let runs = 0;

    before(async () => {
      t = await startTestServer(storage);
    });
    after(async () => {
      await t.destroy();
    });

    /** The page's state as the actor holds it, through its message and its published view. */
    function reads(urlId: string) {
      const system = t.server.services.system;
      const actor = pageActorId(t.tenant.tenantId, urlId);
      return {
        kept: (key: string) => system.peek(PageKind, actor, PAGE_VIEWS.publicAnswers, key) as PublicAnswer | undefined,
        cached: async (key: string, query: PublicListQuery) => (await system.ask(PageKind, actor, 'publicList', { key, query, reader: null, tail: '' })).toString(),
        fresh: async (query: PublicListQuery) => (await system.ask(PageKind, actor, 'publicList', { key: '', query, reader: NOBODY, tail: '' })).toString().replaceAll(',"isBlocked":false', ''),
      };
    }

    async function create(urlId: string, n: number, parentId: string | null): Promise<string | undefined> {
      const res = await t.api<{ comment: { _id: string } }>('POST', '/api/v1/comments', {
        body: { urlId, url: `https://example.com${urlId}`, comment: `comment ${n}`, locale: 'en_us', commenterName: `Reader ${n % 4}`, ...(parentId === null ? {} : { parentId }) },
      });
      // A reply to a comment deleted meanwhile (with its parent) is refused.
      if (parentId !== null && (res.status === 404 || (res.body as { code?: string }).code === 'invalid-parent-id')) return undefined;
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.comment._id;
    }

    /** Answers 200, or 404 for a comment gone with a deleted parent (then forgotten). */
    function done(ids: string[], id: string, status: number): void {
      if (status === 404) ids.splice(ids.indexOf(id), 1);
      else assert.equal(status, 200);
    }

    async function apply(urlId: string, ids: string[], o: Op, n: number): Promise<void> {
      if (o.kind === 'root') {
        ids.push((await create(urlId, n, null))!);
        return;
      }
      if (ids.length === 0) return;
      const id = ids[(o.kind === 'reply' ? o.to : o.on) % ids.length]!;
      switch (o.kind) {
        case 'reply': {
          const reply = await create(urlId, n, id);
          if (reply === undefined) ids.splice(ids.indexOf(id), 1);
          else ids.push(reply);
          return;
        }
        case 'vote':
          return done(ids, id, (await t.api('POST', '/api/v1/votes', { query: { commentId: id, direction: o.up ? 'up' : 'down', anonUserId: `voter-${n}` } })).status);
        case 'edit':
          return done(ids, id, (await t.api('PATCH', `/api/v1/comments/${id}`, { body: { comment: `edited ${n}` } })).status);
        case 'pin':
          return done(ids, id, (await t.api('PATCH', `/api/v1/comments/${id}`, { body: { isPinned: o.pinned } })).status);
        case 'hide':
          return done(ids, id, (await t.api('PATCH', `/api/v1/comments/${id}`, { body: { approved: o.approved } })).status);
        case 'move': {
          // Under another comment of the page, or to the top; a move under its own reply is refused, and changes nothing.
          const parentId = o.to === null ? null : ids[o.to % ids.length]!;
          const res = await t.api<{ code?: string }>('PATCH', `/api/v1/comments/${id}`, { body: { parentId } });
          if (res.status === 400 && res.body.code === 'invalid-parent-id') return;
          return done(ids, id, res.status);
        }
        default:
          assert.ok([200, 404].includes((await t.api('DELETE', `/api/v1/comments/${id}`)).status));
          ids.splice(ids.indexOf(id), 1);
      }
    }

    test('every kept answer equals a fresh one after random changes, and answers no change altered stay kept', async () => {
      let keptAcrossChanges = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: 18 }), async (ops) => {
          const urlId = `/cache-${runs++}`;
          const page = reads(urlId);
          const ids: string[] = [];
          // A few comments first, so that windows past the first exist.
          for (let i = 0; i < 7; i++) ids.push((await create(urlId, -i - 1, i > 4 ? ids[0]! : null))!);
          const watched = queries(ids[0], ids[1]);
          for (const [key, query] of Object.entries(watched)) assert.equal(await page.cached(key, query), await page.fresh(query), `${key} before any change`);
          for (const [step, o] of ops.entries()) {
            await apply(urlId, ids, o, step);
            for (const [key, query] of Object.entries(watched)) {
              const fresh = await page.fresh(query);
              const kept = page.kept(key);
              if (kept !== undefined) {
                keptAcrossChanges++;
                assert.equal(kept.identity.toString(), fresh, `kept ${key} after step ${step} (${o.kind})`);
              }
              assert.equal(await page.cached(key, query), fresh, `${key} after step ${step} (${o.kind})`);
            }
          }
        }),
        { numRuns: 25 },
      );
      // With a dozen windows watched, most changes leave some untouched: dropping everything would fail here.
      assert.ok(keptAcrossChanges > 0, 'no answer was ever kept across a change');
    });

    test('a vote keeps the answers of windows it does not reach and drops those it does', async () => {
      const urlId = '/cache-vote';
      const page = reads(urlId);
      const ids: string[] = [];
      for (let i = 0; i < 9; i++) ids.push((await create(urlId, i, null))!);
      const of0 = { ...BASE, direction: 'OF' as const, page: 0 };
      const of2 = { ...BASE, direction: 'OF' as const, page: 2 };
      const mr0 = { ...BASE, direction: 'MR' as const, page: 0 };
      for (const [key, query] of [['of0', of0], ['of2', of2], ['mr0', mr0]] as const) await page.cached(key, query);
      const before = { of0: page.kept('of0'), of2: page.kept('of2') };
      assert.ok(before.of0 !== undefined && before.of2 !== undefined);
      // The oldest comment is on OF page 0; an up vote lifts it to the top of MR.
      assert.equal((await t.api('POST', '/api/v1/votes', { query: { commentId: ids[0]!, direction: 'up', anonUserId: 'lifter' } })).status, 200);
      assert.equal(page.kept('of2'), before.of2, 'OF page 2 does not show the comment: kept, the same bytes');
      assert.equal(page.kept('of0'), undefined, 'OF page 0 shows the comment: dropped');
      assert.equal(page.kept('mr0'), undefined, 'MR page 0 gains the comment: dropped');
      for (const [key, query] of [['of0', of0], ['of2', of2], ['mr0', mr0]] as const) assert.equal(await page.cached(key, query), await page.fresh(query));
    });

    test('closing the page changes every answer: none is served with the old isClosed', async () => {
      const urlId = '/cache-close';
      const page = reads(urlId);
      await create(urlId, 0, null);
      const query = { ...BASE, direction: 'OF' as const };
      assert.match(await page.cached('of', query), /"isClosed":false/);
      const pages = await t.api<{ pages: { id: string; urlId: string }[] }>('GET', '/api/v1/pages');
      const pageId = pages.body.pages.find((p) => p.urlId === urlId)!.id;
      assert.equal((await t.api('PATCH', `/api/v1/pages/${pageId}`, { body: { isClosed: true } })).status, 200);
      assert.equal(page.kept('of'), undefined);
      assert.match(await page.cached('of', query), /"isClosed":true/);
      assert.equal(await page.cached('of', query), await page.fresh(query));
    });
  });
}
