/**
 * Domain configurations decide which sites may host the widget: once a tenant has one, the
 * public routes refuse browsers on other sites (403 `domain-not-allowed`, no CORS), for every
 * public route and the live channel, and deleting a configuration un-authorizes its site at
 * once, open connections included. A tenant with none admits only local development sites
 * (localhost, loopback), unless the operator opts in to every site (`OPEN_SITES_WITHOUT_DOMAINS`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, storages, type TestServer, withQuery } from '../fixtures/server.js';
import { LiveClient, Refused, subUrl } from '../unit/live/fixtures.js';
import { checkedFetch } from '../fixtures/openapi.js';

for (const storage of storages()) {
  describe(`sites allowed to host the widget on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage, { openSitesWithoutDomains: false });
    });
    after(async () => {
      await t.destroy();
    });

    const likes = (headers: Record<string, string>, method = 'GET') =>
      checkedFetch(withQuery(`${t.url}/page-reacts/v1/likes/${t.tenant.tenantId}`, { urlId: '/site' }), { method, headers });
    const log = (headers: Record<string, string>) =>
      checkedFetch(withQuery(`${t.url}/event-log/${t.tenant.tenantId}`, { urlId: '/site', startTime: '0' }), { headers });
    const code = async (r: Response) => ((await r.json()) as { code?: string }).code;
    const ids = () => {
      const live = t.server.services.liveIds;
      return { tenantIdWS: live.tenantIdWS(t.tenant.tenantId), urlId: live.urlIdWS(t.tenant.tenantId, '/site') };
    };
    const connect = (origin: string) => LiveClient.connect(subUrl(t, ids()), { origin });

    test('without a domain configured, only local sites are admitted (the list fails closed)', async () => {
      const refused = await likes({ origin: 'https://anywhere.example' });
      assert.deepEqual([refused.status, await code(refused)], [403, 'domain-not-allowed']);
      assert.equal(refused.headers.get('access-control-allow-origin'), null);
      for (const origin of ['http://localhost:3000', 'http://127.0.0.1:8080', 'http://[::1]:5173', 'http://app.localhost']) {
        const r = await likes({ origin });
        assert.equal(r.status, 200, origin);
        assert.equal(r.headers.get('access-control-allow-origin'), origin);
      }
      await assert.rejects(connect('https://anywhere.example'), (err: unknown) => err instanceof Refused && err.status === 403);
      // Not a browser page (no Origin, no Referer): not refused for its site.
      assert.equal((await likes({})).status, 200);
    });

    test('an operator may open a tenant without domains to every site', async () => {
      const open = await t.restart({ openSitesWithoutDomains: true });
      try {
        const r = await checkedFetch(withQuery(`${open.url}/page-reacts/v1/likes/${open.tenant.tenantId}`, { urlId: '/site' }), { headers: { origin: 'https://anywhere.example' } });
        assert.equal(r.status, 200);
      } finally {
        await open.stop();
        t = await open.restart({ openSitesWithoutDomains: false });
      }
    });

    test('with domains configured, only their sites and subdomains are admitted, on every public route', async () => {
      for (const domain of ['example.com', 'localhost:3000']) assert.equal((await t.api('POST', '/api/v1/domain-configs', { body: { domain } })).status, 200);
      for (const origin of ['https://example.com', 'https://blog.example.com', 'http://localhost:3000']) {
        const r = await likes({ origin });
        assert.equal(r.status, 200, origin);
        assert.equal(r.headers.get('access-control-allow-origin'), origin);
      }
      for (const origin of ['https://evil.com', 'https://notexample.com', 'http://localhost:4000', 'null']) {
        const r = await likes({ origin });
        assert.deepEqual([r.status, await code(r)], [403, 'domain-not-allowed'], origin);
        assert.equal(r.headers.get('access-control-allow-origin'), null, `${origin}: no CORS`);
      }
      // Referer when there is no Origin; neither: not a browser page, not refused.
      const referred = await likes({ referer: 'https://evil.com/page' });
      assert.deepEqual([referred.status, await code(referred)], [403, 'domain-not-allowed']);
      assert.equal((await likes({ referer: 'https://www.example.com/post/1' })).status, 200);
      assert.equal((await likes({})).status, 200);
      // Writes, the event log, preflights and the live channel alike.
      assert.equal((await likes({ origin: 'https://evil.com' }, 'POST')).status, 403);
      assert.equal((await likes({ origin: 'https://example.com' }, 'POST')).status, 200);
      assert.equal((await log({ origin: 'https://evil.com' })).status, 403);
      assert.equal((await log({ origin: 'https://example.com' })).status, 200);
      const preflight = (origin: string) =>
        checkedFetch(withQuery(`${t.url}/page-reacts/v1/likes/${t.tenant.tenantId}`, { urlId: '/site' }), { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } });
      const refusedPreflight = await preflight('https://evil.com');
      assert.deepEqual([refusedPreflight.status, refusedPreflight.headers.get('access-control-allow-origin')], [403, null]);
      const admittedPreflight = await preflight('https://example.com');
      assert.deepEqual([admittedPreflight.status, admittedPreflight.headers.get('access-control-allow-origin')], [204, 'https://example.com']);
      await assert.rejects(connect('https://evil.com'), (err: unknown) => err instanceof Refused && err.status === 403 && err.body['code'] === 'domain-not-allowed');
      const admitted = await connect('https://example.com');
      admitted.close();
      // The API is not a public route: domains do not apply to it.
      assert.equal((await t.api('GET', '/api/v1/me', { headers: { origin: 'https://evil.com' } })).status, 200);
    });

    test('deleting a domain un-authorizes its site at once, open connections included', async () => {
      const local = await connect('http://localhost:3000');
      assert.equal((await likes({ origin: 'http://localhost:3000' })).status, 200);
      assert.equal((await t.api('DELETE', '/api/v1/domain-configs/localhost:3000')).status, 200);
      const refused = await likes({ origin: 'http://localhost:3000' });
      assert.deepEqual([refused.status, await code(refused)], [403, 'domain-not-allowed']);
      assert.equal(await local.closed, 1008);
      assert.equal((await likes({ origin: 'https://example.com' })).status, 200);
      // With no domain left, the deleted site stays refused: only local sites are admitted.
      assert.equal((await t.api('DELETE', '/api/v1/domain-configs/example.com')).status, 200);
      const deleted = await likes({ origin: 'https://example.com' });
      assert.deepEqual([deleted.status, await code(deleted)], [403, 'domain-not-allowed']);
      assert.equal((await likes({ origin: 'http://localhost:3000' })).status, 200);
    });
  });
}
