import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { afterRestart, killUnderLoad } from '../fixtures/crash-load.js';
import { checkedFetch } from '../fixtures/openapi.js';
import { demoHeaders, spawnServer } from '../fixtures/server-process.js';
import { storages } from '../fixtures/server.js';
import { withServerStorage } from '../fixtures/server-storage.js';
import { countVotes, pollInput, type PollView, type PollVoteView } from './poll-fixture.js';

const WORKERS = 40;
const VOTERS_PER_WORKER = 5;
const ACKS_BEFORE_KILL = 600;

/**
 * Kills a server with SIGKILL while votes and moves pour into one poll, restarts it on the same
 * data, and checks that every acknowledged vote is there (or was overtaken by the voter's one
 * request in flight at the kill), and that the counts agree with the votes.
 */
for (const storage of storages()) {
  describe(`poll votes across a crash on ${storage}`, () => {
    test('acknowledged votes survive SIGKILL; counts equal the stored votes after the restart', () =>
      withServerStorage(storage, 'poll-crash', async (env) => {
        const first = await spawnServer(env);
        const headers = demoHeaders(first);
        const created = await checkedFetch(`${first.url}/api/v1/comments`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ commenterName: 'Asker', comment: 'Which?', url: 'https://example.com/crash', urlId: '/crash', locale: 'en_us', poll: pollInput(4, { privacy: 1 }) }),
        });
        assert.equal(created.status, 200);
        const { comment } = (await created.json()) as { comment: { _id: string; poll: PollView } };
        const commentId = comment._id;
        const options = comment.poll.options.map((o) => o.id);

        const lastAck = new Map<string, string>();
        const inFlight = new Map<string, string>();
        await killUnderLoad(first, {
          workers: WORKERS,
          acksBeforeKill: ACKS_BEFORE_KILL,
          send: async (w, n) => {
            const k = n % VOTERS_PER_WORKER;
            const voter = `w${w}v${k}`;
            const optionId = options[(w + n * 3 + k) % options.length]!;
            inFlight.set(voter, optionId);
            const res = await checkedFetch(`${first.url}/api/v1/poll-votes`, {
              method: 'POST',
              headers,
              body: JSON.stringify({ commentId, optionId, anonUserId: voter, ip: `10.${w}.${k}.1` }),
            });
            const body = (await res.json()) as { pollVote?: PollVoteView };
            if (res.status !== 200) return false;
            assert.equal(body.pollVote?.optionId, optionId);
            lastAck.set(voter, optionId);
            inFlight.delete(voter);
            return true;
          },
        });

        await afterRestart(env, headers, async (get) => {
          const current = (await get<{ poll: PollView }>(`/api/v1/polls/${commentId}`)).poll;
          const votes = (await get<{ pollVotes: PollVoteView[] }>(`/api/v1/poll-votes?commentId=${commentId}`)).pollVotes;
          const byVoter = new Map<string, string>();
          for (const vote of votes) {
            assert.ok(!byVoter.has(vote.voterId), `${vote.voterId} holds two votes`);
            byVoter.set(vote.voterId, vote.optionId);
          }
          for (const [voter, option] of lastAck) {
            const stored = byVoter.get(voter);
            const pending = inFlight.get(voter);
            assert.ok(stored === option || (pending !== undefined && stored === pending), `${voter}: acknowledged ${option}, in flight ${pending}, stored ${stored}`);
          }
          for (const [voter, option] of byVoter) {
            assert.ok(lastAck.get(voter) === option || inFlight.get(voter) === option, `${voter} holds ${option}, which was never sent as its latest vote`);
          }
          const counted = countVotes(votes);
          for (const option of current.options) assert.equal(option.votes, counted.get(option.id) ?? 0);
          assert.equal(current.totalVotes, votes.length);
          assert.ok(votes.length >= lastAck.size);
        });
      }));
  });
}
