import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LIVE_EVENT_TYPES, type LiveEvent } from '../../actors/live/live-events.js';
import type { ProvisionedTenant } from '../../actors/tenant/provision.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { LiveClient, subscribe, subUrl } from '../unit/live/fixtures.js';

interface VoteEvent extends LiveEvent {
  vote: { _id: string; commentId: string; direction: number };
  counts: { commentId: string; votes: number; votesUp: number; votesDown: number };
}

for (const storage of storages()) {
  describe(`votes reach widgets live on ${storage}`, () => {
    let t: TestServer;
    let other: ProvisionedTenant;
    let tenantId: string;

    async function comment(urlId: string, as: { apiKey: string; tenantId: string } = t.tenant): Promise<string> {
      const r = await t.api<{ comment: { _id: string } }>('POST', '/api/v1/comments', {
        auth: 'none',
        headers: { 'x-api-key': as.apiKey, 'x-tenant-id': as.tenantId },
        body: { commenterName: 'Ann', comment: 'Hello', url: `https://blog.example.com${urlId}`, urlId, locale: 'en_us' },
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.comment._id;
    }

    async function vote(commentId: string, anonUserId: string, direction = 'up', as: { apiKey: string; tenantId: string } = t.tenant) {
      return t.api<{ voteId: string; code?: string }>('POST', '/api/v1/votes', {
        auth: 'none',
        headers: { 'x-api-key': as.apiKey, 'x-tenant-id': as.tenantId },
        query: { commentId, direction, anonUserId },
      });
    }

    async function nextVote(client: LiveClient): Promise<VoteEvent> {
      for (;;) {
        const event = (await client.next()) as VoteEvent;
        if (event.type === LIVE_EVENT_TYPES.newVote) return event;
      }
    }

    before(async () => {
      t = await startTestServer(storage);
      other = await t.addTenant();
      tenantId = t.tenant.tenantId;
    });
    after(async () => {
      await t.destroy();
    });

    test('an acknowledged vote reaches every subscriber of its page and no one else', async () => {
      const onPage = await comment('/votes/a');
      const elsewhere = await comment('/votes/b');
      const otherTenants = await comment('/votes/a', other);
      const readers = await Promise.all([1, 2, 3].map(() => subscribe(t, tenantId, '/votes/a')));
      const otherPage = await subscribe(t, tenantId, '/votes/b');
      const otherTenant = await subscribe(t, other.tenantId, '/votes/a');

      const r = await vote(onPage, 'reader-1');
      assert.equal(r.status, 200, JSON.stringify(r.body));
      for (const reader of readers) {
        const event = await nextVote(reader);
        assert.equal(event.vote._id, r.body.voteId);
        assert.equal(event.vote.commentId, onPage);
        assert.equal(event.counts.votesUp, 1);
        assert.equal(typeof event.timestamp, 'number');
      }
      // Their first vote event is their own page's: the first vote never reached them.
      const sentinel = await vote(elsewhere, 'reader-1');
      assert.equal((await nextVote(otherPage)).vote._id, sentinel.body.voteId);
      const sentinel2 = await vote(otherTenants, 'reader-1', 'up', other);
      assert.equal((await nextVote(otherTenant)).vote._id, sentinel2.body.voteId);
      for (const client of [...readers, otherPage, otherTenant]) client.close();
    });

    test('a widget subscribes with the ids its comments read handed out, and sees votes live', async () => {
      const commentId = await comment('/votes/widget');
      const read = await t.api<{ urlIdWS: string; tenantIdWS: string; userIdWS: string }>('GET', '/api/v1/comments', { query: { urlId: '/votes/widget', contextUserId: 'alice' } });
      assert.equal(read.status, 200);
      const likes = await t.api<{ urlIdWS: string }>('GET', `/page-reacts/v1/likes/${tenantId}`, { auth: 'none', query: { urlId: '/votes/widget' } });
      assert.equal(likes.body.urlIdWS, read.body.urlIdWS);
      const widget = await LiveClient.connect(subUrl(t, { urlId: read.body.urlIdWS, userIdWS: read.body.userIdWS, tenantIdWS: read.body.tenantIdWS }));
      const r = await vote(commentId, 'reader-w');
      assert.equal((await nextVote(widget)).vote._id, r.body.voteId);
      widget.close();
    });

    test('concurrent votes arrive in commit order, the same at every subscriber and in the event log; refused votes send nothing', async () => {
      const commentId = await comment('/votes/order');
      const readers = await Promise.all([1, 2, 3].map(() => subscribe(t, tenantId, '/votes/order')));
      const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => vote(commentId, `voter-${i}`)));
      assert.deepEqual(new Set(replies.map((r) => r.status)), new Set([200]));

      const streams: string[][] = [];
      for (const reader of readers) {
        const events: VoteEvent[] = [];
        for (let i = 0; i < 40; i++) events.push(await nextVote(reader));
        assert.deepEqual(events.map((e) => e.counts.votesUp), Array.from({ length: 40 }, (_, i) => i + 1), 'each event carries the counts of its own commit');
        assert.deepEqual(new Set(events.map((e) => e.vote._id)), new Set(replies.map((r) => r.body.voteId)));
        streams.push(events.map((e) => e.vote._id));
      }
      assert.deepEqual(streams[1], streams[0]);
      assert.deepEqual(streams[2], streams[0]);

      const duplicate = await vote(commentId, 'voter-0');
      assert.deepEqual([duplicate.status, duplicate.body.code], [409, 'duplicate']);
      const last = await vote(commentId, 'voter-last');
      for (const reader of readers) assert.equal((await nextVote(reader)).vote._id, last.body.voteId, 'the refused vote published nothing');

      const log = await t.api<{ events: { data: string }[] }>('GET', `/event-log/${tenantId}`, { auth: 'none', query: { urlId: '/votes/order', startTime: 0 } });
      const logged = log.body.events.map((entry) => JSON.parse(entry.data) as VoteEvent).filter((e) => e.type === LIVE_EVENT_TYPES.newVote);
      assert.deepEqual(logged.map((e) => e.vote._id), [...streams[0]!, last.body.voteId]);
      for (const reader of readers) reader.close();
    });

    test('a subscriber that was away catches up on the votes it missed, also after a restart', async () => {
      const commentId = await comment('/votes/away');
      const reader = await subscribe(t, tenantId, '/votes/away');
      await vote(commentId, 'early');
      const seen = await nextVote(reader);
      reader.close();
      await reader.closed;
      const missed = [];
      for (let i = 0; i < 5; i++) missed.push((await vote(commentId, `late-${i}`)).body.voteId);
      t = await t.restart();

      const back = await subscribe(t, tenantId, '/votes/away');
      const log = await t.api<{ events: { data: string }[] }>('GET', `/event-log/${tenantId}`, { auth: 'none', query: { urlId: '/votes/away', startTime: seen.timestamp } });
      const caughtUp = log.body.events.map((entry) => JSON.parse(entry.data) as VoteEvent).filter((e) => e.type === LIVE_EVENT_TYPES.newVote);
      assert.deepEqual(caughtUp.map((e) => e.vote._id).filter((id) => id !== seen.vote._id), missed);
      const now = await vote(commentId, 'after-restart');
      assert.equal((await nextVote(back)).vote._id, now.body.voteId);
      back.close();
    });
  });
}
