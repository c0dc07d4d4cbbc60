import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { NOTIFY_COLLECTIONS } from '../../actors/notify/notification-doc.js';
import type { ProvisionedTenant } from '../../actors/tenant/provision.js';
import { eventually } from '../fixtures/eventually.js';
import { assertWireShape } from '../fixtures/openapi.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { type Received, SmtpSink } from '../fixtures/smtp-sink.js';
import { type LiveClient, subscribe } from '../unit/live/fixtures.js';
import { apiAs, comment, jobsDone, nextEvent, nothingBefore } from './notify-helpers.js';
import { outcome } from './page-helpers.js';

interface Notification {
  _id: string;
  userId: string | null;
  type: number;
  relatedObjectId: string;
  fromCommentId: string | null;
  fromUserName: string | null;
  viewed: boolean;
  optedOut: boolean;
  sent: boolean;
  count?: number;
  urlId: string;
}

for (const storage of storages()) {
  describe(`notifications on ${storage}`, () => {
    let t: TestServer;
    let sink: SmtpSink;
    let other: ProvisionedTenant;
    let tenantId: string;
    // Real user records: a commenter (made by a comment's email), a tenant user and SSO users.
    let alice: string;
    let bob: string;
    let carol: string;
    let dan: string;
    let erin: string;
    const sockets: LiveClient[] = [];
    const listen = async (userId: string, urlId: string, tenant = tenantId) => {
      const client = await subscribe(t, tenant, urlId, userId);
      sockets.push(client);
      return client;
    };
    const notifications = async (query: Record<string, string | number | boolean>) => {
      const r = await t.api<{ notifications: Notification[] }>('GET', '/api/v1/notifications', { query });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assertWireShape('GetNotifications', r.body);
      return r.body.notifications;
    };
    const unread = async (userId: string) => {
      const r = await t.api<{ data?: { count: number } }>('GET', `/api/v1/notification-count/${encodeURIComponent(userId)}`);
      if (r.status === 404) return 0;
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assertWireShape('GetCachedNotificationCount', r.body);
      return r.body.data!.count;
    };
    const to = (address: string) => (r: Received) => r.rcptTo.includes(address);

    before(async () => {
      sink = await SmtpSink.start();
      t = await startTestServer(storage, { smtpUrl: sink.url });
      tenantId = t.tenant.tenantId;
      other = await t.addTenant();
      alice = (await comment(t, 'p0', { commenterName: 'alice', commenterEmail: 'alice@example.org', comment: 'Hi, I am Alice' }))['userId'] as string;
      const tenantUser = async (body: Record<string, unknown>) => {
        const r = await t.api<{ tenantUser: { id: string } }>('POST', '/api/v1/tenant-users', { body });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return r.body.tenantUser.id;
      };
      const ssoUser = async (body: Record<string, unknown>) => {
        const r = await t.api('POST', '/api/v1/sso-users', { body });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return `${tenantId}:${String(body['id'])}`;
      };
      bob = await tenantUser({ username: 'bob', email: `bob-${tenantId}@example.org`, optedInNotifications: true });
      erin = await tenantUser({ username: `erin-${tenantId}`, email: `erin-${tenantId}@example.org` });
      carol = await ssoUser({ id: 'carol', username: 'carolj', displayName: 'Carol Jones', email: 'carol@example.org', optedInNotifications: true, optedInSubscriptionNotifications: false });
      dan = await ssoUser({ id: 'dan', username: 'dan', email: 'dan@example.org', optedInSubscriptionNotifications: true });
    });
    after(async () => {
      for (const socket of sockets) socket.close();
      await t.destroy();
      await sink.close();
    });

    test('a reply notifies the parent author alone, live once durable; nobody else, and no other tenant, hears of it', async () => {
      const aliceWs = await listen(alice, 'p1');
      const bobWs = await listen(bob, 'p1');
      const otherWs = await listen(alice, 'p1', other.tenantId);
      const root = await comment(t, 'p1', { commenterName: 'alice', userId: alice, comment: 'Root' });
      const reply = await comment(t, 'p1', { commenterName: 'bob', userId: bob, comment: 'A reply', parentId: root._id });

      const event = await nextEvent(aliceWs);
      assert.equal(event['type'], 'notification');
      const pushed = event['notification'] as Record<string, unknown>;
      assert.equal(pushed['type'], 0);
      assert.equal(pushed['relatedObjectId'], root._id);
      assert.equal(pushed['fromCommentId'], reply._id);
      assert.equal(pushed['fromUserName'], 'bob');
      for (const field of ['userId', 'fromUserId', 'anonUserId', 'fromUserIds']) assert.equal(field in pushed, false, `${field} stays with the server`);
      const update = await nextEvent(aliceWs);
      assert.deepEqual([update['type'], update['changes']], ['notification-update', { count: 1 }]);

      await jobsDone(t);
      await nothingBefore(t, [aliceWs, bobWs], 'p1');
      await nothingBefore(t, [otherWs], 'p1', other);

      const listed = await notifications({ userId: alice });
      assert.equal(listed.length, 1);
      assert.equal(listed[0]!._id, pushed['_id']);
      assert.equal(listed[0]!.userId, alice);
      assert.equal(await unread(alice), 1);
      assert.equal(await unread(bob), 0, 'the replier is not notified: 404');
      assert.deepEqual(outcome(await t.api('GET', `/api/v1/notification-count/${bob}`)), [404, 'not-found']);
      assert.deepEqual(outcome(await apiAs(t, other, 'GET', `/api/v1/notification-count/${alice}`)), [404, 'not-found']);
      assert.equal((await apiAs<{ notifications: unknown[] }>(t, other, 'GET', '/api/v1/notifications')).body.notifications.length, 0);
      // A reply to your own comment notifies no one.
      await comment(t, 'p1', { commenterName: 'alice', userId: alice, comment: 'Me again', parentId: root._id });
      await jobsDone(t);
      assert.equal(await unread(alice), 1);
    });

    test('mentions fill the comment and notify each mentioned user of the tenant once (by display name or username), by email too', async () => {
      const carolWs = await listen(carol, 'p2');
      const bobWs = await listen(bob, 'p2');
      const aliceWs = await listen(alice, 'p2');
      const made = await comment(t, 'p2', { commenterName: 'dave', comment: 'Hi @Carol Jones and @bob (and @bob again), mail me at dave@example.org or @nobody.' });
      assert.deepEqual(
        (made['mentions'] as { id: string; tag: string; type: string }[]).map((m) => [m.id, m.tag, m.type]),
        [
          [carol, '@Carol Jones', 'sso'],
          [bob, '@bob', 'user'],
        ],
      );
      for (const [client, id] of [[carolWs, carol], [bobWs, bob]] as const) {
        const event = await nextEvent(client);
        assert.equal(event['type'], 'notification', `for ${id}`);
        assert.equal((event['notification'] as { type: number }).type, 7);
        assert.equal((await nextEvent(client))['type'], 'notification-update');
      }
      await jobsDone(t);
      await nothingBefore(t, [carolWs, bobWs, aliceWs], 'p2');
      const toCarol = await sink.waitFor(to('carol@example.org'), "Carol's mention email");
      assert.equal(toCarol.mail.subject, 'dave mentioned you');
      assert.match(String(toCarol.mail.html), /Hey Carol Jones,/);
      assert.match(String(toCarol.mail.html), /fast-comments-jt=/);
      await sink.waitFor(to(`bob-${tenantId}@example.org`), "Bob's mention email");
      await eventually(async () => (await notifications({ userId: bob, type: 7 }))[0]?.sent === true, 30_000);
      assert.equal((await notifications({ userId: alice, type: 7 })).length, 0);
    });

    test('a new top-level comment notifies every subscriber of the page but its author; replies do not; emails follow the opt-ins', async () => {
      const subscribe3 = (body: Record<string, unknown>) => t.api<{ subscription: { id: string } }>('POST', '/api/v1/subscriptions', { body: { urlId: 'p3', url: 'https://example.com/p3', pageTitle: 'Page three', ...body } });
      for (const userId of [alice, bob, carol, dan, erin]) {
        const r = await subscribe3({ userId });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assertWireShape('CreateSubscription', r.body);
      }
      assert.deepEqual(outcome(await subscribe3({ userId: bob })), [409, 'subscription-exists']);
      assert.deepEqual(outcome(await subscribe3({})), [400, 'missing-user-id']);
      assert.deepEqual(outcome(await t.api('POST', '/api/v1/subscriptions', { body: { userId: bob } })), [400, 'missing-url-id']);
      const listed = await t.api<{ subscriptions: { id: string; userId: string }[] }>('GET', '/api/v1/subscriptions', { query: { userId: bob } });
      assertWireShape('GetSubscriptions', listed.body);
      assert.deepEqual(listed.body.subscriptions.map((s) => s.userId), [bob]);

      const aliceWs = await listen(alice, 'p3');
      const bobWs = await listen(bob, 'p3');
      const carolWs = await listen(carol, 'p3');
      const danWs = await listen(dan, 'p3');
      const erinWs = await listen(erin, 'p3');
      const root = await comment(t, 'p3', { commenterName: 'alice', userId: alice, comment: 'News on page three', pageTitle: 'Page three' });
      for (const client of [bobWs, carolWs, danWs, erinWs]) {
        const event = await nextEvent(client);
        assert.equal((event['notification'] as { type: number; fromCommentId: string }).type, 3);
        assert.equal((event['notification'] as { fromCommentId: string }).fromCommentId, root._id);
        await nextEvent(client);
      }
      await jobsDone(t);
      // A reply notifies the root's author (a reply), not the page's subscribers.
      await comment(t, 'p3', { commenterName: 'dave', comment: 'a reply', parentId: root._id });
      assert.equal((await nextEvent(aliceWs))['type'], 'notification');
      assert.equal((await nextEvent(aliceWs))['type'], 'notification-update');
      await jobsDone(t);
      await nothingBefore(t, [aliceWs, bobWs, carolWs, danWs, erinWs], 'p3');
      assert.equal((await notifications({ type: 3 })).length, 4);

      const mail = await sink.waitFor((r) => to(`bob-${tenantId}@example.org`)(r) && r.mail.subject === 'New comment on Page three', "Bob's subscription email");
      assert.match(String(mail.mail.html), /News on page three/);
      // Dan, a single sign-on user, opted in to subscription emails (optedInSubscriptionNotifications).
      await sink.waitFor((r) => to('dan@example.org')(r) && r.mail.subject === 'New comment on Page three', "Dan's subscription email");
      // Carol (SSO) opted in to notifications but not to subscription emails; Erin, a tenant user,
      // has not opted in to notifications: their notifications stay unsent, nothing owed.
      for (const userId of [carol, erin]) {
        const [got] = await notifications({ userId, type: 3 });
        assert.equal(got!.sent, false);
        assert.equal(await t.server.services.store.count(NOTIFY_COLLECTIONS.emails, { recipient: `u:${userId}` }), 0);
      }
      await eventually(async () => (await notifications({ userId: dan, type: 3 }))[0]?.sent === true, 30_000);
    });

    test('subscriptions: read one, change its frequency, delete it; other tenants and other users see none of it', async () => {
      const made = await t.api<{ subscription: { id: string; notificationFrequency?: number } }>('POST', '/api/v1/subscriptions', {
        body: { urlId: 'p4', userId: alice, notificationFrequency: 1 },
      });
      assert.equal(made.status, 200, JSON.stringify(made.body));
      const id = made.body.subscription.id;
      const got = await t.api<{ subscription: { id: string } }>('GET', `/api/v1/subscriptions/${id}`);
      assert.equal(got.body.subscription.id, id);
      assert.deepEqual(outcome(await apiAs(t, other, 'GET', `/api/v1/subscriptions/${id}`)), [404, 'not-found']);
      assert.deepEqual(outcome(await t.api('GET', `/api/v1/subscriptions/${id}`, { query: { userId: bob } })), [404, 'not-found']);
      const patched = await t.api<{ subscription: { notificationFrequency?: number } }>('PATCH', `/api/v1/subscriptions/${id}`, { body: { notificationFrequency: 2 } });
      assertWireShape('UpdateSubscription', patched.body);
      assert.equal(patched.body.subscription.notificationFrequency, 2);
      assert.deepEqual(outcome(await t.api('PATCH', `/api/v1/subscriptions/${id}`, { body: { urlId: 'elsewhere' } })), [400, 'unexpected-param']);
      assert.deepEqual(outcome(await t.api('PATCH', `/api/v1/subscriptions/${id}`, { body: { notificationFrequency: 7 } })), [400, 'invalid-param']);
      assert.deepEqual(outcome(await apiAs(t, other, 'DELETE', `/api/v1/subscriptions/${id}`)), [404, 'not-found']);
      const deleted = await t.api('DELETE', `/api/v1/subscriptions/${id}`);
      assertWireShape('DeleteSubscription', deleted.body);
      assert.deepEqual(outcome(await t.api('GET', `/api/v1/subscriptions/${id}`)), [404, 'not-found']);
      assert.equal((await t.api('POST', '/api/v1/subscriptions', { body: { urlId: 'p4', userId: alice } })).status, 200, 'subscribing again after deleting');
    });

    test('PATCH changes only viewed and optedOut; the count follows; DELETE clears it live; a later GET is 404', async () => {
      const [reply] = await notifications({ userId: alice, type: 0 });
      assert.ok(reply);
      const aliceWs = await listen(alice, 'p5');
      const patch = (body: unknown, query: Record<string, string> = {}) => t.api('PATCH', `/api/v1/notifications/${reply._id}`, { body, query });
      for (const [body, code] of [
        [{ viewed: true, type: 3 }, 'unexpected-param'],
        [{ userId: bob }, 'unexpected-param'],
        [{ viewed: 'yes' }, 'invalid-param'],
        [{}, 'invalid-param'],
      ] as const) {
        assert.deepEqual(outcome(await patch(body)), [400, code], JSON.stringify(body));
      }
      assert.deepEqual(outcome(await patch({ viewed: true }, { userId: bob })), [404, 'not-found']);
      assert.deepEqual(outcome(await apiAs(t, other, 'PATCH', `/api/v1/notifications/${reply._id}`, { body: { viewed: true } })), [404, 'not-found']);
      assert.deepEqual(outcome(await t.api('PATCH', '/api/v1/notifications/no-such-id', { body: { viewed: true } })), [404, 'not-found']);
      const before = await unread(alice);
      assert.equal((await notifications({ userId: alice, type: 0 }))[0]!.viewed, false, 'refused changes changed nothing');

      const ok = await patch({ viewed: true });
      assertWireShape('UpdateNotification', ok.body);
      assert.equal(await unread(alice), before - 1);
      const seen = await nextEvent(aliceWs);
      assert.equal(seen['type'], 'notification-update');
      assert.equal((seen['notification'] as { viewed: boolean }).viewed, true);
      assert.deepEqual(seen['changes'], { count: before - 1 });
      assert.equal((await patch({ viewed: false })).status, 200);
      assert.equal(await unread(alice), before);
      assert.equal((await nextEvent(aliceWs))['type'], 'notification-update');

      const cleared = await t.api('DELETE', `/api/v1/notification-count/${alice}`);
      assert.equal(cleared.status, 200);
      assertWireShape('DeleteNotificationCount', cleared.body);
      assert.deepEqual((await nextEvent(aliceWs))['changes'], { count: 0 }, 'the bell clears live');
      assert.deepEqual(outcome(await t.api('GET', `/api/v1/notification-count/${alice}`)), [404, 'not-found']);
      assert.equal((await t.api('DELETE', `/api/v1/notification-count/${alice}`)).status, 200, 'clearing twice is harmless');
      assert.equal((await notifications({ userId: alice, viewed: false })).length > 0, true, 'the notifications stay unread');
      const count = await t.api<{ count: number }>('GET', '/api/v1/notifications/count', { query: { userId: alice, viewed: false } });
      assertWireShape('GetNotificationCount', count.body);
      assert.equal(count.body.count, (await notifications({ userId: alice, viewed: false })).length);

      // Opting out of a notification stops those about the same object (here: replies to that comment).
      assert.equal((await patch({ optedOut: true })).status, 200);
      assert.equal((await notifications({ userId: alice, type: 0 }))[0]!.optedOut, true);
      await comment(t, reply.urlId, { commenterName: 'bob', userId: bob, comment: 'Another reply', parentId: reply.relatedObjectId });
      await jobsDone(t);
      assert.equal((await notifications({ userId: alice, type: 0 })).filter((n) => n.relatedObjectId === reply.relatedObjectId).length, 1);
      assert.equal((await patch({ optedOut: false })).status, 200);
      const typeZero = (await notifications({ userId: alice, type: 0 })).length;
      await comment(t, reply.urlId, { commenterName: 'bob', userId: bob, comment: 'Yet another reply', parentId: reply.relatedObjectId });
      await jobsDone(t);
      assert.equal((await notifications({ userId: alice, type: 0 })).length, typeZero + 1);
    });

    test("up-votes gather into one notification per comment for its author; down-votes, own votes and other users' comments do not", async () => {
      const root = await comment(t, 'p6', { commenterName: 'bob', userId: bob, comment: 'Vote for me' });
      const vote = (query: Record<string, string>) => t.api('POST', '/api/v1/votes', { query: { commentId: root._id, ...query } });
      assert.equal((await vote({ direction: 'up', userId: carol })).status, 200);
      await eventually(async () => (await notifications({ userId: bob, type: 2 })).length === 1, 30_000);
      assert.equal((await vote({ direction: 'up', userId: alice })).status, 200);
      assert.equal((await vote({ direction: 'down', anonUserId: 'anon-1' })).status, 200);
      assert.equal((await vote({ direction: 'up', userId: bob })).status, 200);
      await eventually(async () => (await notifications({ userId: bob, type: 2 }))[0]?.count === 2, 30_000);
      const [voted] = await notifications({ userId: bob, type: 2 });
      assert.equal(voted!.relatedObjectId, root._id);
      assert.equal(voted!.fromUserName, 'alice');
      assert.equal((await notifications({ type: 2 })).length, 1);
    });

    test('lists: newest first, at most 30, filtered by user, page, source comment, viewed and type; bad filters are 400', async () => {
      const all = await notifications({});
      assert.ok(all.length >= 5);
      const dates = all.map((n) => (n as unknown as { createdAt: string }).createdAt);
      assert.deepEqual(dates, [...dates].sort().reverse());
      const onPage = await notifications({ urlId: 'p3' });
      assert.ok(onPage.length >= 3 && onPage.every((n) => n.urlId === 'p3'));
      const source = all.find((n) => n.fromCommentId !== null)!.fromCommentId!;
      const fromSource = await notifications({ fromCommentId: source });
      assert.ok(fromSource.length > 0 && fromSource.every((n) => n.fromCommentId === source));
      assert.equal((await notifications({ skip: all.length })).length, 0);
      assert.deepEqual(outcome(await t.api('GET', '/api/v1/notifications', { query: { type: 'reply' } })), [400, 'invalid-param']);
      assert.deepEqual(outcome(await t.api('GET', '/api/v1/notifications', { query: { type: 11 } })), [400, 'invalid-param']);
      assert.deepEqual(outcome(await t.api('GET', '/api/v1/notifications', { query: { limit: 5 } })), [400, 'unexpected-param']);

      await t.api('POST', '/api/v1/subscriptions', { body: { urlId: 'p7', userId: bob } });
      for (let i = 0; i < 32; i++) await t.api('POST', '/api/v1/subscriptions', { body: { urlId: 'p7', anonUserId: `anon-${i}` } });
      await comment(t, 'p7', { commenterName: 'eve', comment: 'Busy page' });
      await jobsDone(t);
      assert.equal((await notifications({ type: 3, urlId: 'p7' })).length, 30, 'a page holds 30');
      const counted = await t.api<{ count: number }>('GET', '/api/v1/notifications/count', { query: { type: 3, urlId: 'p7' } });
      assert.equal(counted.body.count, 33, 'anonymous subscribers are notified too');
    });
  });
}
