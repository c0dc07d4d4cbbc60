/**
 * The widget's live channel across a server restart, in real Chromium: while the reader is
 * cut off, comments and a vote happen; once the socket is back, the widget catches up from the
 * event log: every comment shown exactly once, the count right, and live updates flow again.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { embedPage } from '../fixtures/browser.js';
import { TcpSwitch } from '../fixtures/tcp-switch.js';
import { WidgetScenario } from '../fixtures/widget-suite.js';
import { broadcast, commentData, widget } from './public-comments-helpers.js';

/** The hops between readers and the server, closed after the tests. */
class Reconnecting extends WidgetScenario {
  readonly hops: TcpSwitch[] = [];
  protected override async tearDown(): Promise<void> {
    for (const hop of this.hops) await hop.close();
  }
}

Reconnecting.describe(`the widget reconnects and catches up`, (s) => {
  test('a dropped socket (server restarted) is followed by catch-up with no gap and no duplicate', async () => {
    const tenantId = s.t.tenant.tenantId;
    const urlId = 'reconnect-1';
    const first = await widget(s.t, 'POST', `/comments/${tenantId}`, { urlId, broadcastId: broadcast() }, commentData(urlId, 'Before the drop', { commenterName: 'Early' }));
    assert.equal(first.status, 200);
    // The reader reaches the API through a hop the test switches off: while it is off, the
    // widget cannot connect, so what happens meanwhile reaches it only through catch-up.
    const hop = await TcpSwitch.start(s.t.server.port);
    s.hops.push(hop);
    const reader = await s.reader(s.site.page('/reconnect', embedPage(hop.url, { tenantId, urlId, apiHost: hop.url, showLiveRightAway: true })));
    const page = reader.page;
    await page.getByRole('article', { name: 'Early' }).waitFor();
    // Live flows before the drop.
    await widget(s.t, 'POST', `/comments/${tenantId}`, { urlId, broadcastId: broadcast() }, commentData(urlId, 'Live before', { commenterName: 'Live1' }));
    await page.getByRole('article', { name: 'Live1' }).waitFor();

    hop.off();
    await s.restart();

    const missed = [];
    for (const name of ['Gap1', 'Gap2', 'Gap3']) {
      const posted = await widget(s.t, 'POST', `/comments/${tenantId}`, { urlId, broadcastId: broadcast() }, commentData(urlId, `Said while away by ${name}`, { commenterName: name }));
      assert.equal(posted.status, 200, JSON.stringify(posted.body));
      missed.push(posted.body.comment._id);
    }
    const vote = await widget(s.t, 'POST', `/comments/${tenantId}/${first.body.comment._id}/vote`, { urlId, broadcastId: broadcast() }, { voteDir: 'up', url: null, commenterName: null, commenterEmail: null });
    assert.equal(vote.body.status, 'success');

    hop.on(s.t.server.port);
    for (const name of ['Gap1', 'Gap2', 'Gap3']) await page.getByRole('article', { name }).waitFor();
    await page.getByRole('article', { name: 'Early' }).getByLabel('1 votes').waitFor();
    // Live again after catch-up; then nothing is shown twice.
    await widget(s.t, 'POST', `/comments/${tenantId}`, { urlId, broadcastId: broadcast() }, commentData(urlId, 'Live after', { commenterName: 'Live2' }));
    await page.getByRole('article', { name: 'Live2' }).waitFor();
    for (const name of ['Early', 'Live1', 'Gap1', 'Gap2', 'Gap3', 'Live2']) assert.equal(await page.getByRole('article', { name }).count(), 1, `${name} shown once`);
    assert.equal(await page.getByRole('article').count(), 6);
    await page.getByRole('heading', { name: 'Comments (6)' }).waitFor();
  });
});
