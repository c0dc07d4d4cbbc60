import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LIVE_EVENT_TYPES, type LiveEvent } from '../../actors/live/live-events.js';
import { eventually } from '../fixtures/eventually.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { type LiveClient, subscribe } from '../unit/live/fixtures.js';

interface VoteFrame extends LiveEvent {
  vote?: { commentId: string; direction: number };
}

/** Net votes per comment as a live client sums them: vote frames one by one, `cvc` frames by their changes. */
function liveCounts(frames: readonly VoteFrame[]): Map<string, number> {
  const out = new Map<string, number>();
  const add = (id: string, delta: number) => out.set(id, (out.get(id) ?? 0) + delta);
  for (const f of frames) {
    if (f.type === LIVE_EVENT_TYPES.commentVoteCount) for (const [id, delta] of Object.entries(f.changes ?? {})) add(id, delta);
    else if (f.type === LIVE_EVENT_TYPES.newVote) add(f.vote!.commentId, Math.sign(f.vote!.direction));
    else if (f.type === LIVE_EVENT_TYPES.deletedVote) add(f.vote!.commentId, -Math.sign(f.vote!.direction));
  }
  return out;
}

function frames(client: LiveClient): VoteFrame[] {
  return client.messages.map((m) => JSON.parse(m) as VoteFrame);
}

for (const storage of storages()) {
  describe(`vote frames of a hot page are folded into cvc frames on ${storage}`, () => {
    let t: TestServer;

    before(async () => {
      // Any vote with a subscriber counts as hot: every vote frame is folded.
      t = await startTestServer(storage, { liveVoteCoalesce: 1, liveVoteWindowMs: 30 });
    });
    after(async () => {
      await t.destroy();
    });

    async function comment(urlId: string, isLive = false): Promise<string> {
      const r = await t.api<{ comment: { _id: string } }>('POST', '/api/v1/comments', { query: { isLive }, body: { commenterName: 'Ann', comment: 'Hello', url: `https://blog.example.com${urlId}`, urlId, locale: 'en_us' } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.comment._id;
    }

    /** Each comment's counts as the newest `cvc` frame that names it gives them. */
    function lastCounts(seen: readonly VoteFrame[]): Map<string, unknown> {
      const out = new Map<string, unknown>();
      for (const f of seen) if (f.type === LIVE_EVENT_TYPES.commentVoteCount) for (const [id, c] of Object.entries((f['counts'] ?? {}) as Record<string, unknown>)) out.set(id, c);
      return out;
    }

    async function storedCounts(ids: readonly string[]): Promise<Map<string, unknown>> {
      const out = new Map<string, unknown>();
      for (const id of ids) {
        const r = await t.api<{ comment: { votes: number; votesUp: number; votesDown: number } }>('GET', `/api/v1/comments/${id}`);
        assert.equal(r.status, 200);
        out.set(id, { votes: r.body.comment.votes, votesUp: r.body.comment.votesUp ?? 0, votesDown: r.body.comment.votesDown ?? 0 });
      }
      return out;
    }

    async function storedVotes(ids: readonly string[]): Promise<Map<string, number>> {
      const out = new Map<string, number>();
      for (const id of ids) {
        const r = await t.api<{ comment: { votes: number } }>('GET', `/api/v1/comments/${id}`);
        assert.equal(r.status, 200);
        out.set(id, r.body.comment.votes);
      }
      return out;
    }

    function sameCounts(live: Map<string, number>, stored: Map<string, number>): boolean {
      for (const [id, votes] of stored) if ((live.get(id) ?? 0) !== votes) return false;
      for (const [id, votes] of live) if (votes !== 0 && stored.get(id) === undefined) return false;
      return true;
    }

    test('concurrent votes: every subscriber sums the cvc frames to the stored counts; the event log stays exact', async () => {
      const urlId = '/hot/votes';
      const ids = await Promise.all([0, 1, 2, 3, 4].map(() => comment(urlId)));
      const readers = await Promise.all([1, 2, 3].map(() => subscribe(t, t.tenant.tenantId, urlId)));
      const casts: Promise<unknown>[] = [];
      for (let i = 0; i < 60; i++) {
        const commentId = ids[i % ids.length]!;
        const direction = i % 3 === 0 ? 'down' : 'up';
        casts.push(t.api('POST', '/api/v1/votes', { query: { commentId, direction, anonUserId: `voter-${i}` } }));
      }
      // Some voters change their minds: the old vote is deleted (deleted-vote), the new one applied.
      for (let i = 0; i < 60; i += 7) casts.push(t.api('POST', '/api/v1/votes', { query: { commentId: ids[i % ids.length]!, direction: 'up', anonUserId: `voter-${i}-b` } }));
      const answers = (await Promise.all(casts)) as { status: number }[];
      for (const a of answers) assert.equal(a.status, 200);
      const flip = ids[0]!;
      const first = await t.api<{ voteId: string }>('POST', '/api/v1/votes', { query: { commentId: flip, direction: 'up', anonUserId: 'flipper' } });
      assert.equal(first.status, 200);
      const flipped = await t.api('POST', '/api/v1/votes', { query: { commentId: flip, direction: 'down', anonUserId: 'flipper' } });
      assert.equal(flipped.status, 200);

      const stored = await storedVotes(ids);
      const counts = await storedCounts(ids);
      for (const reader of readers) {
        await eventually(async () => sameCounts(liveCounts(frames(reader)), stored), 20_000);
        // The counts the frames carry end where storage is, for a client that sets them.
        assert.deepEqual(lastCounts(frames(reader)), counts);
        const seen = frames(reader);
        assert.ok(seen.some((f) => f.type === LIVE_EVENT_TYPES.commentVoteCount), 'cvc frames');
        assert.ok(!seen.some((f) => f.type === LIVE_EVENT_TYPES.newVote || f.type === LIVE_EVENT_TYPES.deletedVote), 'no single vote frames on a hot page');
        for (const f of seen) assert.equal(typeof f.timestamp, 'number');
      }
      // A client catching up from the event log sees every vote event, with the same counts.
      await eventually(async () => {
        const log = await t.api<{ events: { data: string }[] }>('GET', `/event-log/${t.tenant.tenantId}`, { auth: 'none', query: { urlId, startTime: 0 } });
        const events = log.body.events.map((e) => JSON.parse(e.data) as VoteFrame);
        if (events.some((e) => e.type === LIVE_EVENT_TYPES.commentVoteCount)) throw new Error('the log holds single vote events only');
        return sameCounts(liveCounts(events), stored);
      }, 20_000);
      for (const reader of readers) reader.close();
    });

    test('other events keep their order after the votes before them', async () => {
      const urlId = '/hot/order';
      const id = await comment(urlId);
      const reader = await subscribe(t, t.tenant.tenantId, urlId);
      const v = await t.api('POST', '/api/v1/votes', { query: { commentId: id, direction: 'up', anonUserId: 'first' } });
      assert.equal(v.status, 200);
      const next = await comment(urlId, true);
      await eventually(async () => frames(reader).some((f) => f.type === LIVE_EVENT_TYPES.newComment), 20_000);
      const seen = frames(reader).filter((f) => f.type !== LIVE_EVENT_TYPES.updatedComment);
      const cvc = seen.findIndex((f) => f.type === LIVE_EVENT_TYPES.commentVoteCount);
      const created = seen.findIndex((f) => f.type === LIVE_EVENT_TYPES.newComment && (f.comment as { _id: string })._id === next);
      assert.ok(cvc >= 0 && cvc < created, JSON.stringify(seen.map((f) => f.type)));
      assert.deepEqual(seen[cvc]!.changes, { [id]: 1 });
      assert.deepEqual(seen[cvc]!['counts'], { [id]: { votes: 1, votesUp: 1, votesDown: 0 } });
      reader.close();
    });
  });
}
