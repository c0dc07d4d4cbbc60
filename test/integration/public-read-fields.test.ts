/**
 * Fields of the widget's page read that come from the tenant and the reader rather than the
 * comments: `customConfig` without settings that are not public (the spam rules),
 * `presencePollState`, `isCommentsHidden` and `hasBillingIssue` (this server keeps no billing
 * state), and a signed payload's page badges reaching the page it was sent with from the
 * public comment routes. On every storage.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../fixtures/eventually.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { addBadge, badgesOf } from './badge-helpers.js';
import { commentData, secureSso, widget } from './public-comments-helpers.js';

for (const storage of storages()) {
  describe(`page read fields on ${storage}`, () => {
    let t: TestServer;
    let tenantId: string;
    before(async () => {
      t = await startTestServer(storage);
      tenantId = t.tenant.tenantId;
    });
    after(async () => {
      await t?.destroy();
    });

    test('customConfig leaves the spam rules out; presencePollState follows live commenting; comments are not hidden for billing', async () => {
      const urlId = '/fields/config';
      const rules = [{ actions: ['spam'], commentContains: 'cheap pills' }];
      assert.equal((await t.api('PUT', '/api/v1/widget-config', { body: { pageSize: 4, spamRules: rules } })).status, 200);
      for (const query of [{ urlId, includeConfig: true }, { urlId, includeConfig: true, sso: secureSso(t.tenant.apiSecret, { id: 'cfg', email: 'cfg@example.com', username: 'cfg' }) }]) {
        const read = await widget(t, 'GET', `/comments/${tenantId}`, query);
        assert.equal(read.status, 200, JSON.stringify(read.body));
        assert.equal(read.body['customConfig']['pageSize'], 4);
        assert.equal('spamRules' in read.body['customConfig'], false, 'the spam rules are not shown to readers');
        assert.equal(read.body['presencePollState'], 1);
        assert.equal(read.body['isCommentsHidden'], false);
        assert.equal('hasBillingIssue' in read.body, false);
      }
      // The rules still apply to what readers post.
      const spam = await widget(t, 'POST', `/comments/${tenantId}`, { urlId }, commentData(urlId, 'buy cheap pills here'));
      assert.equal(spam.status, 200, JSON.stringify(spam.body));
      assert.equal(spam.body['comment']['isSpam'], true);

      assert.equal((await t.api('PUT', '/api/v1/widget-config', { query: { urlId }, body: { disableLiveCommenting: true } })).status, 200);
      await eventually(async () => (await widget(t, 'GET', `/comments/${tenantId}`, { urlId })).body['presencePollState'] === 0, 30_000);
      const other = await widget(t, 'GET', `/comments/${tenantId}`, { urlId: '/fields/other' });
      assert.equal(other.body['presencePollState'], 1, 'only the page that turned live commenting off');
    });

    test("a signed payload's pageBadgeIds give the badge on the page of the public comment route", async () => {
      const badge = await addBadge(t, { type: 4, displayLabel: 'Page star' });
      const urlId = '/fields/star';
      const sso = secureSso(t.tenant.apiSecret, { id: 'starred', email: 'starred@example.com', username: 'starred', badgeConfig: { pageBadgeIds: [badge._id] } });
      const posted = await widget(t, 'POST', `/comments/${tenantId}`, { urlId, sso }, commentData(urlId, 'a comment with a page badge'));
      assert.equal(posted.status, 200, JSON.stringify(posted.body));
      const userId = `${tenantId}:starred`;
      await eventually(async () => (await badgesOf(t, userId)).some((b) => b.badgeId === badge._id), 30_000);
      const held = (await badgesOf(t, userId)).find((b) => b.badgeId === badge._id) as unknown as { urlId: string };
      assert.equal(held.urlId, urlId);
    });
  });
}
