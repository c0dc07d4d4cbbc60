import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CommentDoc } from '../../../actors/page/comment-doc.js';
import { comparator, listJson, type ListQuery, type ListSource, type SortDirection } from '../../../actors/page/listing.js';

function doc(id: string, parentId: string | null, minute: number, votes = 0, extra: Partial<CommentDoc> = {}): CommentDoc {
  return {
    _id: id,
    parentId,
    date: new Date(Date.UTC(2024, 0, 1, 0, minute)).toISOString(),
    votes,
    approved: true,
    isSpam: false,
    userId: null,
    hashTagKeys: [],
    authorKey: null,
    ...extra,
  } as unknown as CommentDoc;
}

function source(docs: CommentDoc[]): ListSource {
  const byId = new Map(docs.map((d) => [d._id, d]));
  const visible = docs.filter((d) => d.approved && !d.isSpam);
  return {
    doc: (id) => byId.get(id),
    sorted: (dir: SortDirection) => [...visible].sort(comparator(dir)).map((d) => d._id),
    children: (parentId, dir) => visible.filter((d) => d.parentId === parentId).sort(comparator(dir)).map((d) => d._id),
    json: (id) => JSON.stringify({ id }),
  };
}

const base: ListQuery = {
  direction: 'OF',
  skip: 0,
  limit: 30,
  parentId: undefined,
  asTree: false,
  maxTreeDepth: null,
  limitChildren: null,
  skipChildren: 0,
  userId: undefined,
  fromDate: undefined,
  toDate: undefined,
  hashTagKeys: [],
};

const ids = (json: string) => (JSON.parse(json) as { id: string }[]).map((c) => c.id);

describe('listing', () => {
  const docs = [doc('a', null, 1, 2), doc('b', null, 2, 5), doc('c', 'a', 3, 5), doc('d', 'c', 4), doc('e', null, 5, 2), doc('x', null, 6, 9, { approved: false })];
  const src = source(docs);

  test('orders: oldest, newest, most relevant (votes, then newest)', () => {
    assert.deepEqual(ids(listJson(src, base)), ['a', 'b', 'c', 'd', 'e']);
    assert.deepEqual(ids(listJson(src, { ...base, direction: 'NF' })), ['e', 'd', 'c', 'b', 'a']);
    assert.deepEqual(ids(listJson(src, { ...base, direction: 'MR' })), ['c', 'b', 'e', 'a', 'd']);
  });

  test('levels and paging', () => {
    assert.deepEqual(ids(listJson(src, { ...base, parentId: null })), ['a', 'b', 'e']);
    assert.deepEqual(ids(listJson(src, { ...base, parentId: 'a' })), ['c']);
    assert.deepEqual(ids(listJson(src, { ...base, skip: 1, limit: 2 })), ['b', 'c']);
  });

  test('trees: only top-level comments count toward paging; depth and child limits', () => {
    const tree = JSON.parse(listJson(src, { ...base, asTree: true, parentId: null, limit: 2 }));
    assert.deepEqual(tree, [
      { id: 'a', hasChildren: true, children: [{ id: 'c', hasChildren: true, children: [{ id: 'd', hasChildren: false }] }] },
      { id: 'b', hasChildren: false },
    ]);
    const shallow = JSON.parse(listJson(src, { ...base, asTree: true, parentId: null, maxTreeDepth: 1, limit: 1 }));
    assert.deepEqual(shallow, [{ id: 'a', hasChildren: true, children: [{ id: 'c', hasChildren: true }] }]);
    const none = JSON.parse(listJson(src, { ...base, asTree: true, parentId: null, maxTreeDepth: 0, limit: 1 }));
    assert.deepEqual(none, [{ id: 'a', hasChildren: true }]);
    const limited = JSON.parse(listJson(src, { ...base, asTree: true, parentId: 'a', limitChildren: 0 }));
    assert.deepEqual(limited, [{ id: 'c', hasChildren: true, children: [] }]);
  });

  test('filters, blocks and reader tags', () => {
    const tagged = source([doc('a', null, 1, 0, { hashTagKeys: ['x', 'y'], userId: 'u1', authorKey: 'u:u1' }), doc('b', null, 2, 0, { hashTagKeys: ['x'] })]);
    assert.deepEqual(ids(listJson(tagged, { ...base, hashTagKeys: ['x', 'y'] })), ['a']);
    assert.deepEqual(ids(listJson(tagged, { ...base, userId: 'u1' })), ['a']);
    assert.deepEqual(ids(listJson(tagged, { ...base, fromDate: Date.UTC(2024, 0, 1, 0, 2) })), ['b']);
    assert.deepEqual(ids(listJson(tagged, { ...base, toDate: Date.UTC(2024, 0, 1, 0, 1) })), ['a']);
    const viewer = { tags: true, blocked: new Set(['u:u1']), voteOn: (id: string) => (id === 'b' ? { id: 'v1', direction: -1 } : undefined) };
    assert.deepEqual(JSON.parse(listJson(tagged, base, viewer)), [{ id: 'b', isVotedUp: false, isVotedDown: true, myVoteId: 'v1' }]);
  });
});
