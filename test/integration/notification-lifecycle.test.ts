/**
 * How notifications end: a year after they are made the sweeper removes them with their counts
 * and owed emails, and a deleted user's notifications, subscriptions and count go with it,
 * while the notifications it caused follow its comments (removed, or left without its name).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { NOTIFICATION_TTL_MS, NOTIFY_COLLECTIONS as C } from '../../actors/notify/notification-doc.js';
import { NotificationSweepKind } from '../../actors/notify/protocol.js';
import { clock } from '../../engine/clock.js';
import { eventually } from '../fixtures/eventually.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { comment, jobsDone } from './notify-helpers.js';
import { outcome } from './page-helpers.js';

interface Notification {
  _id: string;
  type: number;
  fromCommentId: string | null;
  fromUserName: string | null;
  fromUserId?: string | null;
}

for (const storage of storages()) {
  describe(`the end of notifications on ${storage}`, () => {
    let t: TestServer;
    let tenantId: string;
    let n = 0;
    const store = () => t.server.services.store;
    const notifications = async (userId: string) => {
      const r = await t.api<{ notifications: Notification[] }>('GET', '/api/v1/notifications', { query: { userId } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.notifications;
    };
    const unread = async (userId: string) => {
      const r = await t.api<{ data?: { count: number } }>('GET', `/api/v1/notification-count/${encodeURIComponent(userId)}`);
      return r.status === 404 ? 0 : r.body.data!.count;
    };
    /** An SSO user of the tenant, opted in to every email; answers its user id. */
    const ssoUser = async (): Promise<{ id: string; userId: string }> => {
      const id = `user-${++n}`;
      const r = await t.api('POST', '/api/v1/sso-users', { body: { id, username: id, email: `${id}@example.org`, optedInNotifications: true, optedInSubscriptionNotifications: true } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return { id, userId: `${tenantId}:${id}` };
    };
    const sweep = () => t.server.services.system.ask(NotificationSweepKind, '', 'sweep', null);

    before(async () => {
      t = await startTestServer(storage);
      tenantId = t.tenant.tenantId;
    });
    after(async () => {
      await t.destroy();
    });

    test('a year after they were made, the sweep removes notifications with their count and owed emails; newer ones stay', async () => {
      const ann = await ssoUser();
      const root = await comment(t, 'old', { commenterName: ann.id, userId: ann.userId, comment: 'Reply to me' });
      for (let i = 0; i < 3; i++) await comment(t, 'old', { commenterName: `r${i}`, comment: `reply ${i}`, parentId: root._id });
      await jobsDone(t);
      assert.equal(await unread(ann.userId), 3);
      assert.equal(await store().count(C.emails, { tenantId }), 3, 'the reply digest is owed');

      const restore = clock.set(() => Date.now() + NOTIFICATION_TTL_MS - 60_000);
      try {
        await sweep();
        assert.equal((await notifications(ann.userId)).length, 3, 'not a year yet');
        // A reply made now is a year younger than the others.
        await comment(t, 'old', { commenterName: 'late', comment: 'late reply', parentId: root._id });
        await jobsDone(t);
        assert.equal(await unread(ann.userId), 4);
        clock.set(() => Date.now() + NOTIFICATION_TTL_MS + 60_000);
        await sweep();
        await eventually(async () => (await notifications(ann.userId)).length === 1, 30_000);
        assert.equal(await unread(ann.userId), 1, 'the count lost the expired ones');
        assert.equal((await notifications(ann.userId))[0]!.fromUserName, 'late');
        clock.set(() => Date.now() + 2 * NOTIFICATION_TTL_MS + 60_000);
        await sweep();
        await eventually(async () => (await notifications(ann.userId)).length === 0, 30_000);
        assert.deepEqual(outcome(await t.api('GET', `/api/v1/notification-count/${encodeURIComponent(ann.userId)}`)), [404, 'not-found'], 'no count without unread notifications');
        assert.equal(await store().count(C.counts, { tenantId }), 0);
        assert.equal(await store().count(C.emails, { tenantId }), 0, 'owed emails went with them');
      } finally {
        restore();
      }
    });

    test("a deleted user's notifications, count, opt-outs and subscriptions go with it; replies to its remaining comments notify no one", async () => {
      const gone = await ssoUser();
      const other = await ssoUser();
      const sub = await t.api<{ subscription: { id: string } }>('POST', '/api/v1/subscriptions', { body: { urlId: 'watched', userId: gone.userId } });
      assert.equal(sub.status, 200);
      await t.api('POST', '/api/v1/subscriptions', { body: { urlId: 'watched', userId: other.userId } });
      const mine = await comment(t, 'mine', { commenterName: gone.id, userId: gone.userId, comment: 'Mine' });
      await comment(t, 'mine', { commenterName: 'x', comment: 'a reply', parentId: mine._id });
      await comment(t, 'watched', { commenterName: 'y', comment: 'news' });
      await jobsDone(t);
      const got = await notifications(gone.userId);
      assert.equal(got.length, 2);
      assert.equal((await t.api('PATCH', `/api/v1/notifications/${got[0]!._id}`, { body: { optedOut: true } })).status, 200);
      assert.equal(await unread(gone.userId), 2);

      assert.equal((await t.api('DELETE', `/api/v1/sso-users/${gone.id}`)).status, 200);
      assert.equal((await notifications(gone.userId)).length, 0);
      assert.equal(await unread(gone.userId), 0);
      const recipient = `u:${gone.userId}`;
      for (const collection of [C.notifications, C.counts, C.emails, C.optOuts, C.subscriptions]) assert.equal(await store().count(collection, { tenantId, recipient }), 0, collection);
      assert.deepEqual(outcome(await t.api('GET', `/api/v1/subscriptions/${sub.body.subscription.id}`)), [404, 'not-found']);
      assert.equal((await notifications(other.userId)).length, 1, 'other subscribers keep theirs');

      // Its comment stays (no deleteComments): a reply to it notifies no one, as it has no user now.
      await comment(t, 'mine', { commenterName: 'z', comment: 'too late', parentId: mine._id });
      await comment(t, 'watched', { commenterName: 'y', comment: 'more news' });
      await jobsDone(t);
      assert.equal((await notifications(gone.userId)).length, 0);
      assert.equal((await notifications(other.userId)).length, 2);
    });

    test("deleting a user with its comments removes the notifications they made, or only its name when they are anonymized", async () => {
      const ann = await ssoUser();
      const removed = await ssoUser();
      const anonymized = await ssoUser();
      const root = await comment(t, 'thread', { commenterName: ann.id, userId: ann.userId, comment: 'Root' });
      await comment(t, 'thread', { commenterName: removed.id, userId: removed.userId, comment: 'bye', parentId: root._id });
      await comment(t, 'thread', { commenterName: anonymized.id, userId: anonymized.userId, comment: 'anonymous soon', parentId: root._id });
      await jobsDone(t);
      assert.equal(await unread(ann.userId), 2);

      assert.equal((await t.api('DELETE', `/api/v1/sso-users/${removed.id}`, { query: { deleteComments: true } })).status, 200);
      const left = await notifications(ann.userId);
      assert.deepEqual(left.map((x) => x.fromUserName), [anonymized.id], 'the removed comment took its notification');
      assert.equal(await unread(ann.userId), 1, 'and its unread count');

      assert.equal((await t.api('DELETE', `/api/v1/sso-users/${anonymized.id}`, { query: { deleteComments: true, commentDeleteMode: 1 } })).status, 200);
      const [kept] = await notifications(ann.userId);
      assert.equal(kept!.fromUserName ?? null, null, 'the name is gone');
      assert.equal(kept!.fromUserId ?? null, null);
      assert.equal(await store().count(C.notifications, { tenantId, fromUserId: anonymized.userId }), 0);
    });
  });
}
