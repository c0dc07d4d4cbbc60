/**
 * The widget API's comments, as a widget in a browser uses them, with real websocket readers:
 * reading, posting, echo suppression by broadcastId, votes, ownership and edit keys, sessions
 * carried without cookies, pre-moderation, blocks, and refusals that change nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ProvisionedTenant } from '../../actors/tenant/provision.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { broadcast, commentData, connectLive, LIVE_EVENT_TYPES, nextOf, secureSso, widget } from './public-comments-helpers.js';

for (const storage of storages()) {
  describe(`widget API comments on ${storage}`, () => {
    let t: TestServer;
    let tenantId: string;
    let other: ProvisionedTenant;

    before(async () => {
      t = await startTestServer(storage, { openSitesWithoutDomains: false });
      tenantId = t.tenant.tenantId;
      other = await t.addTenant();
    });
    after(async () => {
      await t.destroy();
    });

    const read = (urlId: string, query: Record<string, string | number | boolean | undefined> = {}) => widget(t, 'GET', `/comments/${tenantId}`, { urlId, ...query });
    const post = (urlId: string, body: Record<string, unknown>, query: Record<string, string | undefined> = {}) =>
      widget(t, 'POST', `/comments/${tenantId}`, { urlId, broadcastId: broadcast(), ...query }, body);

    test('reader A posts, reader B sees it live once, A can drop its echo; B votes and both see the counts', async () => {
      const urlId = '/flow';
      const first = await read(urlId);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.body.user, null);
      assert.deepEqual(first.body.comments, []);
      const a = await connectLive(t, first.body);
      const b = await connectLive(t, first.body);

      const aBroadcast = broadcast();
      const posted = await widget(t, 'POST', `/comments/${tenantId}`, { urlId, broadcastId: aBroadcast }, commentData(urlId, 'Hello **world**', { commenterName: 'Ann' }));
      assert.equal(posted.status, 200, JSON.stringify(posted.body));
      const comment = posted.body.comment;
      assert.equal(comment.commenterName, 'Ann');
      assert.match(comment.commentHTML, /<b>world<\/b>/);
      assert.equal(typeof comment.editKey, 'string');
      assert.equal(posted.body.user.isAnonSession, true);
      const sessionA = posted.body.user.sessionId as string;
      assert.match(sessionA, /^[A-Za-z0-9_-]{22}$/);
      assert.equal(comment.anonUserId, posted.body.user.id);
      assert.equal(comment.commenterEmail, undefined);

      for (const client of [a, b]) {
        const event = await nextOf(client, LIVE_EVENT_TYPES.newComment);
        assert.equal(event.comment._id, comment._id);
        assert.equal(event.broadcastId, aBroadcast, 'the writer recognises its own echo by its broadcastId');
        assert.equal(event.comment.editKey, undefined);
        assert.equal(event.comment.anonUserId, undefined);
      }

      const bBroadcast = broadcast();
      const vote = await widget(t, 'POST', `/comments/${tenantId}/${comment._id}/vote`, { urlId, broadcastId: bBroadcast }, { voteDir: 'up', url: null, commenterName: null, commenterEmail: null });
      assert.equal(vote.status, 200, JSON.stringify(vote.body));
      assert.equal(vote.body.status, 'success');
      const sessionB = vote.body.user.sessionId as string;
      assert.ok(sessionB && sessionB !== sessionA);
      for (const client of [a, b]) {
        const event = await nextOf(client, LIVE_EVENT_TYPES.newVote);
        assert.equal(event.vote.commentId, comment._id);
        assert.equal(event.broadcastId, bBroadcast);
        assert.equal(event.counts.votesUp, 1);
      }
      // B's first new-comment event after the vote is a later comment: the first reached it once.
      const sentinel = await post(urlId, commentData(urlId, 'Sentinel', { commenterName: 'Sam' }));
      assert.equal((await nextOf(b, LIVE_EVENT_TYPES.newComment)).comment._id, sentinel.body.comment._id);

      const asA = await read(urlId, { sessionId: sessionA, direction: 'OF' });
      const mineA = asA.body.comments.find((c: any) => c._id === comment._id);
      assert.equal(mineA.votesUp, 1);
      assert.equal(mineA.isVotedUp, false);
      assert.equal(mineA.editKey, comment.editKey, 'the author sees its edit key again');
      assert.equal(asA.body.user.id, posted.body.user.id);
      const asB = await read(urlId, { sessionId: sessionB, direction: 'OF' });
      const seenByB = asB.body.comments.find((c: any) => c._id === comment._id);
      assert.equal(seenByB.isVotedUp, true);
      assert.equal(seenByB.myVoteId, vote.body.voteId);
      assert.equal(seenByB.editKey, undefined);
      assert.equal(seenByB.anonUserId, undefined, "another reader's anonymous id is never shown");

      const again = await widget(t, 'POST', `/comments/${tenantId}/${comment._id}/vote`, { urlId, broadcastId: broadcast(), sessionId: sessionB }, { voteDir: 'up', url: null, commenterName: null, commenterEmail: null });
      assert.deepEqual([again.status, again.body.code], [409, 'already-voted']);
      const unvote = await widget(t, 'DELETE', `/comments/${tenantId}/${comment._id}/vote/${vote.body.voteId}`, { urlId, broadcastId: broadcast(), editKey: comment.editKey });
      assert.deepEqual([unvote.status, unvote.body.code], [403, 'edit-key-invalid'], "the comment author's key does not take back another reader's vote");
      const unvoted = await widget(t, 'DELETE', `/comments/${tenantId}/${comment._id}/vote/${vote.body.voteId}`, { urlId, broadcastId: broadcast(), editKey: vote.body.editKey });
      assert.equal(unvoted.status, 200, JSON.stringify(unvoted.body));
      assert.equal(unvoted.body.wasPendingVote, false);
      assert.equal((await nextOf(a, LIVE_EVENT_TYPES.deletedVote)).vote._id, vote.body.voteId);
      a.close();
      b.close();
    });

    test('only the author edits and deletes, by session or by the editKey of that comment', async () => {
      const urlId = '/owner';
      const mine = await post(urlId, commentData(urlId, 'Mine', { commenterName: 'Ann' }));
      const session = mine.body.user.sessionId as string;
      const theirs = await post(urlId, commentData(urlId, 'Theirs', { commenterName: 'Bob' }));
      const id = mine.body.comment._id as string;
      const text = (q: Record<string, string>) => widget(t, 'GET', `/comments/${tenantId}/${id}/text`, q);
      const update = (q: Record<string, string>, comment: string) => widget(t, 'POST', `/comments/${tenantId}/${id}/update-text`, { broadcastId: broadcast(), ...q }, { comment });

      assert.deepEqual([(await text({})).status, (await text({})).body.code], [403, 'edit-key-invalid']);
      const foreign = await update({ editKey: theirs.body.comment.editKey }, 'Hijacked');
      assert.deepEqual([foreign.status, foreign.body.code], [403, 'edit-key-invalid'], "another comment's edit key is refused");
      const forged = await update({ editKey: 'A'.repeat(32) }, 'Hijacked');
      assert.equal(forged.status, 403);
      const bySession = await text({ sessionId: session });
      assert.deepEqual([bySession.status, bySession.body.commentText], [200, 'Mine']);
      const watcher = await connectLive(t, (await read(urlId)).body);
      const editBroadcast = broadcast();
      const byKey = await widget(t, 'POST', `/comments/${tenantId}/${id}/update-text`, { broadcastId: editBroadcast, editKey: mine.body.comment.editKey }, { comment: 'Mine, *edited*' });
      assert.equal(byKey.status, 200, JSON.stringify(byKey.body));
      const edited = await nextOf(watcher, LIVE_EVENT_TYPES.updatedComment);
      assert.deepEqual([edited.comment._id, edited.broadcastId, edited.comment.editKey], [id, editBroadcast, undefined]);
      assert.equal(byKey.body.comment.approved, true);
      assert.match(byKey.body.comment.commentHTML, /<i>edited<\/i>/);
      assert.equal((await text({ sessionId: session })).body.commentText, 'Mine, *edited*');

      const notMine = await widget(t, 'DELETE', `/comments/${tenantId}/${theirs.body.comment._id}`, { broadcastId: broadcast(), sessionId: session });
      assert.deepEqual([notMine.status, notMine.body.code], [403, 'edit-key-invalid']);
      const deleteBroadcast = broadcast();
      const deleted = await widget(t, 'DELETE', `/comments/${tenantId}/${id}`, { broadcastId: deleteBroadcast, editKey: mine.body.comment.editKey });
      assert.deepEqual([deleted.status, deleted.body.hardRemoved], [200, true]);
      const gone = await nextOf(watcher, LIVE_EVENT_TYPES.deletedComment);
      assert.deepEqual([gone.comment._id, gone.broadcastId], [id, deleteBroadcast]);
      watcher.close();
      const replayed = await widget(t, 'DELETE', `/comments/${tenantId}/${id}`, { broadcastId: broadcast(), editKey: mine.body.comment.editKey });
      assert.deepEqual([replayed.status, replayed.body.code], [404, 'not-found'], 'a replayed delete finds nothing');
      const left = await read(urlId);
      assert.deepEqual(left.body.comments.map((c: any) => c._id), [theirs.body.comment._id]);
    });

    test("a comment with replies is kept as a placeholder; another tenant's ids are not found", async () => {
      const urlId = '/placeholder';
      const root = await post(urlId, commentData(urlId, 'Root', { commenterName: 'Ann' }));
      await post(urlId, commentData(urlId, 'Reply', { commenterName: 'Bob', parentId: root.body.comment._id }));
      const id = root.body.comment._id as string;
      const viaOther = await widget(t, 'GET', `/comments/${other.tenantId}/${id}/text`, { editKey: root.body.comment.editKey });
      assert.deepEqual([viaOther.status, viaOther.body.code], [404, 'not-found']);
      const voteOther = await widget(t, 'POST', `/comments/${other.tenantId}/${id}/vote`, { urlId, broadcastId: broadcast() }, { voteDir: 'up', url: null, commenterName: null, commenterEmail: null });
      assert.equal(voteOther.status, 404);
      const deleted = await widget(t, 'DELETE', `/comments/${tenantId}/${id}`, { broadcastId: broadcast(), editKey: root.body.comment.editKey });
      assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
      assert.equal(deleted.body.hardRemoved, false);
      assert.equal(deleted.body.comment.isDeleted, true);
      const tree = await read(urlId, { asTree: true, countChildren: true });
      assert.equal(tree.body.comments.length, 1);
      assert.equal(tree.body.comments[0].isDeleted, true);
      assert.equal(tree.body.comments[0].childCount, 1);
      assert.equal(tree.body.comments[0].children[0].commentHTML, 'Reply');
    });

    test('pre-moderation: the author sees its held comment, nobody else does, nothing goes live', async () => {
      assert.equal((await t.api('PATCH', `/api/v1/tenants/${tenantId}`, { body: { commentsRequireApproval: true } })).status, 200);
      try {
        const urlId = '/held';
        const watcher = await connectLive(t, (await read(urlId)).body);
        const held = await post(urlId, commentData(urlId, 'Please approve', { commenterName: 'Ann' }));
        assert.equal(held.status, 200, JSON.stringify(held.body));
        assert.equal(held.body.comment.approved, false);
        const session = held.body.user.sessionId as string;
        assert.deepEqual((await read(urlId)).body.comments, []);
        assert.equal((await read(urlId)).body.commentCount, 0);
        const own = await read(urlId, { sessionId: session });
        assert.deepEqual(own.body.comments.map((c: any) => [c._id, c.approved]), [[held.body.comment._id, false]]);
        // Approving makes it public and live.
        const approved = await t.api('PATCH', `/api/v1/comments/${held.body.comment._id}`, { query: { isLive: true }, body: { approved: true } });
        assert.equal(approved.status, 200);
        assert.equal((await nextOf(watcher, LIVE_EVENT_TYPES.newComment)).comment._id, held.body.comment._id, 'the first new-comment is the approval');
        assert.equal((await read(urlId)).body.comments.length, 1);
        // An edit sends it back to moderation: it leaves readers' view, its author still sees it.
        const edited = await widget(t, 'POST', `/comments/${tenantId}/${held.body.comment._id}/update-text`, { broadcastId: broadcast(), sessionId: session }, { comment: 'Edited after approval' });
        assert.equal(edited.status, 200, JSON.stringify(edited.body));
        assert.equal(edited.body.comment.approved, false);
        assert.equal((await nextOf(watcher, LIVE_EVENT_TYPES.deletedComment)).comment._id, held.body.comment._id);
        assert.deepEqual((await read(urlId)).body.comments, []);
        assert.equal((await read(urlId, { sessionId: session })).body.comments.length, 1);
        watcher.close();
      } finally {
        await t.api('PATCH', `/api/v1/tenants/${tenantId}`, { body: { commentsRequireApproval: false } });
      }
    });

    test('secure and simple SSO; a forged payload changes nothing; admins pin and lock live', async () => {
      const urlId = '/sso';
      const secret = t.tenant.apiSecret;
      const user = secureSso(secret, { id: 'u-1', email: 'ann@example.com', username: 'ann' });
      const posted = await post(urlId, commentData(urlId, 'Signed in'), { sso: user });
      assert.equal(posted.status, 200, JSON.stringify(posted.body));
      assert.equal(posted.body.comment.commenterName, 'ann');
      assert.equal(posted.body.comment.editKey, undefined);
      assert.equal(posted.body.user.isAnonSession, false);
      const text = await widget(t, 'GET', `/comments/${tenantId}/${posted.body.comment._id}/text`, { sso: user });
      assert.equal(text.status, 200, 'an SSO author is known by identity, without a cookie or key');

      const payload = JSON.parse(user) as Record<string, unknown>;
      payload['verificationHash'] = '0'.repeat(64);
      const forged = await post(urlId, commentData(urlId, 'Forged'), { sso: JSON.stringify(payload) });
      assert.deepEqual([forged.status, forged.body.code], [401, 'invalid-sso']);
      const stale = await post(urlId, commentData(urlId, 'Stale'), { sso: secureSso(secret, { id: 'u-1' }, Date.now() - 3 * 86_400_000) });
      assert.equal(stale.status, 401);
      const signedOut = await read(urlId, { sso: JSON.stringify({ userDataJSONBase64: null, verificationHash: null, timestamp: Date.now() }) });
      assert.equal(signedOut.status, 200);
      assert.equal(signedOut.body.user, null);

      const simple = await post(urlId, commentData(urlId, 'Simple'), { sso: JSON.stringify({ simpleSSOUser: { username: 'sam', email: 'sam@example.com', avatar: 'https://img.example.com/sam.png' } }) });
      assert.equal(simple.status, 200, JSON.stringify(simple.body));
      assert.equal(simple.body.comment.avatarSrc, 'https://img.example.com/sam.png');
      const simpleAdmin = await widget(t, 'POST', `/comments/${tenantId}/${simple.body.comment._id}/pin`, { broadcastId: broadcast(), sso: JSON.stringify({ username: 'sam', email: 'sam@example.com', isAdmin: true }) });
      assert.deepEqual([simpleAdmin.status, simpleAdmin.body.code], [403, 'moderator-required'], 'unsigned payloads carry no privileges');

      const admin = secureSso(secret, { id: 'admin', email: 'boss@example.com', username: 'boss', isAdmin: true });
      const asAdmin = await read(urlId, { sso: admin });
      assert.equal(asAdmin.body.isSiteAdmin, true);
      const watcher = await connectLive(t, asAdmin.body);
      const pin = await widget(t, 'POST', `/comments/${tenantId}/${posted.body.comment._id}/pin`, { broadcastId: broadcast(), sso: admin });
      assert.equal(pin.status, 200, JSON.stringify(pin.body));
      assert.equal(pin.body.commentPositions.MR.before, null, 'a pinned comment comes first');
      const moved = await nextOf(watcher, LIVE_EVENT_TYPES.updatedComment);
      assert.deepEqual([moved.comment._id, moved.comment.isPinned, moved.extraInfo.commentPositions.MR.before], [posted.body.comment._id, true, null]);
      const first = await read(urlId, { direction: 'NF' });
      assert.equal(first.body.comments[0]._id, posted.body.comment._id);
      const lockBroadcast = broadcast();
      const lock = await widget(t, 'POST', `/comments/${tenantId}/${posted.body.comment._id}/lock`, { broadcastId: lockBroadcast, sso: admin });
      assert.equal(lock.status, 200, JSON.stringify(lock.body));
      const state = await nextOf(watcher, LIVE_EVENT_TYPES.threadStateChange);
      assert.deepEqual([state.isClosed, state.broadcastId], [true, lockBroadcast]);
      const locked = await widget(t, 'DELETE', `/comments/${tenantId}/${posted.body.comment._id}`, { broadcastId: broadcast(), sso: user });
      assert.deepEqual([locked.status, locked.body.code], [423, 'locked']);
      assert.equal((await widget(t, 'POST', `/comments/${tenantId}/${posted.body.comment._id}/unlock`, { broadcastId: broadcast(), sso: admin })).status, 200);
      assert.equal((await widget(t, 'POST', `/comments/${tenantId}/${posted.body.comment._id}/unpin`, { broadcastId: broadcast(), sso: admin })).status, 200);
      const unpinned = await read(urlId, { direction: 'NF' });
      assert.deepEqual(unpinned.body.comments.map((x: any) => x._id), [simple.body.comment._id, posted.body.comment._id], 'unpinned, it goes back to its place');
      watcher.close();
    });

    test('blocked authors, flags, and the checks of blocked comments', async () => {
      const urlId = '/blocks';
      const troll = await post(urlId, commentData(urlId, 'Troll', { commenterName: 'Troll', commenterEmail: 'troll@example.com' }));
      const ghost = await post(urlId, commentData(urlId, 'Ghost', { commenterName: 'Ghost' }));
      const reader = await post(urlId, commentData(urlId, 'Reader', { commenterName: 'Rita' }));
      const session = reader.body.user.sessionId as string;
      const trollId = troll.body.comment._id as string;
      const blocked = await widget(t, 'POST', `/block-from-comment/${trollId}`, { tenantId, sessionId: session }, { commentIds: [trollId, ghost.body.comment._id, 'undefined'] });
      assert.equal(blocked.status, 200, JSON.stringify(blocked.body));
      assert.deepEqual(blocked.body.commentStatuses, { [trollId]: true, [ghost.body.comment._id]: false, undefined: false });
      // A guest without an email is blocked by its session.
      const ghostBlocked = await widget(t, 'POST', `/block-from-comment/${ghost.body.comment._id}`, { tenantId, sessionId: session }, { commentIds: [ghost.body.comment._id] });
      assert.deepEqual(ghostBlocked.body.commentStatuses, { [ghost.body.comment._id]: true });
      assert.equal((await widget(t, 'DELETE', `/block-from-comment/${ghost.body.comment._id}`, { tenantId, sessionId: session }, { commentIds: [] })).status, 200);
      // A comment the API stored with neither user, email nor session has no author to block.
      const nobody = await t.api<{ comment: { _id: string } }>('POST', '/api/v1/comments', { body: { commenterName: 'Nobody', comment: 'Hi', url: 'https://blog.example.com/blocks', urlId, locale: 'en_us' } });
      const anonymous = await widget(t, 'POST', `/block-from-comment/${nobody.body.comment._id}`, { tenantId, sessionId: session }, { commentIds: [] });
      assert.deepEqual([anonymous.status, anonymous.body.code], [400, 'cannot-block-anonymous']);
      const seen = await read(urlId, { sessionId: session });
      assert.equal(seen.body.comments.find((c: any) => c._id === trollId).isBlocked, true);
      assert.equal(seen.body.user.hasBlockedUsers, true);
      const check = await widget(t, 'GET', '/check-blocked-comments', { tenantId, sessionId: session, commentIds: `${trollId},undefined` });
      assert.deepEqual(check.body.commentStatuses, { [trollId]: true, undefined: false });
      const unblocked = await widget(t, 'DELETE', `/block-from-comment/${trollId}`, { tenantId, sessionId: session }, { commentIds: [trollId] });
      assert.deepEqual(unblocked.body.commentStatuses, { [trollId]: false });

      const flag = await widget(t, 'POST', `/flag-comment/${trollId}`, { tenantId, isFlagged: true, sessionId: session });
      assert.equal(flag.status, 200, JSON.stringify(flag.body));
      assert.equal((await read(urlId, { sessionId: session })).body.comments.find((c: any) => c._id === trollId).isFlagged, true);
      assert.equal((await widget(t, 'POST', `/flag-comment/${trollId}`, { tenantId, isFlagged: false, sessionId: session })).status, 200);
      assert.equal((await read(urlId, { sessionId: session })).body.comments.find((c: any) => c._id === trollId).isFlagged, false);
      const voters = await widget(t, 'GET', `/comments/${tenantId}/${trollId}/votes`, { dir: 1 });
      assert.deepEqual([voters.status, voters.body.voteUserNames], [200, []]);
    });

    test('a kept page view still checks the site and answers CORS only to it', async () => {
      const urlId = '/kept';
      assert.equal((await post(urlId, commentData(urlId, 'Kept'))).status, 200);
      for (let i = 0; i < 3; i++) {
        const r = await read(urlId);
        assert.equal(r.status, 200);
        assert.equal(r.headers.get('access-control-allow-origin'), 'http://localhost:3000');
        assert.equal(r.headers.get('access-control-allow-credentials'), 'true');
      }
      const evil = await widget(t, 'GET', `/comments/${tenantId}`, { urlId }, undefined, { origin: 'https://evil.example' });
      assert.deepEqual([evil.status, evil.body.code, evil.headers.get('access-control-allow-origin')], [403, 'domain-not-allowed', null]);
      const referred = await widget(t, 'GET', `/comments/${tenantId}`, { urlId }, undefined, { origin: '', referer: 'https://evil.example/page' });
      assert.equal(referred.status, 403);
      const withCookie = await widget(t, 'GET', `/comments/${tenantId}`, { urlId }, undefined, { cookie: 'fc_anon=AAAAAAAAAAAAAAAAAAAAAA' });
      assert.equal(withCookie.status, 200);
      assert.notEqual(withCookie.body.user, null, 'a session reader gets its own answer');
    });

    test('bad input gets a clear refusal and changes nothing', async () => {
      const urlId = '/bad';
      const tooBig = await post(urlId, commentData(urlId, 'x'.repeat(50_001)));
      assert.deepEqual([tooBig.status, tooBig.body.code], [400, 'comment-too-big']);
      const huge = await post(urlId, commentData(urlId, 'x'.repeat(2_000_000)));
      assert.deepEqual([huge.status, huge.body.code], [413, 'body-too-large']);
      const nameIsEmail = await post(urlId, commentData(urlId, 'Hi', { commenterName: 'me@example.com' }));
      assert.deepEqual([nameIsEmail.status, nameIsEmail.body.code], [400, 'invalid-name-is-email']);
      const empty = await post(urlId, commentData(urlId, '   '));
      assert.deepEqual([empty.status, empty.body.code], [400, 'empty-comment']);
      const unknownField = await post(urlId, { ...commentData(urlId, 'Hi'), votes: 99 });
      assert.equal(unknownField.status, 400);
      const badSession = await read(urlId, { sessionId: 'not a session' });
      assert.equal(badSession.status, 400);
      const wrongSite = await widget(t, 'GET', `/comments/${tenantId}`, { urlId }, undefined, { origin: 'https://evil.example' });
      assert.deepEqual([wrongSite.status, wrongSite.body.code], [403, 'domain-not-allowed'], 'a tenant without domains admits only local sites');
      assert.equal(wrongSite.headers.get('access-control-allow-origin'), null);
      const reply = await post(urlId, commentData(urlId, 'Orphan', { parentId: 'nope' }));
      assert.deepEqual([reply.status, reply.body.code], [400, 'invalid-parent-id']);
      assert.deepEqual((await read(urlId)).body.comments, []);
    });
  });
}
