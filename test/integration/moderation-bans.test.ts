import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { clock } from '../../engine/clock.js';
import { startTestServer, storages, type TestServer, UNLIMITED_PUBLIC } from '../fixtures/server.js';
import { SmtpSink } from '../fixtures/smtp-sink.js';
import { call, ok } from './identity-helpers.js';
import { good, mod, no } from './moderation-helpers.js';
import { signIn } from './oauth-helpers.js';
import { postComment } from './page-helpers.js';
import { commentData, secureSso, widget } from './public-comments-helpers.js';

type Json = Record<string, any>;

for (const storage of storages()) {
  describe(`bans on ${storage}`, () => {
    let t: TestServer;
    let sink: SmtpSink;
    let cookie: string;
    let tenantId: string;
    before(async () => {
      sink = await SmtpSink.start();
      t = await startTestServer(storage, { smtpUrl: sink.url, mailFrom: 'Site <robot@example.net>', ...UNLIMITED_PUBLIC });
      cookie = (await signIn(t, sink, { isAdminAdmin: true })).cookie;
      tenantId = t.tenant.tenantId;
    });
    after(async () => {
      await t?.destroy();
      await sink.close();
    });

    let n = 0;
    const apiPost = (urlId: string, fields: Json) =>
      t.api('POST', '/api/v1/comments', { body: { commenterName: `Ann ${++n}`, comment: `Hello ${n}`, url: `https://example.com/${urlId}`, urlId, locale: 'en_us', ...fields } });

    test('a widget session banned from its comment: posting, voting and flagging refused, until undone', async () => {
      const urlId = 'ban-anon';
      const first = await widget(t, 'POST', `/comments/${tenantId}`, { urlId }, commentData(urlId, 'I am rude'));
      assert.equal(first.status, 200);
      const sessionId = first.body.user.sessionId as string;
      const commentId = first.body.comment._id as string;
      const other = await postComment(t, urlId, { comment: 'Someone else' });

      const summary = good(await mod(t, cookie, 'GET', `/pre-ban-summary/${commentId}`));
      assert.equal(summary.count, 1);
      assert.deepEqual(summary.usernames, ['Reader']);
      assert.deepEqual(good(await mod(t, cookie, 'GET', `/get-comment-ban-status/${commentId}`)), { status: 'success', emailDomain: null, canIPBan: true });
      assert.equal(good(await mod(t, cookie, 'GET', '/user-ban-preference')).preferences, null);

      const banned = good(await mod(t, cookie, 'POST', `/ban-user/from-comment/${commentId}`, { banReason: 'rude' }));
      assert.equal(typeof banned.changelog.createdBannedUserId, 'string');
      const refused = no(await widget(t, 'POST', `/comments/${tenantId}`, { urlId, sessionId }, commentData(urlId, 'Again')), 403, 'banned');
      assert.equal(refused['bannedUntil'], null, 'a ban without end');
      no(await widget(t, 'POST', `/comments/${tenantId}/${other._id}/vote`, { urlId, sessionId }, { voteDir: 'up', url: null, commenterName: null, commenterEmail: null }), 403, 'banned');
      no(await widget(t, 'POST', `/flag-comment/${other._id}`, { tenantId, sessionId, isFlagged: true }), 403, 'banned');
      const fresh = await widget(t, 'POST', `/comments/${tenantId}`, { urlId }, commentData(urlId, 'A new reader'));
      assert.equal(fresh.status, 200, 'other readers still post');

      assert.equal(good(await mod(t, cookie, 'GET', `/comment/${commentId}`)).comment.isBannedUser, true, 'their comments carry isBannedUser');
      assert.equal(good(await mod(t, cookie, 'GET', '/banned-users/counts')).totalCount, 1);
      const listed = good(await mod(t, cookie, 'GET', `/ban-users/from-comment/${commentId}`)).bannedUsers;
      assert.equal(listed.length, 1);
      assert.deepEqual(listed[0].matches, [{ matchedOn: 'userId', matchedOnValue: first.body.comment.anonUserId }]);
      assert.deepEqual(good(await mod(t, cookie, 'GET', '/user-ban-preference')).preferences, { shouldBanEmail: false, shouldBanByIP: false, lastBanType: 'normal', lastBanDuration: 'forever' });
      const logs = good(await mod(t, cookie, 'GET', `/logs/${commentId}`)).logs;
      assert.equal(logs.at(-1).actionName, 'banned-user');

      t = await t.restart();
      no(await widget(t, 'POST', `/comments/${tenantId}`, { urlId, sessionId }, commentData(urlId, 'After a restart')), 403, 'banned', 'bans are durable');

      good(await mod(t, cookie, 'POST', '/ban-user/undo', {}, { changelog: banned.changelog }));
      assert.equal(good(await mod(t, cookie, 'GET', `/comment/${commentId}`)).comment.isBannedUser, false, 'undo restores the comments');
      const again = await widget(t, 'POST', `/comments/${tenantId}`, { urlId, sessionId }, commentData(urlId, 'Sorry'));
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal(good(await mod(t, cookie, 'GET', '/banned-users/counts')).totalCount, 0);
      no(await mod(t, cookie, 'POST', '/ban-user/undo', {}, { changelog: banned.changelog }), 404, 'not-found');
      no(await mod(t, cookie, 'POST', '/ban-user/undo', {}, { changelog: {} }), 400, 'invalid-param');
    });

    test('a user banned until a date: refused on the management API, votes, flags and likes, then free once it passes', async () => {
      const userId = `${tenantId}:until-user`;
      ok(await call(t, 'POST', '/api/v1/sso-users', { body: { id: 'until-user', username: 'untiluser', email: 'until@example.com' } }));
      const c = await postComment(t, 'ban-until', { userId, comment: 'Mine' });
      const other = await postComment(t, 'ban-until', { comment: 'Theirs' });
      const until = new Date(Date.now() + 3_600_000).toISOString();
      good(await mod(t, cookie, 'POST', `/ban-user/from-comment/${c._id}`, { bannedUntil: until }));
      const refused = no(await apiPost('ban-until', { userId }), 403, 'banned');
      assert.equal(refused['bannedUntil'], until);
      no(await t.api('POST', '/api/v1/votes', { body: { commentId: other._id, direction: 'up', userId } }), 403, 'banned');
      no(await t.api('POST', `/api/v1/comments/${other._id}/flag`, { query: { userId } }), 403, 'banned');
      const sso = secureSso(t.tenant.apiSecret, { id: 'until-user', email: 'until@example.com', username: 'untiluser' });
      no(await widget(t, 'POST', `/page-reacts/v1/likes/${tenantId}`, { urlId: 'ban-until', sso }), 403, 'banned');
      no(await widget(t, 'POST', `/comments/${tenantId}`, { urlId: 'ban-until', sso }, commentData('ban-until', 'Through the widget')), 403, 'banned');

      const restore = clock.set(() => Date.now() + 2 * 3_600_000);
      try {
        const later = await apiPost('ban-until', { userId });
        assert.equal(later.status, 200, `an expired ban stops applying: ${JSON.stringify(later.body)}`);
        assert.equal(good(await mod(t, cookie, 'GET', '/banned-users/counts')).totalCount, 0);
      } finally {
        restore();
      }
    });

    test('by email and by email domain, with all their comments removed and restored by undo', async () => {
      const a = await postComment(t, 'ban-mail', { comment: 'Spam one', commenterEmail: 'seller@spam.example' });
      const b = await postComment(t, 'ban-mail', { comment: 'Spam two', commenterEmail: 'seller@spam.example' });
      const byEmail = good(await mod(t, cookie, 'POST', `/ban-user/from-comment/${a._id}`, { banEmail: true, deleteAllUsersComments: true }));
      for (const id of [a._id, b._id]) assert.equal(good(await mod(t, cookie, 'GET', `/comment/${id}`)).comment.isDeleted, true, 'removed with the ban');
      no(await apiPost('ban-mail', { commenterEmail: 'SELLER@spam.example' }), 403, 'banned');
      const otherMail = await apiPost('ban-mail', { commenterEmail: 'other@spam.example' });
      assert.equal(otherMail.status, 200, `an email ban is that email only: ${JSON.stringify(otherMail.body)}`);
      good(await mod(t, cookie, 'POST', '/ban-user/undo', {}, { changelog: byEmail.changelog }));
      for (const id of [a._id, b._id]) {
        const back = good(await mod(t, cookie, 'GET', `/comment/${id}`)).comment;
        assert.equal(back.isDeleted, false);
        assert.equal(back.approved, true);
      }
      assert.equal((await apiPost('ban-mail', { commenterEmail: 'seller@spam.example' })).status, 200);

      const bulk = good(await mod(t, cookie, 'POST', '/bulk-pre-ban-summary', {}, { commentIds: [a._id, 'nope'] }));
      assert.deepEqual(bulk.emailDomains, ['spam.example']);
      assert.deepEqual(bulk.emails, ['seller@spam.example']);
      assert.ok(bulk.totalRelatedCommentCount >= 3);

      const byDomain = good(await mod(t, cookie, 'POST', `/ban-user/from-comment/${a._id}`, { banEmailDomain: true }));
      no(await apiPost('ban-mail', { commenterEmail: 'new@spam.example' }), 403, 'banned');
      assert.equal((await apiPost('ban-mail', { commenterEmail: 'new@fine.example' })).status, 200);
      const listed = good(await mod(t, cookie, 'GET', `/ban-users/from-comment/${a._id}`)).bannedUsers;
      assert.deepEqual(listed.map((x: Json) => [x.email, x.hasEmailWildcard]), [['*@spam.example', true]]);
      // The same person banned again the same way updates the ban; undo restores it as it was.
      const shadowed = good(await mod(t, cookie, 'POST', `/ban-user/from-comment/${a._id}`, { banEmailDomain: true, isShadowBan: true }));
      assert.equal(shadowed.changelog.updatedBannedUserId, byDomain.changelog.createdBannedUserId);
      assert.equal(shadowed.changelog.changedValuesBefore.banType, 'normal');
      good(await mod(t, cookie, 'POST', '/ban-user/undo', {}, { changelog: shadowed.changelog }));
      no(await apiPost('ban-mail', { commenterEmail: 'again@spam.example' }), 403, 'banned', 'a normal ban again');
      no(await mod(t, cookie, 'POST', `/ban-user/from-comment/${a._id}`, { banIP: true }), 400, 'invalid-param');
      no(await mod(t, cookie, 'POST', `/ban-user/from-comment/${a._id}`, { bannedUntil: 'soon' }), 400, 'invalid-param');
    });

    test('a shadow ban: the person still posts and sees their comment, nobody else does', async () => {
      const urlId = 'ban-shadow';
      const first = await widget(t, 'POST', `/comments/${tenantId}`, { urlId }, commentData(urlId, 'Troll'));
      const sessionId = first.body.user.sessionId as string;
      good(await mod(t, cookie, 'POST', `/ban-user/from-comment/${first.body.comment._id}`, { isShadowBan: true }));
      const posted = await widget(t, 'POST', `/comments/${tenantId}`, { urlId, sessionId }, commentData(urlId, 'Still trolling'));
      assert.equal(posted.status, 200, 'the answer does not give the ban away');
      const id = posted.body.comment._id as string;
      const seenByAuthor = await widget(t, 'GET', `/comments/${tenantId}`, { urlId, sessionId });
      assert.ok(seenByAuthor.body.comments.some((x: Json) => x._id === id), 'the author sees it');
      const seenByOthers = await widget(t, 'GET', `/comments/${tenantId}`, { urlId });
      assert.ok(!seenByOthers.body.comments.some((x: Json) => x._id === id), 'nobody else does');
      const held = good(await mod(t, cookie, 'GET', `/comment/${id}`)).comment;
      assert.equal(held.isBannedUser, true);
      assert.equal(held.approved, false);
      assert.equal(good(await mod(t, cookie, 'GET', '/count', { filter: JSON.stringify({ urlId, isBannedUser: true }) })).count, 2);
    });
  });
}
