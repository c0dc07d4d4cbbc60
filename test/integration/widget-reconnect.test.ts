/**
 * The widget's live channel across a server restart, in real Chromium: while the reader is
 * cut off, comments and a vote happen; once the socket is back, the widget catches up from the
 * event log: every comment shown exactly once, the count right, and live updates flow again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { embedPage, HostSite, openReader, type Reader } from '../fixtures/browser.js';
import { TcpSwitch } from '../fixtures/tcp-switch.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { broadcast, commentData, widget } from './public-comments-helpers.js';

for (const storage of storages()) {
  describe(`the widget reconnects and catches up on ${storage}`, () => {
    let t: TestServer;
    let site: HostSite;
    let reader: Reader | undefined;
    const hops: TcpSwitch[] = [];

    before(async () => {
      t = await startTestServer(storage, { openSitesWithoutDomains: false });
      site = await HostSite.start();
    });
    after(async () => {
      await reader?.close();
      for (const hop of hops) await hop.close();
      await site.close();
      await t.destroy();
    });

    test('a dropped socket (server restarted) is followed by catch-up with no gap and no duplicate', async () => {
      const tenantId = t.tenant.tenantId;
      const urlId = 'reconnect-1';
      const first = await widget(t, 'POST', `/comments/${tenantId}`, { urlId, broadcastId: broadcast() }, commentData(urlId, 'Before the drop', { commenterName: 'Early' }));
      assert.equal(first.status, 200);
      // The reader reaches the API through a hop the test switches off: while it is off, the
      // widget cannot connect, so what happens meanwhile reaches it only through catch-up.
      const hop = await TcpSwitch.start(t.server.port);
      hops.push(hop);
      reader = await openReader(site.page('/reconnect', embedPage(hop.url, { tenantId, urlId, apiHost: hop.url, showLiveRightAway: true })));
      const page = reader.page;
      await page.getByRole('article', { name: 'Early' }).waitFor();
      // Live flows before the drop.
      await widget(t, 'POST', `/comments/${tenantId}`, { urlId, broadcastId: broadcast() }, commentData(urlId, 'Live before', { commenterName: 'Live1' }));
      await page.getByRole('article', { name: 'Live1' }).waitFor();

      hop.off();
      t = await t.restart();

      const missed = [];
      for (const name of ['Gap1', 'Gap2', 'Gap3']) {
        const posted = await widget(t, 'POST', `/comments/${tenantId}`, { urlId, broadcastId: broadcast() }, commentData(urlId, `Said while away by ${name}`, { commenterName: name }));
        assert.equal(posted.status, 200, JSON.stringify(posted.body));
        missed.push(posted.body.comment._id);
      }
      const vote = await widget(t, 'POST', `/comments/${tenantId}/${first.body.comment._id}/vote`, { urlId, broadcastId: broadcast() }, { voteDir: 'up', url: null, commenterName: null, commenterEmail: null });
      assert.equal(vote.body.status, 'success');

      hop.on(t.server.port);
      for (const name of ['Gap1', 'Gap2', 'Gap3']) await page.getByRole('article', { name }).waitFor();
      await page.getByRole('article', { name: 'Early' }).getByLabel('1 votes').waitFor();
      // Live again after catch-up; then nothing is shown twice.
      await widget(t, 'POST', `/comments/${tenantId}`, { urlId, broadcastId: broadcast() }, commentData(urlId, 'Live after', { commenterName: 'Live2' }));
      await page.getByRole('article', { name: 'Live2' }).waitFor();
      for (const name of ['Early', 'Live1', 'Gap1', 'Gap2', 'Gap3', 'Live2']) assert.equal(await page.getByRole('article', { name }).count(), 1, `${name} shown once`);
      assert.equal(await page.getByRole('article').count(), 6);
      await page.getByRole('heading', { name: 'Comments (6)' }).waitFor();
    });
  });
}
