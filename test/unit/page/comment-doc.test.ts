import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { publicComment } from '../../../actors/live/public-projection.js';
import { changedComment, commentView, copyComment, type CommentDoc } from '../../../actors/page/comment-doc.js';

/** A comment whose every field holds a value no other field holds. */
function distinctComment(): CommentDoc {
  const keys = Object.keys(copyComment({} as CommentDoc));
  return Object.fromEntries(keys.map((key, i) => [key, `${key}-${i}`])) as unknown as CommentDoc;
}

describe('copying a comment', () => {
  test('copies every field to itself, into a new object', () => {
    const doc = distinctComment();
    const copy = copyComment(doc);
    assert.notEqual(copy, doc);
    assert.deepEqual(copy, doc);
    assert.deepEqual(Object.keys(copy), Object.keys(doc));
    assert.ok(Object.keys(doc).includes('votes') && Object.keys(doc).includes('hasPoll'));
  });

  test('a changed copy leaves the original as it was', () => {
    const doc = distinctComment();
    const changed = changedComment(doc, { votes: 3, approved: false });
    assert.equal(changed.votes, 3);
    assert.equal(changed.approved, false);
    assert.deepEqual(doc, distinctComment());
  });
});

describe('the wire shapes of a comment', () => {
  test('the API view gives the date in epoch ms (APIComment), the live projection as ISO (PubSubComment)', () => {
    const doc = { ...distinctComment(), _id: 'c1', date: '2024-05-01T10:00:00.000Z', hasPoll: false };
    const view = commentView(doc, undefined);
    assert.equal(view['date'], Date.UTC(2024, 4, 1, 10));
    assert.equal(doc.date, '2024-05-01T10:00:00.000Z');
    assert.equal(publicComment(view)['date'], '2024-05-01T10:00:00.000Z');
    // Entries logged before the API view changed carry the ISO string already.
    assert.equal(publicComment({ ...view, date: '2024-05-01T10:00:00.000Z' })['date'], '2024-05-01T10:00:00.000Z');
  });
});
