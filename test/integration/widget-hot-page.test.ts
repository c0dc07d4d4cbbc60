/**
 * The widget on a hot page, where the server folds vote frames into `cvc` frames
 * (http/live/vote-coalescer.ts): votes still show live on other readers, and a reader's own vote
 * is not counted twice when its window's frame arrives.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { embedPage, HostSite, openReader, type Reader } from '../fixtures/browser.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';

for (const storage of storages()) {
  describe(`the widget on a page whose votes are folded on ${storage}`, () => {
    let t: TestServer;
    let site: HostSite;
    const readers: Reader[] = [];

    before(async () => {
      // Any vote with a subscriber counts as hot: every vote frame is folded into `cvc`.
      t = await startTestServer(storage, { openSitesWithoutDomains: false, liveVoteCoalesce: 1, liveVoteWindowMs: 50 });
      site = await HostSite.start();
    });
    afterEach(async () => {
      for (const r of readers.splice(0)) await r.close();
    });
    after(async () => {
      await site.close();
      await t.destroy();
    });

    test('votes reach the other reader live through cvc frames, and the voter sees its own vote once', async () => {
      const urlId = 'hot-1';
      const posted = await t.api<{ comment: { _id: string } }>('POST', '/api/v1/comments', {
        body: { commenterName: 'Ann', comment: 'A hot take', url: `https://blog.example.com/${urlId}`, urlId, locale: 'en_us' },
      });
      assert.equal(posted.status, 200, JSON.stringify(posted.body));
      const url = site.page(`/${urlId}`, embedPage(t.url, { tenantId: t.tenant.tenantId, urlId, apiHost: t.url }));
      const open = async () => {
        const reader = await openReader(url);
        readers.push(reader);
        return reader.page;
      };
      const a = await open();
      const b = await open();
      const frames: string[] = [];
      b.on('websocket', (ws) => ws.on('framereceived', (f) => frames.push(String(f.payload))));
      const annOnA = a.getByRole('article', { name: 'Ann' });
      const annOnB = b.getByRole('article', { name: 'Ann' });
      for (const ann of [annOnA, annOnB]) await ann.getByLabel('0 votes').waitFor();
      for (const page of [a, b]) await page.getByText('2 viewing').waitFor();

      await annOnA.getByRole('button', { name: 'Vote up' }).click();
      await annOnA.getByRole('button', { name: 'Vote up', pressed: true }).waitFor();
      await annOnB.getByLabel('1 votes').waitFor();
      // Other votes by API users, folded into the same kind of frame.
      for (const voter of ['v1', 'v2']) {
        const r = await t.api('POST', '/api/v1/votes', { query: { commentId: posted.body.comment._id, direction: 'up', anonUserId: voter } });
        assert.equal(r.status, 200);
      }
      for (const ann of [annOnA, annOnB]) await ann.getByLabel('3 votes').waitFor();
      assert.ok(frames.some((f) => f.includes('"type":"cvc"')), 'B received cvc frames');
      assert.ok(!frames.some((f) => f.includes('"type":"new-vote"')), 'no single vote frames on a hot page');

      // A withdraws its vote: 2 on both, never 1 (the delta applied over A's own change).
      await annOnA.getByRole('button', { name: 'Vote up' }).click();
      await annOnA.getByRole('button', { name: 'Vote up', pressed: false }).waitFor();
      for (const ann of [annOnA, annOnB]) await ann.getByLabel('2 votes').waitFor();
      const stored = await t.api<{ comment: { votes: number } }>('GET', `/api/v1/comments/${posted.body.comment._id}`);
      assert.equal(stored.body.comment.votes, 2);
    });
  });
}
