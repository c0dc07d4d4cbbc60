import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { VOTE_KINDS, type VoteDoc } from '../../../actors/page/vote-doc.js';
import { VoteIndex } from '../../../actors/page/vote-index.js';

function vote(id: string, commentId: string, voterKey: string, direction: 1 | -1 = 1): VoteDoc {
  const user = voterKey.slice(2);
  const byUser = voterKey.startsWith('u:');
  return {
    _id: id,
    tenantId: 't',
    urlId: '/p',
    commentId,
    userId: byUser ? user : null,
    anonUserId: byUser ? null : user,
    voterKey,
    direction,
    kind: VOTE_KINDS.authorized,
    createdAt: '2026-11-22T00:00:00.000Z',
  };
}

describe('the votes of a page', () => {
  test('are found by comment and voter, by comment, and by id given its comment and voter', () => {
    const index = new VoteIndex('t', '/p');
    index.add(vote('v1', 'c1', 'u:a'));
    index.add(vote('v2', 'c1', 'a:b', -1));
    index.add(vote('v3', 'c2', 'u:a'));
    assert.equal(index.size, 3);
    assert.deepEqual(index.of('c1', 'a:b'), vote('v2', 'c1', 'a:b', -1), 'the document is made again exactly');
    assert.equal(index.of('c2', 'u:a')?._id, 'v3');
    assert.equal(index.of('c2', 'u:b'), undefined);
    assert.equal(index.withId('c1', 'u:a', 'v1')?._id, 'v1');
    assert.equal(index.withId('c1', 'u:a', 'v3'), undefined);
    assert.deepEqual(index.onComment('c1').map((v) => v._id).sort(), ['v1', 'v2']);
    assert.deepEqual(index.onComment('c9'), []);
    assert.deepEqual([...index.values()].map((v) => v._id).sort(), ['v1', 'v2', 'v3']);
    assert.deepEqual([...index.totals()], [
      ['c1', { votes: 0, votesUp: 1, votesDown: 1 }],
      ['c2', { votes: 1, votesUp: 1, votesDown: 0 }],
    ]);
  });

  test('a vote of the same voter on the same comment replaces the earlier one', () => {
    const index = new VoteIndex('t', '/p');
    const older = vote('v1', 'c1', 'u:a');
    index.add(older);
    index.add(vote('v2', 'c1', 'u:a', -1));
    assert.equal(index.size, 1);
    index.remove(older);
    assert.equal(index.of('c1', 'u:a')?._id, 'v2', 'letting the older vote go keeps the newer one');
    index.remove(index.of('c1', 'u:a')!);
    assert.equal(index.size, 0);
    assert.deepEqual(index.onComment('c1'), []);
    assert.deepEqual([...index.totals()], []);
  });
});
