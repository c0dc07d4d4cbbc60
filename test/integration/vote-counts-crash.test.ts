import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { demoHeaders, spawnServer } from '../fixtures/server-process.js';
import { storages } from '../fixtures/server.js';
import { withServerStorage } from '../fixtures/server-storage.js';
import { checkedFetch } from '../fixtures/openapi.js';

const VOTES = 30;

/**
 * A page writes its comments' vote counts behind the votes. Kills the server with SIGKILL right
 * after a burst of votes, before those counts are written, and checks that a read across the
 * tenant (which takes comments from storage, not from the page) shows every acknowledged vote
 * after the restart.
 */
for (const storage of storages()) {
  describe(`vote counts across a crash on ${storage}`, () => {
    test('a tenant-wide read after SIGKILL and restart counts every acknowledged vote', () =>
      withServerStorage(storage, 'vote-counts-crash', async (env) => {
        const first = await spawnServer(env);
        const headers = demoHeaders(first);
        const created = await checkedFetch(`${first.url}/api/v1/comments`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ commenterName: 'Poster', comment: 'Vote on me #crashcounts', url: 'https://example.com/crash-votes', urlId: '/crash-votes', locale: 'en_us' }),
        });
        assert.equal(created.status, 200);
        const commentId = ((await created.json()) as { comment: { _id: string } }).comment._id;
        const statuses = await Promise.all(
          Array.from({ length: VOTES }, (_, i) =>
            checkedFetch(`${first.url}/api/v1/votes?commentId=${commentId}&direction=${i % 3 === 0 ? 'down' : 'up'}&userId=crash-voter-${i}`, { method: 'POST', headers }).then((r) => r.status),
          ),
        );
        assert.deepEqual(statuses, Array(VOTES).fill(200));
        await first.kill('SIGKILL');

        const second = await spawnServer(env);
        try {
          const res = await checkedFetch(`${second.url}/api/v1/comments?hashTag=crashcounts`, { headers });
          assert.equal(res.status, 200);
          const [found] = ((await res.json()) as { comments: { _id: string; votes: number; votesUp: number; votesDown: number }[] }).comments;
          assert.equal(found?._id, commentId);
          const down = Math.ceil(VOTES / 3);
          assert.deepEqual({ votes: found.votes, votesUp: found.votesUp, votesDown: found.votesDown }, { votes: VOTES - 2 * down, votesUp: VOTES - down, votesDown: down });
        } finally {
          await second.kill('SIGTERM');
        }
      }));
  });
}
