import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { pageTopic } from '../../actors/live/live-events.js';
import { clock } from '../../engine/clock.js';
import { startTestServer, storages, type TestServer, withQuery } from '../fixtures/server.js';
import { inParallel, outcome, postComment, recordEvents } from './page-helpers.js';
import { checkedFetch } from '../fixtures/openapi.js';

interface Answer {
  status: number;
  body: Record<string, unknown>;
  cookie: string | undefined;
}

/** A public call, as a browser makes it: no API key, an optional session cookie. */
async function call(t: TestServer, method: string, path: string, query: Record<string, string>, cookie?: string): Promise<Answer> {
  const res = await checkedFetch(withQuery(`${t.url}${path}`, query), { method, headers: { origin: 'https://blog.example', ...(cookie ? { cookie } : {}) } });
  const text = await res.text();
  const setCookie = res.headers.get('set-cookie');
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, cookie: setCookie ? setCookie.split(';')[0] : undefined };
}

/** The `sso` parameter of a secure single sign-on user, signed with the tenant's API secret. */
function secureSso(secret: string, user: Record<string, unknown>, timestamp = clock.now()): string {
  const data = Buffer.from(JSON.stringify(user)).toString('base64');
  const verificationHash = createHmac('sha256', secret).update(`${timestamp}${data}`).digest('hex');
  return JSON.stringify({ userDataJSONBase64: data, verificationHash, timestamp });
}

for (const storage of storages()) {
  describe(`page reactions on ${storage}`, () => {
    let t: TestServer;
    let likes: string;
    let reacts: string;
    before(async () => {
      t = await startTestServer(storage);
      likes = `/page-reacts/v1/likes/${t.tenant.tenantId}`;
      reacts = `/page-reacts/v2/${t.tenant.tenantId}`;
    });
    after(async () => {
      await t.destroy();
    });

    test('likes: an anonymous session cookie, every code of the states table, CORS, no credits', async () => {
      const creditsUsed = async () => {
        const r = await t.api<{ tenantDailyUsages: { apiCreditsUsed: number }[] }>('GET', '/api/v1/tenant-daily-usage');
        return r.body.tenantDailyUsages.reduce((sum, d) => sum + d.apiCreditsUsed, 0);
      };
      const creditsBefore = await creditsUsed();
      const first = await call(t, 'GET', likes, { urlId: '/liked' });
      assert.equal(first.status, 200);
      assert.deepEqual(first.body, { status: 'success', urlIdWS: t.server.services.liveIds.urlIdWS(t.tenant.tenantId, '/liked'), didLike: false, commentCount: 0, likeCount: 0 });
      const cookie = first.cookie!;
      assert.match(cookie, /^fc_anon=[A-Za-z0-9_-]{22}$/);
      const rec = recordEvents(t);
      assert.deepEqual((await call(t, 'POST', likes, { urlId: '/liked', title: 'Liked page' }, cookie)).body, { status: 'success' });
      assert.deepEqual((await call(t, 'POST', likes, { urlId: '/liked' }, cookie)).body, { status: 'success', code: 'already-liked' });
      const read = await call(t, 'GET', likes, { urlId: '/liked' }, cookie);
      assert.deepEqual([read.body['didLike'], read.body['likeCount'], read.cookie], [true, 1, undefined]);
      assert.deepEqual((await call(t, 'DELETE', likes, { urlId: '/liked' }, cookie)).body, { status: 'success' });
      assert.deepEqual((await call(t, 'DELETE', likes, { urlId: '/liked' }, cookie)).body, { status: 'success', code: 'not-liked' });
      rec.stop();
      const events = rec.events.filter((e) => e.topic === pageTopic(t.tenant.tenantId, '/liked')).map((e) => [e.event['type'], e.event['likeCount']]);
      assert.deepEqual(events, [['page-react', 1], ['page-react', 0]]);
      const page = await t.api<{ page: { title: string } }>('GET', '/api/v1/pages/by-url-id', { query: { urlId: '/liked' } });
      assert.equal(page.body.page.title, 'Liked page');
      const res = await checkedFetch(withQuery(`${t.url}${likes}`, { urlId: '/liked' }), { headers: { origin: 'https://blog.example' } });
      assert.deepEqual([res.headers.get('access-control-allow-origin'), res.headers.get('access-control-allow-credentials')], ['https://blog.example', 'true']);
      assert.equal(await creditsUsed(), creditsBefore + 2, 'only the first usage read and the page read were charged');
      assert.deepEqual(outcome(await call(t, 'GET', likes, {})), [400, 'missing-url-id']);
      assert.deepEqual(outcome(await call(t, 'GET', '/page-reacts/v1/likes/nosuchtenant', { urlId: '/x' })), [401, 'invalid-tenant-id']);
    });

    test('reactions: ids up to 36 characters, already-reacted, no-react, counts and my reactions', async () => {
      const me = (await call(t, 'GET', reacts, { urlId: '/reacts' })).cookie!;
      const other = (await call(t, 'GET', reacts, { urlId: '/reacts' })).cookie!;
      assert.deepEqual((await call(t, 'POST', reacts, { urlId: '/reacts', id: 'heart' }, me)).body, { status: 'success' });
      assert.deepEqual((await call(t, 'POST', reacts, { urlId: '/reacts', id: 'heart' }, me)).body, { status: 'success', code: 'already-reacted' });
      await call(t, 'POST', reacts, { urlId: '/reacts', id: 'x'.repeat(36) }, me);
      await call(t, 'POST', reacts, { urlId: '/reacts', id: 'heart' }, other);
      assert.deepEqual(outcome(await call(t, 'POST', reacts, { urlId: '/reacts', id: 'x'.repeat(37) }, me)), [400, 'invalid-param']);
      assert.deepEqual(outcome(await call(t, 'POST', reacts, { urlId: '/reacts' }, me)), [400, 'missing-param']);
      const mine = await call(t, 'GET', reacts, { urlId: '/reacts' }, me);
      assert.deepEqual(mine.body, { status: 'success', reactedIds: ['heart', 'x'.repeat(36)].sort(), counts: { heart: 2, ['x'.repeat(36)]: 1 } });
      assert.deepEqual((await call(t, 'DELETE', reacts, { urlId: '/reacts', id: 'heart' }, me)).body, { status: 'success' });
      assert.deepEqual((await call(t, 'DELETE', reacts, { urlId: '/reacts', id: 'heart' }, me)).body, { status: 'success', code: 'no-react' });
      assert.deepEqual((await call(t, 'GET', reacts, { urlId: '/reacts' }, other)).body, { status: 'success', reactedIds: ['heart'], counts: { heart: 1, ['x'.repeat(36)]: 1 } });
      assert.deepEqual((await call(t, 'GET', reacts, { urlId: '/never' })).body, { status: 'success', reactedIds: [], counts: {} });
    });

    test('reaction ids that are not plain words count like any other, and survive a restart', async () => {
      const me = (await call(t, 'GET', reacts, { urlId: '/odd-reacts' })).cookie!;
      const ids = ['__proto__', 'a.b', '$x', 'constructor'];
      for (const id of ids) assert.deepEqual((await call(t, 'POST', reacts, { urlId: '/odd-reacts', id }, me)).body, { status: 'success' });
      const expected = { status: 'success', reactedIds: [...ids].sort(), counts: Object.fromEntries(ids.map((id) => [id, 1])) };
      const counted = (await call(t, 'GET', reacts, { urlId: '/odd-reacts' }, me)).body as Record<string, unknown>;
      assert.deepEqual(JSON.parse(JSON.stringify(counted)), expected);
      t = await t.restart();
      const again = (await call(t, 'GET', reacts, { urlId: '/odd-reacts' }, me)).body as Record<string, unknown>;
      assert.deepEqual(JSON.parse(JSON.stringify(again)), expected);
    });

    test('single sign-on: secure payloads are verified; simple ones accepted; users created private', async () => {
      const secret = t.tenant.apiSecret;
      const sso = secureSso(secret, { id: 'sso-1', username: 'alice', email: 'Alice@Example.com', displayName: 'Alice A' });
      assert.deepEqual((await call(t, 'POST', likes, { urlId: '/sso', sso })).body, { status: 'success' });
      const user = await t.api<{ user: { username: string; email: string; isProfileActivityPrivate: boolean } }>('GET', `/api/v1/users/${encodeURIComponent(`${t.tenant.tenantId}:sso-1`)}`);
      assert.deepEqual([user.body.user.username, user.body.user.email, user.body.user.isProfileActivityPrivate], ['alice', 'alice@example.com', true]);
      const again = await call(t, 'GET', likes, { urlId: '/sso', sso: secureSso(secret, { id: 'sso-1' }) });
      assert.deepEqual([again.body['didLike'], again.cookie], [true, undefined]);
      const forged = JSON.parse(sso) as Record<string, unknown>;
      forged['verificationHash'] = createHmac('sha256', 'wrong').update('x').digest('hex');
      assert.deepEqual(outcome(await call(t, 'GET', likes, { urlId: '/sso', sso: JSON.stringify(forged) })), [401, 'invalid-sso']);
      const old = secureSso(secret, { id: 'sso-1' }, clock.now() - 3 * 24 * 60 * 60 * 1000);
      assert.deepEqual(outcome(await call(t, 'GET', likes, { urlId: '/sso', sso: old })), [401, 'invalid-sso']);
      const future = secureSso(secret, { id: 'sso-1' }, clock.now() + 10 * 60 * 1000);
      assert.deepEqual(outcome(await call(t, 'GET', likes, { urlId: '/sso', sso: future })), [401, 'invalid-sso']);
      assert.deepEqual(outcome(await call(t, 'GET', likes, { urlId: '/sso', sso: 'not json' })), [401, 'invalid-sso']);
      const other = await t.addTenant();
      const signedElsewhere = secureSso(other.apiSecret, { id: 'sso-1' });
      assert.deepEqual(outcome(await call(t, 'GET', likes, { urlId: '/sso', sso: signedElsewhere })), [401, 'invalid-sso']);
      const simple = JSON.stringify({ username: 'bob', email: 'bob@example.com' });
      assert.deepEqual((await call(t, 'POST', likes, { urlId: '/sso', sso: simple })).body, { status: 'success' });
      assert.equal((await call(t, 'GET', likes, { urlId: '/sso' })).body['likeCount'], 2);
    });

    test('user lists: most recent first, private and anonymous users left out; include-private only with a key', async () => {
      const secret = t.tenant.apiSecret;
      const urlId = '/lists';
      const people = [
        { id: 'p1', username: 'zed', isProfileActivityPrivate: false },
        { id: 'p2', username: 'amy', isProfileActivityPrivate: false },
        { id: 'p3', username: 'hidden' },
      ];
      for (const person of people) {
        const sso = secureSso(secret, person);
        await call(t, 'POST', likes, { urlId, sso });
        await call(t, 'POST', reacts, { urlId, id: 'wow', sso });
      }
      await call(t, 'POST', likes, { urlId });
      await call(t, 'POST', reacts, { urlId, id: 'wow' });
      const pub = await call(t, 'GET', likes, { urlId, includeUserInfo: 'public' });
      assert.equal(pub.body['likeCount'], 4);
      assert.deepEqual((pub.body['users'] as { username: string }[]).map((u) => u.username), ['amy', 'zed']);
      assert.deepEqual(outcome(await call(t, 'GET', likes, { urlId, includeUserInfo: 'include-private' })), [422, 'include-private-forbidden']);
      assert.deepEqual(outcome(await call(t, 'GET', reacts, { urlId, includeUserInfo: 'include-private' })), [422, 'include-private-forbidden']);
      const v2 = await call(t, 'GET', reacts, { urlId, includeUserInfo: 'public' });
      assert.deepEqual((v2.body['users'] as { reactId: string; username: string }[]).map((u) => [u.reactId, u.username]), [['wow', 'amy'], ['wow', 'zed']]);
      assert.deepEqual((await call(t, 'GET', `${reacts}/list`, { urlId, id: 'wow' })).body, { status: 'success', userNames: ['amy', 'zed'] });

      const server = await t.api<{ likeCount: number; users: { username: string; isPrivate: boolean }[] }>('GET', '/api/v1/pages/likes', { query: { urlId, includeUserInfo: 'include-private' } });
      assert.deepEqual([server.body.likeCount, server.body.users.map((u) => [u.username, u.isPrivate])], [4, [['hidden', true], ['amy', false], ['zed', false]]]);
      const serverPublic = await t.api<{ users: { username: string }[] }>('GET', '/api/v1/pages/likes', { query: { urlId, includeUserInfo: 'public' } });
      assert.deepEqual(serverPublic.body.users.map((u) => u.username), ['amy', 'zed']);
      const serverReacts = await t.api<{ counts: Record<string, number>; users: { reactId: string; username: string }[] }>('GET', '/api/v1/pages/reacts', { query: { urlId, includeUserInfo: 'include-private' } });
      assert.deepEqual([serverReacts.body.counts, serverReacts.body.users.length], [{ wow: 4 }, 3]);
      assert.deepEqual((await t.api('GET', '/api/v1/pages/likes', { query: { urlId: '/missing', includeUserInfo: 'public' } })).body, { status: 'success', likeCount: 0, users: [] });
      assert.deepEqual((await t.api('GET', '/api/v1/pages/reacts', { query: { urlId: '/missing' } })).body, { status: 'success', counts: {}, users: [] });
    });

    test('pages that require single sign-on show who reacted only to users who may view them', async () => {
      const urlId = '/members';
      await t.api('PATCH', '/api/v1/widget-config', { query: { urlId }, body: { requireSSO: true } });
      const page = await t.api<{ page: { id: string } }>('POST', '/api/v1/pages', { body: { urlId, url: 'https://example.com/u', title: 'Members', accessibleByGroupIds: ['gold'] } });
      const member = secureSso(t.tenant.apiSecret, { id: 'member', username: 'member', groupIds: ['gold'] });
      const outsider = secureSso(t.tenant.apiSecret, { id: 'outsider', username: 'outsider', groupIds: ['tin'] });
      await call(t, 'POST', reacts, { urlId, id: 'up', sso: member });
      assert.deepEqual(outcome(await call(t, 'GET', likes, { urlId, includeUserInfo: 'public' })), [403, 'sso-required']);
      assert.deepEqual(outcome(await call(t, 'GET', `${reacts}/list`, { urlId, id: 'up', sso: JSON.stringify({ username: 'simple', email: 's@example.com' }) })), [403, 'sso-required']);
      assert.deepEqual(outcome(await call(t, 'GET', `${reacts}/list`, { urlId, id: 'up', sso: outsider })), [403, 'page-forbidden']);
      assert.equal((await call(t, 'GET', `${reacts}/list`, { urlId, id: 'up', sso: member })).status, 200);
      assert.equal((await call(t, 'GET', likes, { urlId })).status, 200, 'counts stay public');
      assert.equal(typeof page.body.page.id, 'string');
    });

    test('concurrent likes and reactions from many users end with exact counts, also after a restart', async () => {
      const urlId = '/busy';
      const sessions = await inParallel(60, 20, async () => (await call(t, 'GET', likes, { urlId })).cookie!);
      const results = await inParallel(360, 40, (i) => {
        const cookie = sessions[i % 60]!;
        if (i < 120) return call(t, 'POST', likes, { urlId }, cookie);
        // Each session reacts with a, b and c, one of them twice.
        return call(t, 'POST', reacts, { urlId, id: ['a', 'b', 'c'][Math.floor(i / 60) % 3]! }, cookie);
      });
      assert.ok(results.every((r) => r.status === 200));
      assert.equal(results.filter((r) => r.body['code'] === 'already-liked').length, 60);
      assert.equal(results.filter((r) => r.body['code'] === 'already-reacted').length, 240 - 180);
      await inParallel(30, 15, (i) => call(t, 'DELETE', likes, { urlId }, sessions[i]!));
      const check = async () => {
        assert.equal((await call(t, 'GET', likes, { urlId })).body['likeCount'], 30);
        assert.deepEqual((await call(t, 'GET', reacts, { urlId })).body['counts'], { a: 60, b: 60, c: 60 });
      };
      await check();
      t = await t.restart();
      await check();
      await postComment(t, urlId, { comment: 'counted' });
      assert.equal((await call(t, 'GET', likes, { urlId })).body['commentCount'], 1);
    });
  });
}
