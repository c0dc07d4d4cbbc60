import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { VOTE_KINDS, type VoteDoc } from '../../../actors/page/vote-doc.js';
import { VoteIndex } from '../../../actors/page/vote-index.js';

function vote(id: string, commentId: string, voterKey: string): VoteDoc {
  return { _id: id, tenantId: 't', urlId: '/p', commentId, userId: voterKey, anonUserId: null, voterKey, direction: 1, kind: VOTE_KINDS.authorized, createdAt: '2026-11-22T00:00:00.000Z' };
}

describe('the votes of a page', () => {
  test('are found by id, by comment and voter, and by comment', () => {
    const index = new VoteIndex();
    index.add(vote('v1', 'c1', 'u:a'));
    index.add(vote('v2', 'c1', 'u:b'));
    index.add(vote('v3', 'c2', 'u:a'));
    assert.equal(index.size, 3);
    assert.equal(index.get('v2')?.voterKey, 'u:b');
    assert.equal(index.of('c2', 'u:a')?._id, 'v3');
    assert.equal(index.of('c2', 'u:b'), undefined);
    assert.deepEqual(index.onComment('c1').map((v) => v._id).sort(), ['v1', 'v2']);
    assert.deepEqual(index.onComment('c9'), []);
  });

  test('letting an older vote go keeps the voter\'s newer vote on that comment', () => {
    const index = new VoteIndex();
    const older = vote('v1', 'c1', 'u:a');
    index.add(older);
    index.add(vote('v2', 'c1', 'u:a'));
    index.remove(older);
    assert.equal(index.of('c1', 'u:a')?._id, 'v2');
    assert.equal(index.get('v1'), undefined);
    index.remove(index.get('v2')!);
    assert.equal(index.size, 0);
    assert.deepEqual(index.onComment('c1'), []);
  });
});
