/**
 * The tenant's rules applied to readers' comments through the widget API: the spam filter's
 * repeat check, profanity, requireSSO, noNewRootComments, readonly and closed pages, taken
 * usernames; and a page view that never makes a session.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { broadcast, commentData, secureSso, widget } from './public-comments-helpers.js';

for (const storage of storages()) {
  describe(`widget API rules on ${storage}`, () => {
    let t: TestServer;
    let tenantId: string;

    before(async () => {
      t = await startTestServer(storage);
      tenantId = t.tenant.tenantId;
    });
    after(async () => {
      await t.destroy();
    });

    const read = (urlId: string, query: Record<string, string | undefined> = {}) => widget(t, 'GET', `/comments/${tenantId}`, { urlId, ...query });
    const post = (urlId: string, body: Record<string, unknown>, query: Record<string, string | undefined> = {}) =>
      widget(t, 'POST', `/comments/${tenantId}`, { urlId, broadcastId: broadcast(), ...query }, body);
    const config = async (urlId: string | undefined, body: Record<string, unknown>) => {
      const r = await t.api('PUT', '/api/v1/widget-config', { query: urlId === undefined ? {} : { urlId }, body });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    };

    test('a page view never makes a session', async () => {
      const r = await read('/views');
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('set-cookie'), null);
      assert.equal(r.body.user, null);
      assert.equal(r.body.userIdWS, 'null');
    });

    test("the tenant's spam filter: a repeat by the same author is held as spam, shown to its author only", async () => {
      const urlId = '/spam';
      const first = await post(urlId, commentData(urlId, 'Buy now', { commenterName: 'Spammer' }));
      const session = first.body.user.sessionId as string;
      const again = await post(urlId, commentData(urlId, 'buy   NOW', { commenterName: 'Spammer' }), { sessionId: session });
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal(again.body.comment.isSpam, true);
      assert.deepEqual((await read(urlId)).body.comments.map((c: any) => c._id), [first.body.comment._id]);
      const own = await read(urlId, { sessionId: session, direction: 'OF' });
      assert.deepEqual(own.body.comments.map((c: any) => [c._id, c.isSpam === true]), [
        [again.body.comment._id, true],
        [first.body.comment._id, false],
      ]);
      // Turned off by the tenant, the same repeat is published.
      assert.equal((await t.api('PATCH', `/api/v1/tenants/${tenantId}`, { body: { enableSpamFilter: false } })).status, 200);
      try {
        const allowed = await post(urlId, commentData(urlId, 'Buy now', { commenterName: 'Spammer' }), { sessionId: session });
        assert.equal(allowed.body.comment.isSpam, undefined);
      } finally {
        await t.api('PATCH', `/api/v1/tenants/${tenantId}`, { body: { enableSpamFilter: true } });
      }
    });

    test("the tenant's profanity setting masks readers' comments", async () => {
      assert.equal((await t.api('PATCH', `/api/v1/tenants/${tenantId}`, { body: { enableProfanityFilter: true } })).status, 200);
      try {
        const r = await post('/profane', commentData('/profane', 'what the shit'));
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.ok(!r.body.comment.commentHTML.includes('shit'), r.body.comment.commentHTML);
      } finally {
        await t.api('PATCH', `/api/v1/tenants/${tenantId}`, { body: { enableProfanityFilter: false } });
      }
    });

    test('requireSSO, noNewRootComments, readonly and closed pages', async () => {
      await config('/sso-only', { requireSSO: true });
      const anonymousRead = await read('/sso-only');
      assert.deepEqual([anonymousRead.status, anonymousRead.body.code], [403, 'sso-required']);
      const anonymousPost = await post('/sso-only', commentData('/sso-only', 'Hi'));
      assert.deepEqual([anonymousPost.status, anonymousPost.body.code], [403, 'sso-required']);
      const user = secureSso(t.tenant.apiSecret, { id: 'member', email: 'member@example.com', username: 'member' });
      assert.equal((await post('/sso-only', commentData('/sso-only', 'Hi'), { sso: user })).status, 200);
      assert.equal((await read('/sso-only', { sso: user })).body.comments.length, 1);

      await config('/replies-only', { noNewRootComments: true });
      const root = await post('/replies-only', commentData('/replies-only', 'Root'));
      assert.deepEqual([root.status, root.body.code], [403, 'no-new-root-comments']);

      await config('/readonly', { readonly: true });
      const ro = await post('/readonly', commentData('/readonly', 'Hi'));
      assert.deepEqual([ro.status, ro.body.code], [403, 'page-readonly']);

      assert.equal((await post('/closed', commentData('/closed', 'Before'))).status, 200);
      const pages = await t.api<{ page: { id: string } }>('GET', '/api/v1/pages/by-url-id', { query: { urlId: '/closed' } });
      assert.equal((await t.api('PATCH', `/api/v1/pages/${pages.body.page.id}`, { body: { isClosed: true } })).status, 200);
      const closed = await post('/closed', commentData('/closed', 'After'));
      assert.deepEqual([closed.status, closed.body.code], [403, 'page-readonly']);
      assert.equal((await read('/closed')).body.isClosed, true);
    });

    test('a name taken by another email is refused', async () => {
      assert.equal((await post('/names', commentData('/names', 'Mine', { commenterName: 'Unique Ulla', commenterEmail: 'ulla@example.com' }))).status, 200);
      const taken = await post('/names', commentData('/names', 'Mine too', { commenterName: 'Unique Ulla', commenterEmail: 'other@example.com' }));
      assert.deepEqual([taken.status, taken.body.code], [409, 'username-taken']);
    });
  });
}
