/**
 * One reader, one identity on every public route: an anonymous session carried by `sessionId`
 * alone (no cookie ever sent) and a single sign-on user are each recognised as the same reader
 * when they post a comment, read the page, follow it, read their notifications, hear them on
 * the per-user live channel (with the `userIdWS` the page read handed out) and react to a feed
 * post. On every storage, with real websocket clients.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../fixtures/eventually.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { LiveClient, subUrl } from '../unit/live/fixtures.js';
import { commentData, secureSso, SITE, widget } from './public-comments-helpers.js';

type Notifications = { notifications: { fromCommentId: string | null; type: number }[] };

for (const storage of storages()) {
  describe(`one reader identity on ${storage}`, () => {
    let t: TestServer;
    let tenantId: string;
    let postId: string;
    before(async () => {
      t = await startTestServer(storage);
      tenantId = t.tenant.tenantId;
      const writer = await t.api('POST', '/api/v1/sso-users', { body: { id: 'writer', username: 'writer', email: 'writer@blog.example' } });
      assert.equal(writer.status, 200, JSON.stringify(writer.body));
      const made = await t.api<{ feedPost: { _id: string } }>('POST', '/api/v1/feed-posts', { body: { fromUserId: 'writer', title: 'A post to react to' } });
      assert.equal(made.status, 200, JSON.stringify(made.body));
      postId = made.body.feedPost._id;
    });
    after(async () => {
      await t?.destroy();
    });

    /** The per-user channel opened with the `userIdWS` of a page read. */
    const profileChannel = (userIdWS: string) => LiveClient.connect(subUrl(t, { tenantIdWS: '__internal_profiles', urlId: `__internal_profiles:${userIdWS}`, userIdWS }), { origin: SITE });
    const nextNotification = async (client: LiveClient) => {
      for (;;) {
        const event = await client.next();
        if (event.type === 'notification') return event['notification'] as { fromCommentId: string };
      }
    };
    const reactAndCheck = async (who: Record<string, string>, other: Record<string, string>) => {
      const react = await widget(t, 'POST', `/feed-posts/${tenantId}/react/${postId}`, who, { reactType: 'l' });
      assert.equal(react.status, 200, JSON.stringify(react.body));
      assert.equal(react.headers.get('set-cookie'), null, 'the reader continues its session: no new one');
      const mine = await widget(t, 'GET', `/feed-posts/${tenantId}/user-reacts`, { postIds: postId, ...who });
      assert.deepEqual(mine.body['reacts'], { [postId]: { l: true } });
      const feed = await widget(t, 'GET', `/feed-posts/${tenantId}`, who);
      assert.deepEqual(feed.body['myReacts'], { [postId]: { l: true } });
      const theirs = await widget(t, 'GET', `/feed-posts/${tenantId}/user-reacts`, { postIds: postId, ...other });
      assert.deepEqual(theirs.body['reacts'], {}, "another reader does not see this reader's reaction");
    };

    test('an anonymous session carried by sessionId alone is one reader for comments, notifications, the user channel and feed reactions', async () => {
      const urlId = '/identity/anonymous';
      const posted = await widget(t, 'POST', `/comments/${tenantId}`, { urlId }, commentData(urlId, 'my first comment'));
      assert.equal(posted.status, 200, JSON.stringify(posted.body));
      const sessionId = posted.body['user']['sessionId'] as string;
      const anonId = posted.body['user']['id'] as string;
      assert.ok(sessionId && anonId && anonId !== sessionId, 'a session, and a public id that is not the credential');

      const read = await widget(t, 'GET', `/comments/${tenantId}`, { urlId, sessionId });
      assert.equal(read.body['user']['id'], anonId, 'the page read knows the session');
      assert.equal(read.body['comments'][0]['isByMe'] ?? true, true);
      const followed = await widget(t, 'POST', '/user-notifications/set-subscription-state/subscribe', { tenantId, urlId, url: `https://blog.example.com${urlId}`, pageTitle: 'A page', sessionId });
      assert.equal(followed.status, 200, JSON.stringify(followed.body));
      assert.equal(followed.headers.get('set-cookie'), null, 'following continues the session');
      const profile = await profileChannel(read.body['userIdWS'] as string);

      const other = await widget(t, 'POST', `/comments/${tenantId}`, { urlId }, commentData(urlId, 'a new root by someone else', { commenterName: 'Other' }));
      assert.equal(other.status, 200, JSON.stringify(other.body));
      const otherId = other.body['comment']['_id'] as string;
      const otherSession = other.body['user']['sessionId'] as string;
      assert.notEqual(otherSession, sessionId);

      assert.equal((await nextNotification(profile)).fromCommentId, otherId, 'the per-user channel of the page read carries the notification');
      profile.close();
      await profile.closed;
      let listed: Notifications = { notifications: [] };
      await eventually(async () => {
        listed = (await widget<Notifications>(t, 'GET', '/user-notifications', { tenantId, sessionId })).body;
        return listed.notifications.length > 0;
      }, 60_000);
      assert.deepEqual(listed.notifications.map((n) => n.fromCommentId), [otherId]);
      const counted = await widget(t, 'GET', `/comments/${tenantId}`, { urlId, sessionId, includeNotificationCount: true });
      assert.equal(counted.body['notificationCount'], 1);
      const theirs = await widget<Notifications>(t, 'GET', '/user-notifications', { tenantId, sessionId: otherSession });
      assert.deepEqual(theirs.body.notifications, [], 'the other reader has none');

      await reactAndCheck({ sessionId }, { sessionId: otherSession });
    });

    test('a single sign-on user is one reader for comments, notifications, the user channel and feed reactions', async () => {
      const urlId = '/identity/sso';
      const secret = t.tenant.apiSecret;
      const ann = () => secureSso(secret, { id: 'ann', email: 'ann@example.com', username: 'ann' });
      const bob = () => secureSso(secret, { id: 'bob', email: 'bob@example.com', username: 'bob' });
      const root = await widget(t, 'POST', `/comments/${tenantId}`, { urlId, sso: ann() }, commentData(urlId, 'a root by Ann'));
      assert.equal(root.status, 200, JSON.stringify(root.body));
      const read = await widget(t, 'GET', `/comments/${tenantId}`, { urlId, sso: ann() });
      assert.equal(read.body['user']['id'], root.body['user']['id']);
      const profile = await profileChannel(read.body['userIdWS'] as string);

      const reply = await widget(t, 'POST', `/comments/${tenantId}`, { urlId, sso: bob() }, commentData(urlId, 'a reply by Bob', { parentId: root.body['comment']['_id'] }));
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      const replyId = reply.body['comment']['_id'] as string;
      assert.equal((await nextNotification(profile)).fromCommentId, replyId);
      profile.close();
      await profile.closed;
      let listed: Notifications = { notifications: [] };
      await eventually(async () => {
        listed = (await widget<Notifications>(t, 'GET', '/user-notifications', { tenantId, sso: ann() })).body;
        return listed.notifications.length > 0;
      }, 60_000);
      assert.deepEqual(listed.notifications.map((n) => n.fromCommentId), [replyId]);

      await reactAndCheck({ sso: ann() }, { sso: bob() });
    });
  });
}
