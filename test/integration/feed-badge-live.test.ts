/**
 * Feed and badge events reach real websocket subscribers: the feed's channel (the urlIdWS and
 * tenantIdWS the public list hands out) carries every post change and reaction; a page's
 * channel carries its comments' new badges.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LiveEvent } from '../../actors/live/live-events.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { LiveClient, subscribe, subUrl } from '../unit/live/fixtures.js';
import { addBadge, commentBy } from './badge-helpers.js';
import { pub, secureSso } from './feed-helpers.js';

/** The next event of one of `types`, skipping others. */
async function nextOf(client: LiveClient, ...types: string[]): Promise<LiveEvent> {
  for (;;) {
    const event = await client.next();
    if (types.includes(event.type)) return event;
  }
}

for (const storage of storages()) {
  describe(`feed and badge events live on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage);
    });
    after(async () => {
      await t.destroy();
    });

    test('the feed channel the public list names carries new, updated and deleted posts and reactions, without author ids', async () => {
      const tenantId = t.tenant.tenantId;
      const list = await pub<{ urlIdWS: string; tenantIdWS: string }>(t, 'GET', `/feed-posts/${tenantId}`);
      const readers = await Promise.all([1, 2].map(() => LiveClient.connect(subUrl(t, { urlId: list.body.urlIdWS, tenantIdWS: list.body.tenantIdWS }))));
      const sso = secureSso(t.tenant.apiSecret, { id: 'live-writer', username: 'lw' });
      const made = await pub<{ feedPost: { _id: string } }>(t, 'POST', `/feed-posts/${tenantId}`, { query: { sso, broadcastId: 'b-1' }, body: { title: 'Live' } });
      const postId = made.body.feedPost._id;
      await pub(t, 'POST', `/feed-posts/${tenantId}/react/${postId}`, { query: { sso }, body: { reactType: 'up' } });
      await pub(t, 'PUT', `/feed-posts/${tenantId}/${postId}`, { query: { sso }, body: { title: 'Live 2' } });
      await pub(t, 'POST', `/feed-posts/${tenantId}/react/${postId}`, { query: { sso, isUndo: true }, body: { reactType: 'up' } });
      await pub(t, 'DELETE', `/feed-posts/${tenantId}/${postId}`, { query: { sso } });
      for (const reader of readers) {
        const created = await nextOf(reader, 'new-feed-post');
        assert.deepEqual([(created['feedPost'] as { _id: string; title: string })._id, (created['feedPost'] as { title: string }).title, created.broadcastId], [postId, 'Live', 'b-1']);
        assert.equal((created['feedPost'] as Record<string, unknown>)['fromUserId'], undefined);
        assert.deepEqual((await nextOf(reader, 'fr'))['feedPostReact'], { tenantId, postId, reactType: 'up', count: 1 });
        assert.equal(((await nextOf(reader, 'updated-feed-post'))['feedPost'] as { title: string }).title, 'Live 2');
        assert.deepEqual((await nextOf(reader, 'dfr'))['feedPostReact'], { tenantId, postId, reactType: 'up', count: 0 });
        assert.equal((await nextOf(reader, 'deleted-feed-post'))['postId'], postId);
        reader.close();
      }
    });

    test("a badge awarded reaches the readers of the author's pages: each comment updated with it, then update-badges", async () => {
      await addBadge(t, { type: 0, threshold: 2, displayLabel: 'Regular' });
      const first = await commentBy(t, 'lia', '/live-badges');
      const reader = await subscribe(t, t.tenant.tenantId, '/live-badges');
      await commentBy(t, 'lia', '/live-badges-elsewhere');
      const updated = await nextOf(reader, 'updated-comment');
      const comment = updated.comment as { _id: string; badges: { displayLabel: string }[]; userId?: string };
      assert.deepEqual([comment._id, comment.badges.map((b) => b.displayLabel), comment.userId], [first, ['Regular'], undefined]);
      const badges = await nextOf(reader, 'update-badges');
      assert.deepEqual([badges['commentIds'], (badges['badges'] as { displayLabel: string }[]).map((b) => b.displayLabel), badges['userId']], [[first], ['Regular'], undefined]);
      reader.close();
    });
  });
}
