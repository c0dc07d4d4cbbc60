import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { type CommentDoc, isVisible } from '../../../actors/page/comment-doc.js';
import { comparator, type SortDirection } from '../../../actors/page/listing.js';
import { AUTHOR_KINDS, authorOf, CommentMap, PageIndex } from '../../../actors/page/page-index.js';
import { PinnedFirst } from '../../../actors/page/pinned-first.js';

const DIRECTIONS: readonly SortDirection[] = ['OF', 'NF', 'MR'];

function doc(id: string, parentId: string | null, minute: number, votes: number, extra: Partial<CommentDoc> = {}): CommentDoc {
  return {
    _id: id,
    parentId,
    date: new Date(Date.UTC(2024, 0, 1, 0, minute)).toISOString(),
    votes,
    approved: true,
    isSpam: false,
    isPinned: false,
    userId: null,
    anonUserId: null,
    commenterName: 'someone',
    commenterEmail: null,
    comment: 'text',
    authorKey: null,
    ...extra,
  } as unknown as CommentDoc;
}

/** One change: few ids, dates and vote counts, so that ties and re-inserts are frequent. */
const op = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), id: fc.integer({ min: 0, max: 40 }), parent: fc.integer({ min: -1, max: 40 }), minute: fc.integer({ min: 0, max: 5 }), votes: fc.integer({ min: -2, max: 2 }), visible: fc.boolean(), pinned: fc.boolean(), user: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ kind: fc.constant('edit' as const), id: fc.integer({ min: 0, max: 40 }), visible: fc.boolean(), pinned: fc.boolean(), user: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ kind: fc.constant('vote' as const), id: fc.integer({ min: 0, max: 40 }), delta: fc.integer({ min: -3, max: 3 }) }),
  fc.record({ kind: fc.constant('move' as const), id: fc.integer({ min: 0, max: 40 }), parent: fc.integer({ min: -1, max: 40 }) }),
  fc.record({ kind: fc.constant('delete' as const), id: fc.integer({ min: 0, max: 40 }) }),
);
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

function apply(map: CommentMap, o: Op): void {
  const id = `c${o.id}`;
  const current = map.get(id);
  switch (o.kind) {
    case 'insert':
      if (current !== undefined) return;
      map.set(id, doc(id, o.parent < 0 ? null : `c${o.parent}`, o.minute, o.votes, { approved: o.visible, isPinned: o.pinned, userId: o.user === 0 ? null : `u${o.user}` }));
      return;
    case 'edit':
      if (current === undefined) return;
      map.set(id, { ...current, approved: o.visible, isPinned: o.pinned, userId: o.user === 0 ? null : `u${o.user}`, comment: `${current.comment}!` });
      return;
    case 'vote':
      if (current !== undefined) map.set(id, { ...current, votes: current.votes + o.delta });
      return;
    case 'move':
      if (current !== undefined) map.set(id, { ...current, parentId: o.parent < 0 ? null : `c${o.parent}` });
      return;
    default:
      map.delete(id);
  }
}

/** Checks every index of `map` against what a full scan and sort of its comments gives. */
function checkAgainstFullSort(map: CommentMap): void {
  const index = map.index;
  const docs = [...map.values()];
  const visible = docs.filter(isVisible);
  for (const dir of DIRECTIONS) {
    const expected = [...visible].sort(comparator(dir)).map((d) => d._id);
    const sorted = index.sorted(dir);
    assert.deepEqual([...sorted], expected, `sorted ${dir}`);
    assert.deepEqual(sorted.slice(), expected);
    assert.equal(sorted.length, expected.length);
    for (let i = 0; i < expected.length; i += 3) assert.deepEqual(sorted.slice(i, i + 4), expected.slice(i, i + 4), `slice ${dir} ${i}`);
    for (const [i, id] of expected.entries()) assert.equal(sorted.indexOf(id), i, `indexOf ${dir} ${id}`);
    for (const d of docs) if (!isVisible(d)) assert.equal(sorted.indexOf(d._id), -1);
    const parents = new Set<string | null>([null, ...docs.map((d) => d._id), ...docs.map((d) => d.parentId)]);
    for (const parentId of parents) {
      const kids = [...visible].filter((d) => d.parentId === parentId).sort(comparator(dir)).map((d) => d._id);
      const got = index.children(parentId, dir);
      assert.deepEqual([...got], kids, `children ${dir} of ${parentId}`);
      assert.deepEqual(got.slice(1, 3), kids.slice(1, 3));
      for (const [i, id] of kids.entries()) assert.equal(got.indexOf(id), i);
      if (parentId !== null) assert.deepEqual(new Set(index.replies(parentId)), new Set(docs.filter((d) => d.parentId === parentId).map((d) => d._id)));
    }
    const roots = index.children(null, dir);
    const pinnedIds = new Set(visible.filter((d) => d.parentId === null && d.isPinned).map((d) => d._id));
    assert.deepEqual(new Set(index.pinnedRoots()), pinnedIds);
    const rootList = [...roots];
    const pinnedFirst = [...rootList.filter((id) => pinnedIds.has(id)), ...rootList.filter((id) => !pinnedIds.has(id))];
    const view = new PinnedFirst(roots, index.pinnedRoots());
    assert.deepEqual([...view], pinnedFirst);
    for (let i = 0; i <= pinnedFirst.length; i++) for (const n of [1, 2, 5]) assert.deepEqual(view.slice(i, i + n), pinnedFirst.slice(i, i + n), `pinned slice ${i} ${n}`);
    for (const [i, id] of pinnedFirst.entries()) assert.equal(view.indexOf(id), i);
  }
  assert.equal(index.commentCount, visible.length);
  assert.equal(index.rootCommentCount, visible.filter((d) => d.parentId === null).length);
  assert.deepEqual(new Set(index.hidden()), new Set(docs.filter((d) => !isVisible(d)).map((d) => d._id)));
  for (const kind of AUTHOR_KINDS) {
    for (const d of docs) {
      const value = authorOf(d, kind);
      if (value === null) continue;
      assert.deepEqual(new Set(index.byAuthor(kind, value)), new Set(docs.filter((o) => authorOf(o, kind) === value).map((o) => o._id)));
    }
  }
}

describe('page indexes', () => {
  test('after random inserts, edits, votes, moves and deletes, every order equals a full sort (small blocks)', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 150 }), (ops) => {
        const map = new CommentMap();
        map.index = new PageIndex(2);
        for (const o of ops) apply(map, o);
        checkAgainstFullSort(map);
      }),
      { numRuns: 300 },
    );
  });

  test('the same with the default block size, checked after every change', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const map = new CommentMap();
        for (const o of ops) {
          apply(map, o);
          checkAgainstFullSort(map);
        }
      }),
      { numRuns: 60 },
    );
  });

  test('a large page split over many blocks keeps its orders through votes and deletes', () => {
    const map = new CommentMap();
    for (let i = 0; i < 3000; i++) map.set(`c${i}`, doc(`c${i}`, i % 3 === 0 ? null : `c${i - (i % 3)}`, i % 97, i % 7));
    for (let i = 0; i < 3000; i += 7) map.set(`c${i}`, { ...map.get(`c${i}`)!, votes: map.get(`c${i}`)!.votes + 5 });
    for (let i = 1; i < 3000; i += 11) map.delete(`c${i}`);
    const visible = [...map.values()];
    for (const dir of DIRECTIONS) assert.deepEqual([...map.index.sorted(dir)], visible.sort(comparator(dir)).map((d) => d._id));
    assert.equal(map.index.commentCount, map.size);
  });

  test('clear forgets every index', () => {
    const map = new CommentMap();
    map.set('a', doc('a', null, 1, 0));
    map.clear();
    assert.equal(map.index.sorted('OF').length, 0);
    assert.equal(map.index.commentCount, 0);
  });
});
