import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pageTopic } from '../../actors/live/live-events.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { getComment, inParallel, listComments, outcome, postComment, recordEvents } from './page-helpers.js';

interface VoteLists {
  appliedAuthorizedVotes: { id: string; commentId: string; userId: string; direction: string }[];
  appliedAnonymousVotes: unknown[];
  pendingVotes: unknown[];
}

/** Counts of the votes stored for a comment, straight from storage. */
async function storedCounts(t: TestServer, commentId: string): Promise<{ votes: number; votesUp: number; votesDown: number; voters: number; docs: number }> {
  const docs = await t.server.services.store.find<{ _id: string; direction: number; voterKey: string } & Record<string, unknown>>('votes', { tenantId: t.tenant.tenantId, commentId });
  const up = docs.filter((d) => d.direction > 0).length;
  const down = docs.filter((d) => d.direction < 0).length;
  return { votes: up - down, votesUp: up, votesDown: down, voters: new Set(docs.map((d) => d.voterKey)).size, docs: docs.length };
}

for (const storage of storages()) {
  describe(`votes on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage);
    });
    after(async () => {
      await t.destroy();
    });

    test('vote, duplicate, replace by the other direction, delete; counts follow; events are live', async () => {
      const c = await postComment(t, '/votes-a', { comment: 'vote on me' });
      const rec = recordEvents(t);
      const up = await t.api<{ voteId: string; isVerified: boolean }>('POST', '/api/v1/votes', { query: { commentId: c._id, direction: 'up', userId: 'u1' } });
      assert.deepEqual([up.status, up.body.isVerified, typeof up.body.voteId], [200, true, 'string']);
      assert.deepEqual(outcome(await t.api('POST', '/api/v1/votes', { query: { commentId: c._id, direction: 'up', userId: 'u1' } })), [409, 'duplicate']);
      // In the body works too, and an anonymous voter is a voter of its own.
      const anon = await t.api<{ voteId: string }>('POST', '/api/v1/votes', { body: { commentId: c._id, direction: 'up', anonUserId: 'anon-1' } });
      assert.equal(anon.status, 200);
      const down = await t.api<{ voteId: string }>('POST', '/api/v1/votes', { query: { commentId: c._id, direction: 'down', userId: 'u1' } });
      assert.equal(down.status, 200);
      assert.notEqual(down.body.voteId, up.body.voteId);
      let now = await getComment(t, c._id);
      assert.deepEqual([now.votes, now.votesUp, now.votesDown], [0, 1, 1]);
      assert.deepEqual(outcome(await t.api('DELETE', `/api/v1/votes/${up.body.voteId}`)), [404, 'not-found']);
      const del = await t.api('DELETE', `/api/v1/votes/${down.body.voteId}`);
      assert.deepEqual([del.status, del.body['wasPendingVote']], [200, false]);
      now = await getComment(t, c._id);
      assert.deepEqual([now.votes, now.votesUp, now.votesDown], [1, 1, 0]);
      rec.stop();
      const topic = pageTopic(t.tenant.tenantId, '/votes-a');
      const seen = rec.events.filter((e) => e.topic === topic).map((e) => [e.event['type'], (e.event['vote'] as { _id: string; direction: number })._id, (e.event['counts'] as { votes: number }).votes]);
      assert.deepEqual(seen, [
        ['new-vote', up.body.voteId, 1],
        ['new-vote', anon.body.voteId, 2],
        ['deleted-vote', up.body.voteId, 1],
        ['new-vote', down.body.voteId, 0],
        ['deleted-vote', down.body.voteId, 1],
      ]);
      const vote = rec.events[0]!.event['vote'] as Record<string, unknown>;
      assert.deepEqual(Object.keys(vote).sort(), ['_id', 'commentId', 'createdAt', 'direction', 'tenantId', 'urlId', 'urlIdRaw', 'userId', 'verificationId']);
      assert.equal(typeof vote['createdAt'], 'number');
    });

    test('vote lists: all three kinds, and one user\'s', async () => {
      const a = await postComment(t, '/votes-lists', { comment: 'a' });
      const b = await postComment(t, '/votes-lists', { comment: 'b' });
      await t.api('POST', '/api/v1/votes', { query: { commentId: a._id, direction: 'up', userId: 'lu1' } });
      await t.api('POST', '/api/v1/votes', { query: { commentId: b._id, direction: 'down', userId: 'lu1' } });
      await t.api('POST', '/api/v1/votes', { query: { commentId: b._id, direction: 'up', anonUserId: 'la1' } });
      const all = await t.api<VoteLists>('GET', '/api/v1/votes', { query: { urlId: '/votes-lists' } });
      assert.equal(all.body.appliedAuthorizedVotes.length, 3);
      assert.deepEqual([all.body.appliedAnonymousVotes, all.body.pendingVotes], [[], []]);
      const mine = await t.api<VoteLists>('GET', '/api/v1/votes/for-user', { query: { urlId: '/votes-lists', userId: 'lu1' } });
      assert.deepEqual(mine.body.appliedAuthorizedVotes.map((v) => [v.commentId, v.direction, v.userId]), [[a._id, 'up', 'lu1'], [b._id, 'down', 'lu1']]);
      const anon = await t.api<VoteLists>('GET', '/api/v1/votes/for-user', { query: { urlId: '/votes-lists', anonUserId: 'la1' } });
      assert.equal(anon.body.appliedAuthorizedVotes.length, 1);
      assert.deepEqual(outcome(await t.api('GET', '/api/v1/votes/for-user', { query: { urlId: '/votes-lists' } })), [400, 'missing-user-id']);
      assert.deepEqual(outcome(await t.api('GET', '/api/v1/votes')), [400, 'missing-url-id']);
    });

    test('refusals: codes, settings, other tenants; nothing changes', async () => {
      const c = await postComment(t, '/votes-refused', { comment: 'c' });
      const cases: [Record<string, string>, number, string][] = [
        [{ direction: 'up', userId: 'x' }, 400, 'missing-comment-id'],
        [{ commentId: c._id, direction: 'sideways', userId: 'x' }, 400, 'invalid-direction'],
        [{ commentId: c._id, userId: 'x' }, 400, 'invalid-direction'],
        [{ commentId: c._id, direction: 'up' }, 400, 'missing-user-id'],
        [{ commentId: '0123456789abcdef01234567', direction: 'up', userId: 'x' }, 404, 'invalid-comment-id'],
      ];
      for (const [query, status, code] of cases) assert.deepEqual(outcome(await t.api('POST', '/api/v1/votes', { query })), [status, code], JSON.stringify(query));
      await t.api('PATCH', '/api/v1/widget-config', { query: { urlId: '/votes-refused' }, body: { allowAnonVotes: false } });
      assert.deepEqual(outcome(await t.api('POST', '/api/v1/votes', { query: { commentId: c._id, direction: 'up', anonUserId: 'a' } })), [403, 'login-required']);
      const ok = await t.api<{ voteId: string }>('POST', '/api/v1/votes', { query: { commentId: c._id, direction: 'up', userId: 'keeper' } });
      await t.api('PATCH', '/api/v1/widget-config', { query: { urlId: '/votes-refused' }, body: { disableVoting: true } });
      assert.deepEqual(outcome(await t.api('POST', '/api/v1/votes', { query: { commentId: c._id, direction: 'up', userId: 'y' } })), [403, 'voting-disabled']);
      assert.deepEqual(outcome(await t.api('DELETE', `/api/v1/votes/${ok.body.voteId}`)), [403, 'voting-disabled']);
      await t.api('PATCH', '/api/v1/widget-config', { query: { urlId: '/votes-refused' }, body: { disableVoting: false } });
      await t.api('PATCH', '/api/v1/widget-config', { body: { disableVoting: true } });
      assert.deepEqual(outcome(await t.api('POST', '/api/v1/votes', { query: { commentId: c._id, direction: 'up', userId: 'y' } })), [200, undefined], 'the page overrides the tenant');
      await t.api('PATCH', '/api/v1/widget-config', { body: { disableVoting: false } });
      const other = await t.addTenant();
      const as = { 'x-api-key': other.apiKey, 'x-tenant-id': other.tenantId };
      assert.deepEqual(outcome(await t.api('DELETE', `/api/v1/votes/${ok.body.voteId}`, { auth: 'none', headers: as })), [404, 'not-found']);
      const lists = await t.api<VoteLists>('GET', '/api/v1/votes', { auth: 'none', headers: as, query: { urlId: '/votes-refused' } });
      assert.deepEqual(lists.body.appliedAuthorizedVotes, []);
      const now = await getComment(t, c._id);
      assert.deepEqual([now.votesUp, now.votesDown], [2, 0]);
      assert.deepEqual(await storedCounts(t, c._id), { votes: 2, votesUp: 2, votesDown: 0, voters: 2, docs: 2 });
    });

    test('1,000 concurrent votes, un-votes and re-votes from 200 users: counts equal the stored votes, also after a restart', async () => {
      const c = await postComment(t, '/votes-hot', { comment: 'hot #hotvotes' });
      const users = Array.from({ length: 200 }, (_, i) => `hot-user-${i}`);
      const lastVote = new Map<string, string>();
      // A fixed pseudo-random mix, so a failure can be replayed.
      let seed = 12345;
      const random = (n: number) => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return seed % n;
      };
      const plan = Array.from({ length: 1000 }, () => ({ user: users[random(users.length)]!, action: random(5) }));
      const statuses = await inParallel(1000, 64, async (i) => {
        const { user, action } = plan[i]!;
        if (action === 4 && lastVote.has(user)) {
          const r = await t.api('DELETE', `/api/v1/votes/${lastVote.get(user)!}`);
          return r.status;
        }
        const r = await t.api<{ voteId: string }>('POST', '/api/v1/votes', { query: { commentId: c._id, direction: action % 2 === 0 ? 'up' : 'down', userId: user } });
        if (r.status === 200) lastVote.set(user, r.body.voteId);
        return r.status;
      });
      assert.ok(statuses.every((s) => s === 200 || s === 409 || s === 404), String(statuses.find((s) => ![200, 404, 409].includes(s))));
      assert.ok(statuses.filter((s) => s === 200).length > 400, JSON.stringify(statuses.filter((s) => s === 200).length));
      const check = async () => {
        const stored = await storedCounts(t, c._id);
        assert.equal(stored.voters, stored.docs, 'at most one vote per user');
        const expected = { votes: stored.votes, votesUp: stored.votesUp, votesDown: stored.votesDown };
        // Across the tenant first: that read comes from storage, not from the page in memory.
        const [found] = await listComments(t, { hashTag: ['hotvotes'] });
        assert.deepEqual({ votes: found!.votes, votesUp: found!.votesUp, votesDown: found!.votesDown }, expected, 'tenant-wide counts');
        const now = await getComment(t, c._id);
        assert.deepEqual({ votes: now.votes, votesUp: now.votesUp, votesDown: now.votesDown }, expected);
        const lists = await t.api<VoteLists>('GET', '/api/v1/votes', { query: { urlId: '/votes-hot' } });
        assert.equal(lists.body.appliedAuthorizedVotes.length, stored.docs);
        return stored;
      };
      const first = await check();
      t = await t.restart();
      assert.deepEqual(await check(), first);
    });

    test('a read across the tenant sees every acknowledged vote at once, and sorts by it', async () => {
      const quiet = await postComment(t, '/votes-wide-1', { comment: 'quiet #widevotes', date: Date.UTC(2024, 0, 1) });
      const loud = await postComment(t, '/votes-wide-2', { comment: 'loud #widevotes', date: Date.UTC(2024, 0, 2) });
      await t.api('POST', '/api/v1/votes', { query: { commentId: quiet._id, direction: 'down', userId: 'wide-0' } });
      for (let i = 1; i <= 3; i++) await t.api('POST', '/api/v1/votes', { query: { commentId: loud._id, direction: 'up', userId: `wide-${i}` } });
      const found = await listComments(t, { hashTag: ['widevotes'], direction: 'MR' });
      assert.deepEqual(
        found.map((c) => [c._id, c.votes, c.votesUp, c.votesDown]),
        [
          [loud._id, 3, 3, 0],
          [quiet._id, -1, 0, 1],
        ],
      );
    });
  });
}
