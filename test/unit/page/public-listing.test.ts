import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CommentDoc } from '../../../actors/page/comment-doc.js';
import { editKeyFor, editKeyMatches } from '../../../actors/page/edit-key.js';
import { comparator, type SortDirection } from '../../../actors/page/listing.js';
import { accepts, PublicAnswer, SYNC_COMPRESS_MAX } from '../../../actors/page/public-answers.js';
import { publicCommentJson } from '../../../actors/page/public-comment.js';
import { MAX_TREE_DEPTH, type PublicListQuery, publicListJson, type PublicReader, type PublicSource } from '../../../actors/page/public-listing.js';
import { isLocalSite } from '../../../http/site-check.js';
import { eventually } from '../../fixtures/eventually.js';
import { resolvePublicQuery } from '../../../http/public/read-query.js';

function doc(id: string, parentId: string | null, minute: number, extra: Partial<CommentDoc> = {}): CommentDoc {
  return {
    _id: id,
    parentId,
    date: new Date(Date.UTC(2024, 0, 1, 0, minute)).toISOString(),
    votes: 0,
    votesUp: 0,
    votesDown: 0,
    verified: false,
    approved: true,
    isSpam: false,
    isDeleted: false,
    isPinned: false,
    userId: null,
    anonUserId: null,
    commenterName: `name ${id}`,
    commenterEmail: `${id}@example.com`,
    commentHTML: `text ${id}`,
    comment: `text ${id}`,
    meta: { secret: true },
    hashTagKeys: [],
    authorKey: null,
    hasPoll: false,
    ...extra,
  } as unknown as CommentDoc;
}

function source(docs: CommentDoc[], votes: Record<string, { id: string; direction: number }> = {}): PublicSource {
  const byId = new Map(docs.map((d) => [d._id, d]));
  const visible = docs.filter((d) => d.approved && !d.isSpam);
  const byParent = new Map<SortDirection, Map<string | null, string[]>>();
  const version = {};
  return {
    doc: (id) => byId.get(id),
    sorted: (dir: SortDirection) => [...visible].sort(comparator(dir)).map((d) => d._id),
    children: (parentId, dir) => {
      let index = byParent.get(dir);
      if (index === undefined) {
        index = new Map();
        for (const d of [...visible].sort(comparator(dir))) index.set(d.parentId, [...(index.get(d.parentId) ?? []), d._id]);
        byParent.set(dir, index);
      }
      return index.get(parentId) ?? [];
    },
    hidden: () => docs.filter((d) => !d.approved || d.isSpam),
    pinnedRoots: () => new Set(visible.filter((d) => d.parentId === null && d.isPinned).map((d) => d._id)),
    version: () => version,
    poll: () => undefined,
    voteOf: (commentId, voterKey) => votes[`${commentId}|${voterKey}`],
    flagged: () => false,
    isClosed: false,
    counts: () => ({ commentCount: visible.length, rootCommentCount: visible.filter((d) => d.parentId === null).length }),
  };
}

const q: PublicListQuery = resolvePublicQuery({ urlId: '', direction: 'OF', limit: 2 }, {});

const parse = (json: string) => JSON.parse(json) as { comments: Record<string, unknown>[]; pageNumber: number; hasMore: boolean; commentCount: number };
const ids = (json: string) => parse(json).comments.map((c) => c['_id']);

describe('the public listing', () => {
  const docs = [doc('a', null, 1), doc('b', null, 2, { isPinned: true }), doc('c', null, 3), doc('r', 'a', 4)];

  test('pinned root comments first, each root followed by its replies, paged over roots', () => {
    const first = publicListJson(source(docs), q, null, '');
    assert.deepEqual(ids(first), ['b', 'a', 'r']);
    assert.deepEqual([parse(first).hasMore, parse(first).commentCount], [true, 3]);
    assert.deepEqual(ids(publicListJson(source(docs), { ...q, page: 1 }, null, '')), ['c']);
    assert.equal(parse(publicListJson(source(docs), { ...q, fetchPageForCommentId: 'c' }, null, '')).pageNumber, 1);
  });

  test('never shows emails, meta or anonymous ids to others; the author gets its own edit key', () => {
    const mine = doc('m', null, 5, { anonUserId: 'anon-me' });
    const reader: PublicReader = { userId: null, anonUserId: 'anon-me', voterKey: 'a:anon-me', blocked: [], editSecret: 'secret' };
    const shared = publicListJson(source([mine]), q, null, '');
    assert.ok(!shared.includes('example.com') && !shared.includes('secret') && !shared.includes('anon-me'), shared);
    const own = parse(publicListJson(source([mine]), q, reader, '')).comments[0]!;
    assert.equal(own['anonUserId'], 'anon-me');
    assert.equal(own['editKey'], editKeyFor('secret', 'm'));
    assert.equal(own['isVotedUp'], false);
  });

  test("a reader sees their own held comments, and nobody else's", () => {
    const held = [doc('a', null, 1), doc('h', null, 2, { approved: false, anonUserId: 'anon-me' }), doc('x', null, 3, { approved: false, anonUserId: 'anon-other' })];
    const reader: PublicReader = { userId: null, anonUserId: 'anon-me', voterKey: 'a:anon-me', blocked: [], editSecret: null };
    assert.deepEqual(ids(publicListJson(source(held), q, null, '')), ['a']);
    const own = parse(publicListJson(source(held), q, reader, ''));
    assert.deepEqual(own.comments.map((c) => [c['_id'], c['approved']]), [['h', false], ['a', undefined]]);
  });

  test('votes, blocks and trees', () => {
    const reader: PublicReader = { userId: 'u1', anonUserId: null, voterKey: 'u:u1', blocked: ['u:troll'], editSecret: null };
    const withTroll = [...docs, doc('t', null, 9, { authorKey: 'u:troll' })];
    const answer = parse(publicListJson(source(withTroll, { 'a|u:u1': { id: 'v1', direction: -1 } }), { ...q, limit: 10, asTree: true, countChildren: true }, reader, ''));
    const a = answer.comments.find((c) => c['_id'] === 'a')!;
    assert.deepEqual([a['isVotedDown'], a['myVoteId'], a['childCount'], a['nestedChildrenCount']], [true, 'v1', 1, 1]);
    assert.equal(answer.comments.find((c) => c['_id'] === 't')!['isBlocked'], true);
  });

  test('a very deep thread is listed flat without recursion, and nested at most MAX_TREE_DEPTH levels', () => {
    const chain = [doc('c0', null, 0)];
    for (let i = 1; i < 20_000; i++) chain.push(doc(`c${i}`, `c${i - 1}`, i));
    const flat = parse(publicListJson(source(chain), q, null, ''));
    assert.equal(flat.comments.length, 20_000);
    const tree = parse(publicListJson(source(chain), { ...q, asTree: true }, null, ''));
    let depth = 0;
    for (let node = tree.comments[0] as Record<string, any>; node['children'] !== undefined; node = node['children'][0]) depth++;
    assert.equal(depth, MAX_TREE_DEPTH);
  });

  test('the projection keeps the public fields only', () => {
    const json = JSON.parse(publicCommentJson(doc('p', null, 1, { userId: 'u1', isByAdmin: true }), undefined)) as Record<string, unknown>;
    assert.deepEqual(Object.keys(json).sort(), ['_id', 'commentHTML', 'commenterName', 'date', 'id', 'isByAdmin', 'parentId', 'userId', 'verified', 'votes', 'votesDown', 'votesUp']);
  });
});

describe('edit keys, encodings and local sites', () => {
  test('an edit key names one comment under one secret', () => {
    const key = editKeyFor('s1', 'c1');
    assert.ok(editKeyMatches('s1', 'c1', key));
    assert.ok(!editKeyMatches('s1', 'c2', key));
    assert.ok(!editKeyMatches('s2', 'c1', key));
    assert.ok(!editKeyMatches('s1', 'c1', key.slice(1)));
  });

  test('Accept-Encoding is read with its weights', () => {
    assert.ok(accepts('gzip, deflate, br', 'br'));
    assert.ok(accepts('br;q=0.5', 'br'));
    assert.ok(!accepts('br;q=0', 'br'));
    assert.ok(!accepts('gzip', 'br'));
    assert.ok(!accepts('xbr', 'br'));
  });

  test('small answers are encoded at once, large ones off the event loop', async () => {
    const small = new PublicAnswer(Buffer.from('{"a":1}'));
    assert.equal(small.choose('br').encoding, 'br');
    const large = new PublicAnswer(Buffer.from(JSON.stringify({ text: 'x'.repeat(SYNC_COMPRESS_MAX * 2) })));
    assert.equal(large.choose('gzip, br').encoding, null, 'served as it is until its encodings are made');
    await eventually(async () => large.br !== undefined && large.gzip !== undefined, 30_000);
    assert.equal(large.choose('gzip, br').encoding, 'br');
  });

  test('local development sites', () => {
    for (const site of ['localhost', 'localhost:3000', 'app.localhost:5173', '127.0.0.1:8080', '[::1]:3000']) assert.ok(isLocalSite(site), site);
    for (const site of ['example.com', 'localhost.example.com', '128.0.0.1', 'null', '[::2]']) assert.ok(!isLocalSite(site), site);
  });
});
