/**
 * What an anonymous caller of the widget routes can make the server hold is bounded: reaction
 * ids per page, pages per tenant per hour, requests and writes per client, new anonymous
 * sessions per client; pages that require single sign-on take nothing from anyone else; and
 * the browser-facing details (CORS for `Origin: null`, the session cookie behind a proxy) are
 * what a careful operator expects.
 */
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { pageTopic } from '../../actors/live/live-events.js';
import { clock } from '../../engine/clock.js';
import { startTestServer, storages, type TestServer, UNLIMITED_PUBLIC, withQuery } from '../fixtures/server.js';
import { checkedFetch } from '../fixtures/openapi.js';
import { outcome, recordEvents } from './page-helpers.js';

interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
  cookie: string | undefined;
}

async function call(t: TestServer, method: string, path: string, query: Record<string, string>, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await checkedFetch(withQuery(`${t.url}${path}`, query), { method, headers: { origin: 'https://blog.example', ...headers } });
  const text = await res.text();
  const setCookie = res.headers.get('set-cookie');
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: res.headers, cookie: setCookie ? setCookie.split(';')[0] : undefined };
}

function secureSso(secret: string, user: Record<string, unknown>): string {
  const data = Buffer.from(JSON.stringify(user)).toString('base64');
  const timestamp = clock.now();
  const verificationHash = createHmac('sha256', secret).update(`${timestamp}${data}`).digest('hex');
  return JSON.stringify({ userDataJSONBase64: data, verificationHash, timestamp });
}

/** A client behind the proxy, as `TRUST_PROXY` servers see it. */
const from = (address: string) => ({ 'x-forwarded-for': address });

for (const storage of storages()) {
  describe(`public route limits on ${storage}`, () => {
    let t: TestServer;
    let likes: string;
    let reacts: string;
    before(async () => {
      t = await startTestServer(storage, { ...UNLIMITED_PUBLIC, trustProxy: true, anonPagesPerHour: 4, publicWriteBurst: 6, publicWriteRate: 1, anonSessionsPerHour: 12 });
      likes = `/page-reacts/v1/likes/${t.tenant.tenantId}`;
      reacts = `/page-reacts/v2/${t.tenant.tenantId}`;
      await t.api('PUT', '/api/v1/widget-config', { body: { maxReactionIdsPerPage: 3 } });
    });
    after(async () => {
      await t.destroy();
    });

    test('a page takes a bounded number of reaction ids; events carry only what changed', async () => {
      const urlId = '/bounded-reacts';
      await t.api('POST', '/api/v1/pages', { body: { urlId, url: 'https://example.com/r', title: 'R' } });
      const rec = recordEvents(t);
      const cookie = (await call(t, 'GET', reacts, { urlId }, from('10.0.0.1'))).cookie!;
      for (const id of ['a', 'b', 'c']) assert.equal((await call(t, 'POST', reacts, { urlId, id }, { cookie, ...from('10.0.0.1') })).status, 200);
      const fourth = await call(t, 'POST', reacts, { urlId, id: 'd' }, { cookie, ...from('10.0.0.1') });
      assert.deepEqual([fourth.status, fourth.body['code']], [409, 'too-many-reaction-ids']);
      // An id the page has is still open to everyone.
      const other = (await call(t, 'GET', reacts, { urlId }, from('10.0.0.2'))).cookie!;
      assert.equal((await call(t, 'POST', reacts, { urlId, id: 'a' }, { cookie: other, ...from('10.0.0.2') })).status, 200);
      assert.deepEqual((await call(t, 'GET', reacts, { urlId }, { cookie: other, ...from('10.0.0.2') })).body['counts'], { a: 2, b: 1, c: 1 });
      rec.stop();
      const events = rec.events.filter((e) => e.topic === pageTopic(t.tenant.tenantId, urlId)).map((e) => e.event);
      assert.deepEqual(
        events.map((e) => [e['type'], e['kind'], e['reactId'], e['count'], 'counts' in e]),
        [
          ['page-react', 'react', 'a', 1, false],
          ['page-react', 'react', 'b', 1, false],
          ['page-react', 'react', 'c', 1, false],
          ['page-react', 'react', 'a', 2, false],
        ],
      );
    });

    test('pages created by widgets are bounded per tenant per hour; the API is not', async () => {
      const created: number[] = [];
      for (let i = 0; i < 6; i++) {
        const r = await call(t, 'POST', likes, { urlId: `/new-page-${i}` }, from(`10.1.0.${i}`));
        created.push(r.status);
        if (r.status === 429) {
          assert.equal(r.body['code'], 'rate-limited');
          assert.ok(Number(r.headers.get('retry-after')) > 0);
        }
      }
      // Four per hour (the page of the first test was made through the API).
      assert.deepEqual(created, [200, 200, 200, 200, 429, 429]);
      assert.equal((await t.api('GET', '/api/v1/pages/by-url-id', { query: { urlId: '/new-page-5' } })).status, 404, 'a refused like stored no page');
      assert.equal((await t.api('POST', '/api/v1/pages', { body: { urlId: '/api-page', url: 'https://example.com/a', title: 'A' } })).status, 200);
      // Existing pages still take likes.
      assert.equal((await call(t, 'POST', likes, { urlId: '/new-page-0' }, from('10.1.1.1'))).status, 200);
    });

    test('writes per client: a burst, then 429 with Retry-After; other clients are not slowed', async () => {
      const urlId = '/bounded-reacts';
      // One reader (its cookie), so that only the write budget is spent.
      const cookie = (await call(t, 'GET', likes, { urlId }, from('10.2.9.9'))).cookie!;
      const as = (address: string) => ({ cookie, ...from(address) });
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) statuses.push((await call(t, 'DELETE', likes, { urlId }, as('10.2.0.1'))).status);
      assert.ok(statuses.slice(0, 6).every((s) => s === 200), JSON.stringify(statuses));
      assert.ok(statuses.slice(6).every((s) => s === 429), JSON.stringify(statuses));
      const refused = await call(t, 'DELETE', likes, { urlId }, as('10.2.0.1'));
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
      // Spellings of one address are one client; another address is another.
      assert.equal((await call(t, 'DELETE', likes, { urlId }, as('::ffff:10.2.0.1'))).status, 429);
      assert.equal((await call(t, 'DELETE', likes, { urlId }, as('010.002.000.001'))).status, 429);
      assert.equal((await call(t, 'DELETE', likes, { urlId }, as('10.2.0.2'))).status, 200);
      // A client cannot pick its own address: only the entry the proxy added counts.
      assert.equal((await call(t, 'DELETE', likes, { urlId }, as('1.1.1.1, 10.2.0.1'))).status, 429);
    });

    test('new anonymous sessions are bounded per client; a reader with its cookie is not', async () => {
      const statuses: number[] = [];
      let cookie: string | undefined;
      for (let i = 0; i < 5; i++) {
        const r = await call(t, 'GET', likes, { urlId: '/sessions' }, from('10.3.0.1'));
        statuses.push(r.status);
        cookie ??= r.cookie;
      }
      // A quarter of 12 per hour at once.
      assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
      assert.equal((await call(t, 'GET', likes, { urlId: '/sessions' }, { cookie: cookie!, ...from('10.3.0.1') })).status, 200);
    });

    test('pages that require single sign-on take likes and reactions only from signed-on readers of their groups', async () => {
      const urlId = '/members';
      await t.api('POST', '/api/v1/pages', { body: { urlId, url: 'https://example.com/m', title: 'M', accessibleByGroupIds: ['g1'] } });
      await t.api('PUT', '/api/v1/widget-config', { query: { urlId }, body: { requireSSO: true } });
      assert.deepEqual(outcome(await call(t, 'POST', likes, { urlId }, from('10.4.0.1'))), [403, 'sso-required']);
      const simple = JSON.stringify({ username: 'sim', email: 'sim@example.com' });
      assert.deepEqual(outcome(await call(t, 'POST', reacts, { urlId, id: 'x', sso: simple }, from('10.4.0.1'))), [403, 'sso-required']);
      const outsider = secureSso(t.tenant.apiSecret, { id: 'out', username: 'out', groupIds: ['g2'] });
      assert.deepEqual(outcome(await call(t, 'POST', likes, { urlId, sso: outsider }, from('10.4.0.1'))), [403, 'page-forbidden']);
      const member = secureSso(t.tenant.apiSecret, { id: 'in', username: 'in', groupIds: ['g1'] });
      assert.equal((await call(t, 'POST', likes, { urlId, sso: member }, from('10.4.0.1'))).status, 200);
      const page = await t.api<{ likeCount: number }>('GET', '/api/v1/pages/likes', { query: { urlId } });
      assert.equal(page.body.likeCount, 1);
    });

    test('unsigned single sign-on carries no privileges and cannot change a user made by a signed payload', async () => {
      const email = 'victim@example.com';
      const simpleId = `simple-${createHash('sha256').update(email).digest('hex').slice(0, 24)}`;
      const userPath = (id: string) => `/api/v1/users/${encodeURIComponent(`${t.tenant.tenantId}:${id}`)}`;
      const escalate = JSON.stringify({ username: 'mallory', email: 'mallory@example.com', isAdmin: true, isModerator: true, groupIds: ['admins'] });
      assert.equal((await call(t, 'POST', likes, { urlId: '/new-page-0', sso: escalate }, from('10.5.0.1'))).status, 200);
      const mallory = await t.api<{ user: Record<string, unknown> }>('GET', userPath(`simple-${createHash('sha256').update('mallory@example.com').digest('hex').slice(0, 24)}`));
      assert.equal(mallory.status, 200);
      assert.deepEqual([mallory.body.user['isAdmin'], mallory.body.user['isModerator'], mallory.body.user['groupIds']], [undefined, undefined, undefined]);
      // A user a signed payload made, under the id unsigned payloads would use for its email.
      await call(t, 'GET', likes, { urlId: '/new-page-0', sso: secureSso(t.tenant.apiSecret, { id: simpleId, username: 'victim', email }) }, from('10.5.0.2'));
      const takeover = JSON.stringify({ username: 'hacked', email, avatarSrc: 'https://evil.example/a.png' });
      assert.deepEqual(outcome(await call(t, 'POST', likes, { urlId: '/new-page-0', sso: takeover }, from('10.5.0.3'))), [401, 'invalid-sso']);
      const victim = await t.api<{ user: Record<string, unknown> }>('GET', userPath(simpleId));
      assert.deepEqual([victim.body.user['username'], victim.body.user['avatarSrc']], ['victim', null]);
    });

    test('no CORS for Origin: null; the session cookie is Secure behind an https proxy, however it says so', async () => {
      const nullOrigin = await checkedFetch(withQuery(`${t.url}${likes}`, { urlId: '/cors' }), { headers: { origin: 'null', ...from('10.6.0.1') } });
      assert.equal(nullOrigin.headers.get('access-control-allow-origin'), null);
      assert.equal(nullOrigin.headers.get('access-control-allow-credentials'), null);
      const preflight = await checkedFetch(withQuery(`${t.url}${likes}`, { urlId: '/cors' }), { method: 'OPTIONS', headers: { origin: 'null', 'access-control-request-method': 'POST' } });
      assert.equal(preflight.headers.get('access-control-allow-origin'), null);
      const real = await checkedFetch(withQuery(`${t.url}${likes}`, { urlId: '/cors' }), { headers: { origin: 'https://blog.example', ...from('10.6.0.2') } });
      assert.equal(real.headers.get('access-control-allow-origin'), 'https://blog.example');
      const proxies: Record<string, string>[] = [{ 'x-forwarded-proto': 'HTTPS' }, { 'x-forwarded-proto': 'https' }, { forwarded: 'for=10.6.1.3;proto=https' }, { forwarded: 'For=10.6.1.4;Proto=HTTPS' }];
      for (const [i, headers] of proxies.entries()) {
        const r = await checkedFetch(withQuery(`${t.url}${likes}`, { urlId: '/cors' }), { headers: { ...from(`10.6.1.${i}`), ...headers } });
        assert.match(r.headers.get('set-cookie') ?? '', /; SameSite=None; Secure/, JSON.stringify(headers));
      }
      const plain = await checkedFetch(withQuery(`${t.url}${likes}`, { urlId: '/cors' }), { headers: from('10.6.2.1') });
      assert.match(plain.headers.get('set-cookie') ?? '', /SameSite=Lax/);
    });
  });

  describe(`public reads per client on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage, { ...UNLIMITED_PUBLIC, publicReadBurst: 5, publicReadRate: 1 });
    });
    after(async () => {
      await t.destroy();
    });

    test('every public route, /sub included, counts against one budget per client', async () => {
      const path = `/page-reacts/v1/likes/${t.tenant.tenantId}`;
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await checkedFetch(withQuery(`${t.url}${path}`, { urlId: '/r' }))).status);
      assert.deepEqual(statuses, [200, 200, 200, 200, 200]);
      const limited = await checkedFetch(withQuery(`${t.url}/event-log/${t.tenant.tenantId}`, { urlId: '/r', startTime: '0' }));
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get('retry-after')) >= 1);
      // The API is not a public route: keys are charged credits instead.
      assert.equal((await t.api('GET', '/api/v1/me')).status, 200);
    });
  });
}
