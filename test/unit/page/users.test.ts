import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { usernameActorId, usernameKey } from '../../../actors/user/protocol.js';
import { mergeSsoUser } from '../../../actors/user/user-actor.js';
import { authorKeyOf } from '../../../actors/page/comment-doc.js';

describe('users', () => {
  test('SSO users: private unless the payload says otherwise; absent fields kept, null clears', () => {
    const base = { _id: 't1:u1', tenantId: 't1' };
    const created = mergeSsoUser(null, base, { username: 'ann', email: 'Ann@Example.COM', avatarSrc: 'https://a/x.png' }, '2024-01-01T00:00:00.000Z');
    assert.deepEqual([created.kind, created.username, created.email, created.isProfileActivityPrivate, created.avatarSrc], ['sso', 'ann', 'ann@example.com', true, 'https://a/x.png']);
    const updated = mergeSsoUser(created, base, { displayName: 'Ann A', avatarSrc: null, isProfileActivityPrivate: false }, '2024-02-01T00:00:00.000Z');
    assert.deepEqual([updated.username, updated.displayName, updated.avatarSrc, updated.isProfileActivityPrivate, updated.createdAt], ['ann', 'Ann A', null, false, '2024-01-01T00:00:00.000Z']);
    assert.equal(mergeSsoUser(null, base, {}, 'x').username, 't1:u1', 'a user always has a name');
    assert.equal(created.displayName, null);
  });

  test('usernames compare trimmed, spacing collapsed, case ignored', () => {
    assert.equal(usernameKey('  Jane   DOE '), 'jane doe');
    assert.equal(usernameActorId('t1', 'Jane Doe'), usernameActorId('t1', ' jane  doe'));
    assert.notEqual(usernameActorId('t1', 'Jane'), usernameActorId('t2', 'Jane'));
  });

  test('authors are known by user id, else by email', () => {
    assert.equal(authorKeyOf('u1', 'a@b.c'), 'u:u1');
    assert.equal(authorKeyOf(null, ' A@B.c '), 'e:a@b.c');
    assert.equal(authorKeyOf(null, null), null);
  });
});
