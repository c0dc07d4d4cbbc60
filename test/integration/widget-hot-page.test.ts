/**
 * The widget on a hot page, where the server folds vote frames into `cvc` frames
 * (http/live/vote-coalescer.ts): votes still show live on other readers, and a reader's own vote
 * is not counted twice when its window's frame arrives.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WidgetScenario } from '../fixtures/widget-suite.js';

/** Any vote with a subscriber counts as hot: every vote frame is folded into `cvc`. */
class HotPage extends WidgetScenario {
  protected override serverOptions() {
    return { ...super.serverOptions(), liveVoteCoalesce: 1, liveVoteWindowMs: 50 };
  }
}

HotPage.describe(`the widget on a page whose votes are folded`, (s) => {
  test('votes reach the other reader live through cvc frames, and the voter sees its own vote once', async () => {
    const urlId = 'hot-1';
    const posted = await s.t.api<{ comment: { _id: string } }>('POST', '/api/v1/comments', {
      body: { commenterName: 'Ann', comment: 'A hot take', url: `https://blog.example.com/${urlId}`, urlId, locale: 'en_us' },
    });
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    const url = s.embed(urlId);
    const open = () => s.open(url);
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
      const r = await s.t.api('POST', '/api/v1/votes', { query: { commentId: posted.body.comment._id, direction: 'up', anonUserId: voter } });
      assert.equal(r.status, 200);
    }
    for (const ann of [annOnA, annOnB]) await ann.getByLabel('3 votes').waitFor();
    assert.ok(frames.some((f) => f.includes('"type":"cvc"')), 'B received cvc frames');
    assert.ok(!frames.some((f) => f.includes('"type":"new-vote"')), 'no single vote frames on a hot page');

    // A withdraws its vote: 2 on both, never 1 (the delta applied over A's own change).
    await annOnA.getByRole('button', { name: 'Vote up' }).click();
    await annOnA.getByRole('button', { name: 'Vote up', pressed: false }).waitFor();
    for (const ann of [annOnA, annOnB]) await ann.getByLabel('2 votes').waitFor();
    const stored = await s.t.api<{ comment: { votes: number } }>('GET', `/api/v1/comments/${posted.body.comment._id}`);
    assert.equal(stored.body.comment.votes, 2);
  });
});
