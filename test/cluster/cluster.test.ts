/**
 * Cluster mode with real processes: nodes on one loopback port, one nats-server, one MongoDB
 * (FerretDB). Lease times are short (3 s) so failures are taken over quickly; nothing here
 * depends on how fast anything is, only on what ends up stored and delivered.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { POLL_COLLECTIONS, type PollView } from '../../actors/poll/poll-model.js';
import { type LiveEvent } from '../../actors/live/live-events.js';
import { startTestCluster } from '../fixtures/cluster.js';
import { clusterTestsEnabled } from '../fixtures/nats.js';
import { LiveClient } from '../unit/live/fixtures.js';
import { assertNoDuplicateActivation, assertVotesKept, call, comment, counts, logsOf, pool, untilServing, vote } from './helpers.js';

const enabled = clusterTestsEnabled();

describe('cluster mode: three nodes on one port', { skip: !enabled }, () => {
  test('concurrent votes and poll votes end with exact counts; every subscriber gets every event of its page once, in order', async () => {
    const c = await startTestCluster({ nodes: 3 });
    try {
      const urlId = '/cluster/votes';
      const commentId = await comment(c, urlId);
      const page = await call<{ urlIdWS: string; tenantIdWS: string }>(c, 'GET', `/api/v1/comments?urlId=${encodeURIComponent(urlId)}`);
      assert.equal(page.status, 200);
      const subUrl = `ws://127.0.0.1:${c.port}/sub?urlId=${encodeURIComponent(page.body.urlIdWS)}&tenantIdWS=${encodeURIComponent(page.body.tenantIdWS)}`;
      const readers = await Promise.all(Array.from({ length: 6 }, () => LiveClient.connect(subUrl)));

      const outcomes = await Promise.all(Array.from({ length: 90 }, (_, i) => vote(c, commentId, `voter-${i}`, i % 3 === 2 ? 'down' : 'up')));
      assert.deepEqual(outcomes.filter((o) => o.status !== 200), [], 'every vote is accepted');
      assert.deepEqual(await counts(c, commentId), { votesUp: 60, votesDown: 30 });
      await assertVotesKept(c, [commentId], outcomes);

      const voteIds = new Set(outcomes.map((o) => o.voteId!));
      const sequences = await Promise.all(
        readers.map(async (reader) => {
          const seen: LiveEvent[] = [];
          while (seen.length < 90) {
            const event = await reader.next();
            if (event.type === 'new-vote') seen.push(event);
          }
          return seen;
        }),
      );
      for (const seen of sequences) {
        const ids = seen.map((e) => (e['vote'] as { _id: string })._id);
        assert.equal(new Set(ids).size, 90, 'no vote event twice');
        assert.deepEqual(new Set(ids), voteIds, 'every acknowledged vote, and nothing else');
        for (let i = 1; i < seen.length; i++) assert.ok(seen[i]!.timestamp >= seen[i - 1]!.timestamp, 'timestamps never go back');
        assert.deepEqual(ids, sequences[0]!.map((e) => (e['vote'] as { _id: string })._id), 'every subscriber sees the same order');
      }
      for (const reader of readers) reader.close();

      // A poll: 120 voters each vote, then move, one request after the other, all at once.
      const created = await call<{ comment: { _id: string; poll: PollView } }>(c, 'POST', '/api/v1/comments', {
        commenterName: 'Asker',
        comment: 'Which one?',
        url: 'https://example.com/cluster/poll',
        urlId: '/cluster/poll',
        locale: 'en_us',
        poll: { question: 'Which?', options: [{ label: 'A' }, { label: 'B' }, { label: 'C' }] },
      });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const pollComment = created.body.comment._id;
      const options = created.body.comment.poll.options.map((o) => o.id);
      const expected = new Map<string, number>(options.map((o) => [o, 0]));
      await Promise.all(
        Array.from({ length: 120 }, async (_, i) => {
          const body = (optionId: string) => ({ commentId: pollComment, optionId, anonUserId: `poller-${i}`, ip: `10.1.${i >> 8}.${i & 255}` });
          const first = await call(c, 'POST', '/api/v1/poll-votes', body(options[i % 3]!));
          assert.equal(first.status, 200, JSON.stringify(first.body));
          const last = options[(i * 7 + 1) % 3]!;
          const second = await call(c, 'POST', '/api/v1/poll-votes', body(last));
          assert.equal(second.status, 200, JSON.stringify(second.body));
          expected.set(last, expected.get(last)! + 1);
        }),
      );
      const poll = await call<{ poll: PollView }>(c, 'GET', `/api/v1/polls/${pollComment}`);
      assert.equal(poll.status, 200);
      assert.deepEqual(new Map(poll.body.poll.options.map((o) => [o.id, o.votes])), expected);
      const store = await c.store();
      const stored = await store.find<{ _id: string; optionId: string; voterId: string }>(POLL_COLLECTIONS.pollVotes, { commentId: pollComment });
      assert.equal(stored.length, 120, 'one stored vote per voter');
      assert.equal(new Set(stored.map((v) => v.voterId)).size, 120);

      assert.ok(new Set(logsOf(c, 'actor-activated').map((l) => l.node)).size >= 2, 'actors live on more than one node');
      assertNoDuplicateActivation(c);
    } finally {
      await c.destroy();
    }
  });

  test('SIGKILL of a node under write load: every acknowledged vote is stored afterwards', async () => {
    const c = await startTestCluster({ nodes: 3 });
    try {
      const commentIds = await Promise.all(Array.from({ length: 8 }, (_, i) => comment(c, `/cluster/kill/${i}`)));
      let sent = 0;
      const killed = new Promise<void>((resolve) => {
        const timer = setInterval(() => {
          if (sent < 150) return;
          clearInterval(timer);
          void c.nodes[1]!.signal('SIGKILL').then(resolve);
        }, 10);
      });
      const outcomes = await pool(400, 24, (i) => {
        sent++;
        return vote(c, commentIds[i % 8]!, `killer-${i}`, i % 2 === 0 ? 'up' : 'down');
      });
      await killed;
      await untilServing(c, 60_000);
      const acknowledged = await assertVotesKept(c, commentIds, outcomes);
      assert.ok(acknowledged >= 300, `most votes are acknowledged (${acknowledged})`);
      for (const o of outcomes) if (o.status !== 200) assert.ok(o.status === 0 || o.status === 503, `a vote failed with ${o.status} ${o.code}`);
      assertNoDuplicateActivation(c);
    } finally {
      await c.destroy();
    }
  });
});
