/**
 * The reader's account through the public routes: notifications (list, paging, counts, read
 * and unread, thread opt-out, reset), page subscriptions, the per-user live channel, the
 * activity feed, user search, logout, the public page list and the per-user catch-up log; on
 * every storage, with real websocket clients. Hostile callers (another reader, another
 * tenant, forged single sign-on) get a clear 4xx and change nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../fixtures/eventually.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { LiveClient, Refused, subUrl } from '../unit/live/fixtures.js';
import { allowSite, commentAs, ok, pub, secureSso, SITE, ssoUserOf } from './reader-helpers.js';

type Listed = { notifications: { _id: string; viewed: string; type: number; fromCommentId: string | null; relatedObjectId: string; optedOut: boolean }[]; hasMore: boolean; isSubscribed: boolean };

for (const storage of storages()) {
  describe(`the reader's account on ${storage}`, () => {
    let t: TestServer;
    let tenantId: string;
    let ann: string;
    let bob: string;
    let annSso: string;
    let bobSso: string;
    const urlId = '/reader/thread';
    before(async () => {
      t = await startTestServer(storage);
      tenantId = t.tenant.tenantId;
      await allowSite(t);
      ann = await ssoUserOf(t, 'ann', { displayName: 'Ann Reader' });
      bob = await ssoUserOf(t, 'bob');
      annSso = secureSso(t, { id: 'ann', username: 'ann', email: 'ann@readers.example' });
      bobSso = secureSso(t, { id: 'bob', username: 'bob', email: 'bob@readers.example' });
    });
    after(async () => {
      await t?.destroy();
    });

    const list = async (sso: string, query: Record<string, string | number | boolean> = {}) => ok(await pub(t, 'GET', '/user-notifications', { query: { tenantId, sso, ...query } }), 'list') as unknown as Listed;
    const count = async (sso: string) => (ok(await pub(t, 'GET', '/user-notifications/get-count', { query: { tenantId, sso } }), 'count') as { count: number }).count;

    test("a reply notifies its parent's author on the per-user channel and the page channel, and lands in the author's list", async () => {
      const root = await commentAs(t, ann, urlId, 'a root by Ann');
      const ids = t.server.services.liveIds;
      const userIdWS = ids.userIdWS(tenantId, ann);
      const profile = await LiveClient.connect(subUrl(t, { tenantIdWS: '__internal_profiles', urlId: `__internal_profiles:${userIdWS}`, userIdWS }), { origin: SITE });
      const page = await LiveClient.connect(subUrl(t, { tenantIdWS: ids.tenantIdWS(tenantId), urlId: ids.urlIdWS(tenantId, urlId), userIdWS }), { origin: SITE });
      const reply = await commentAs(t, bob, urlId, 'a reply by Bob', root);
      for (const [name, client] of [['per-user', profile], ['page', page]] as const) {
        let event = await client.next();
        // The page channel also carries the new comment itself.
        while (event.type !== 'notification') event = await client.next();
        const notification = event['notification'] as Record<string, unknown>;
        assert.equal(notification['fromCommentId'], reply, `${name} channel`);
        assert.equal(notification['type'], 0);
        assert.equal(notification['userId'], undefined, 'no recipient id on the wire');
      }
      profile.close();
      page.close();
      // Forged or mismatched ids open no per-user channel.
      const forged = `${userIdWS.slice(0, -4)}AAAA`;
      for (const bad of [
        { tenantIdWS: '__internal_profiles', urlId: `__internal_profiles:${forged}`, userIdWS: forged },
        { tenantIdWS: '__internal_profiles', urlId: `__internal_profiles:${ids.userIdWS(tenantId, bob)}`, userIdWS },
      ]) {
        await assert.rejects(LiveClient.connect(subUrl(t, bad), { origin: SITE }), (err: unknown) => err instanceof Refused && err.status === 403 && err.body['code'] === 'invalid-live-id');
      }
      const listed = await list(annSso, { urlId });
      assert.equal(listed.notifications.length, 1);
      assert.equal(listed.notifications[0]!.fromCommentId, reply);
      assert.equal(listed.notifications[0]!.viewed, '', 'unread: an empty (falsy) string');
      assert.equal(listed.isSubscribed, false);
      assert.equal(await count(annSso), 1);
      // Bob has none: a reader sees only their own.
      assert.deepEqual((await list(bobSso)).notifications, []);
    });

    test('paging with afterId, unreadOnly, read and unread, thread opt-out, reset and reset-count', async () => {
      const root = await commentAs(t, ann, '/reader/paging', 'another root');
      for (const n of [1, 2, 3]) await commentAs(t, bob, '/reader/paging', `reply ${n}`, root);
      await eventually(async () => (await list(annSso)).notifications.length === 4, 60_000);
      const first = await list(annSso, { pageSize: 2 });
      assert.equal(first.hasMore, true);
      const second = await list(annSso, { pageSize: 2, afterId: first.notifications[1]!._id });
      assert.equal(second.hasMore, false);
      const all = [...first.notifications, ...second.notifications].map((n) => n._id);
      assert.equal(new Set(all).size, 4, 'pages neither repeat nor skip');

      const target = first.notifications[0]!;
      const mark = (id: string, status: string, sso = annSso) => pub(t, 'POST', `/user-notifications/${id}/mark/${status}`, { query: { tenantId, sso } });
      assert.deepEqual(ok(await mark(target._id, 'read'), 'read'), { status: 'success', matchedCount: 1, modifiedCount: 1 });
      assert.deepEqual(ok(await mark(target._id, 'read'), 'read again'), { status: 'success', matchedCount: 1, modifiedCount: 0 });
      assert.equal(await count(annSso), 3);
      assert.equal((await list(annSso, { unreadOnly: true })).notifications.length, 3);
      ok(await mark(target._id, 'unread'), 'unread');
      assert.equal(await count(annSso), 4);

      // Another reader, a forged payload, another tenant: refused, nothing changes.
      assert.equal((await mark(target._id, 'read', bobSso)).status, 404);
      const forged = secureSso(t, { id: 'ann', username: 'ann' }, 'not-the-secret');
      assert.equal((await mark(target._id, 'read', forged)).body['code'], 'invalid-sso');
      const other = await t.addTenant();
      const foreign = await t.api('POST', `/user-notifications/${target._id}/mark/read`, { auth: 'none', query: { tenantId: other.tenantId, sso: annSso } });
      assert.ok(foreign.status === 401 || foreign.status === 404, JSON.stringify(foreign.body));
      assert.equal((await mark(target._id, 'sideways')).status, 400);
      assert.equal(await count(annSso), 4);

      const opt = (state: string, commentId: string) => pub(t, 'POST', `/user-notifications/${target._id}/mark-opted/${state}`, { query: { tenantId, sso: annSso, commentId } });
      assert.equal((await opt('out', 'some-other-comment')).status, 404);
      assert.equal(ok(await opt('out', target.relatedObjectId), 'opt out')['modifiedCount'], 1);
      assert.equal((await list(annSso)).notifications.find((n) => n._id === target._id)!.optedOut, true);
      ok(await opt('in', target.relatedObjectId), 'opt in');

      ok(await pub(t, 'POST', '/user-notifications/reset', { query: { tenantId, sso: annSso } }), 'reset');
      assert.equal(await count(annSso), 0);
      assert.ok((await list(annSso)).notifications.every((n) => n.viewed === 'true'));
      ok(await mark(target._id, 'unread'), 'unread again');
      assert.equal(await count(annSso), 1);
      ok(await pub(t, 'POST', '/user-notifications/reset-count', { query: { tenantId, sso: annSso } }), 'reset the count');
      assert.equal(await count(annSso), 0);
    });

    test('page subscriptions: an anonymous reader gets a session to follow a page, by cookie or sessionId', async () => {
      const page = '/reader/followed';
      const query = { tenantId, urlId: page, url: `${SITE}${page}`, pageTitle: 'Followed' };
      const first = await pub(t, 'POST', '/user-notifications/set-subscription-state/subscribe', { query });
      assert.deepEqual(first.body, { status: 'success', matchedCount: 1, modifiedCount: 1 });
      const cookie = /fc_anon=([A-Za-z0-9_-]{22})/.exec(first.headers.get('set-cookie') ?? '')?.[1];
      assert.ok(cookie, 'a session was started');
      const asCookie = { cookie: `fc_anon=${cookie}` };
      const state = async (headers: Record<string, string>, extra: Record<string, string> = {}) =>
        (ok(await pub(t, 'GET', '/user-notifications', { query: { tenantId, urlId: page, ...extra }, headers }), 'state') as unknown as Listed).isSubscribed;
      assert.equal(await state(asCookie), true);
      assert.equal(await state({}, { sessionId: cookie }), true, 'the sessionId stands for the cookie');
      assert.equal(await state({}), false, 'a reader without a session follows nothing');
      assert.equal(ok(await pub(t, 'POST', '/user-notifications/set-subscription-state/subscribe', { query, headers: asCookie }), 'again')['modifiedCount'], 0);
      ok(await pub(t, 'POST', '/user-notifications/set-subscription-state/unsubscribe', { query: { ...query, sessionId: cookie } }), 'unsubscribe');
      assert.equal(await state(asCookie), false);
      assert.equal((await pub(t, 'POST', '/user-notifications/set-subscription-state/subscribe', { query: { ...query, sessionId: 'not a session' } })).status, 400);
      // A signed-in reader's subscription is its user's.
      ok(await pub(t, 'POST', '/user-notifications/set-subscription-state/subscribe', { query: { ...query, sso: bobSso } }), 'bob follows');
      assert.equal((await list(bobSso, { urlId: page })).isSubscribed, true);
    });

    test('the activity feed shows public profiles to anyone and private ones to their owner only', async () => {
      const pat = await ssoUserOf(t, 'pat', { isProfileActivityPrivate: false });
      await commentAs(t, pat, '/reader/activity', 'Pat says hello');
      const feed = ok(await pub(t, 'GET', '/comments-for-user', { query: { userId: pat } }), 'public feed') as { comments: Record<string, unknown>[] };
      assert.equal(feed.comments.length, 1);
      assert.equal(feed.comments[0]!['commenterEmail'], undefined);
      assert.equal((await pub(t, 'GET', '/comments-for-user', { query: { userId: ann } })).body['code'], 'profile-activity-private');
      const own = ok(await pub(t, 'GET', '/comments-for-user', { query: { userId: ann, sso: annSso } }), 'own feed') as { comments: unknown[] };
      assert.ok(own.comments.length >= 2);
      assert.equal((await pub(t, 'GET', '/comments-for-user', { query: { userId: 'no-tenant-in-it' } })).body['code'], 'missing-tenant-id');
    });

    test('user search finds the commenters of the page and public users of the site', async () => {
      await ssoUserOf(t, 'annika', { isProfileActivityPrivate: false });
      await ssoUserOf(t, 'anselm');
      const found = ok(await pub(t, 'GET', `/user-search/${tenantId}`, { query: { urlId, usernameStartsWith: 'an' } }), 'search') as { users: { id: string; name: string; type: string }[] };
      const names = found.users.map((u) => u.name).sort();
      assert.deepEqual(names, ['ann', 'annika'], 'ann commented here; annika is public; anselm is private and elsewhere');
      assert.ok(found.users.every((u) => u.type === 'sso'));
      assert.equal((await pub(t, 'GET', `/user-search/${tenantId}`, { query: {} })).body['code'], 'missing-url-id');
    });

    test('logout ends the cookie session', async () => {
      const r = await t.api('PUT', '/auth/logout', { auth: 'none', headers: { origin: SITE, cookie: 'fc_anon=AAAAAAAAAAAAAAAAAAAAAA' } });
      assert.equal(r.status, 200);
      assert.match(r.headers.get('set-cookie') ?? '', /^fc_anon=; Path=\/; Max-Age=0; HttpOnly/);
    });

    test('the public page list shows titles, links and counts, never pages restricted to groups', async () => {
      ok(await t.api('POST', '/api/v1/pages', { body: { urlId: '/reader/members', url: `${SITE}/members`, title: 'Members only', accessibleByGroupIds: ['g1'] } }), 'restricted page');
      const listed = ok(await pub(t, 'GET', `/pages/${tenantId}`, { query: { sortBy: 'commentCount', limit: 100 } }), 'pages') as { pages: Record<string, unknown>[]; nextCursor: string | null };
      const urlIds = listed.pages.map((p) => p['urlId']);
      assert.ok(urlIds.includes(urlId) && !urlIds.includes('/reader/members'), JSON.stringify(urlIds));
      assert.deepEqual(Object.keys(listed.pages[0]!).sort(), ['commentCount', 'title', 'updatedAt', 'url', 'urlId']);
      const counts = listed.pages.map((p) => p['commentCount'] as number);
      assert.deepEqual(counts, [...counts].sort((a, b) => b - a));
      const paged = ok(await pub(t, 'GET', `/pages/${tenantId}`, { query: { limit: 1, q: 'paging' } }), 'search') as { pages: { urlId: string }[]; nextCursor: string | null };
      assert.deepEqual([paged.pages.map((p) => p.urlId), paged.nextCursor], [['/reader/paging'], null]);
      assert.equal((await pub(t, 'GET', '/pages/no-such-tenant')).status, 401);
    });

    test("the per-user catch-up log answers a reader's own notifications, and only with a userIdWS of the tenant", async () => {
      const userIdWS = t.server.services.liveIds.userIdWS(tenantId, ann);
      const log = ok(await pub(t, 'GET', `/event-log/global/${tenantId}`, { query: { urlId: `__internal_profiles:${userIdWS}`, userIdWS, startTime: 0 } }), 'log') as { events: { data: string }[] };
      assert.equal(log.events.length, 4);
      for (const entry of log.events) assert.equal((JSON.parse(entry.data) as { type: string }).type, 'notification');
      // The JavaScript client's form: the per-user channel's own name in place of the tenant, with a trailing slash.
      const sdk = ok(await pub(t, 'GET', '/event-log/__internal_profiles/', { query: { urlId: `__internal_profiles:${userIdWS}`, userIdWS, startTime: 0 } }), 'sdk log') as { events: { data: string }[] };
      assert.deepEqual(sdk.events, log.events);
      const elsewhere = await t.api('GET', '/event-log/__internal_profiles/', { auth: 'none', headers: { origin: 'https://evil.example' }, query: { urlId: 'x', userIdWS, startTime: 0 } });
      assert.deepEqual([elsewhere.status, elsewhere.body['code']], [403, 'domain-not-allowed']);
      const other = await t.addTenant();
      const foreign = t.server.services.liveIds.userIdWS(other.tenantId, ann);
      assert.equal((await pub(t, 'GET', `/event-log/global/${tenantId}`, { query: { urlId: 'x', userIdWS: foreign, startTime: 0 } })).body['code'], 'invalid-live-id');
    });
  });
}

describe('floods of sessions and requests', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer('lmdb', { anonSessionsPerHour: 4, publicReadRate: 1, publicReadBurst: 12 });
    await allowSite(t);
  });
  after(async () => {
    await t?.destroy();
  });

  test('a client starting sessions faster than its budget gets 429 and nothing is stored; so does one reading too fast', async () => {
    const tenantId = t.tenant.tenantId;
    const subscribe = (urlId: string) => pub(t, 'POST', '/user-notifications/set-subscription-state/subscribe', { query: { tenantId, urlId, url: '', pageTitle: '' } });
    assert.equal((await subscribe('/flood/0')).status, 200);
    const refused = await subscribe('/flood/1');
    assert.deepEqual([refused.status, refused.body['code']], [429, 'rate-limited']);
    assert.ok(refused.headers.get('retry-after'));
    const stored = await t.server.services.store.find('subscriptions', { tenantId });
    assert.deepEqual(stored.map((s) => s['urlId']), ['/flood/0']);
    let limited = false;
    for (let i = 0; i < 20 && !limited; i++) limited = (await pub(t, 'GET', '/translations/widgets/comment-ui')).status === 429;
    assert.ok(limited, 'reads are limited per client');
  });
});
