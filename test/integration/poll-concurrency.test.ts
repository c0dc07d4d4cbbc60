import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { POLL_COLLECTIONS } from '../../actors/poll/poll-model.js';
import { COLLECTIONS } from '../../storage/collections.js';
import { createStore } from '../../storage/create-store.js';
import { StorageUnavailableError } from '../../storage/errors.js';
import type { WriteOp } from '../../storage/store.js';
import { InstrumentedStore } from '../fixtures/instrumented-store.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { addUser, countVotes, pollInput, type PollView, type PollVoteView, seed, storedPoll, storedVotes } from './poll-fixture.js';
import { checkedFetch } from '../fixtures/openapi.js';

type VoteBody = { pollVote: PollVoteView; poll: PollView };

/** Fails the next commits that write poll votes, as an unreachable database would (nothing applied). */
class FailingVoteCommits extends InstrumentedStore {
  failVoteCommits = 0;

  override async commit(ops: readonly WriteOp[]): Promise<void> {
    if (this.failVoteCommits > 0 && ops.some((op) => op.collection === POLL_COLLECTIONS.pollVotes)) {
      this.failVoteCommits--;
      throw new StorageUnavailableError('injected failure of a poll vote batch');
    }
    return super.commit(ops);
  }
}

interface Voter {
  readonly name: string;
  readonly body: { userId: string } | { anonUserId: string; ip: string };
}

function voters(count: number, prefix: string): Voter[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `${prefix}${i}`,
    // Half logged in, half anonymous, each anonymous voter from an address of its own.
    body: i % 2 === 0 ? { userId: `${prefix}${i}` } : { anonUserId: `${prefix}${i}`, ip: `10.${i >> 8}.${i & 255}.7` },
  }));
}

/** Checks that counts, votes and voters agree, through the API and in storage; returns the stored option per voter. */
async function assertConsistent(t: TestServer, commentId: string): Promise<Map<string, string>> {
  const poll = (await t.api<{ poll: PollView }>('GET', `/api/v1/polls/${commentId}`)).body.poll;
  const stored = await storedVotes(t.server.services.store, t.tenant.tenantId, commentId);
  const listed: PollVoteView[] = [];
  for (let skip = 0; ; skip += 1000) {
    const page = (await t.api<{ pollVotes: PollVoteView[] }>('GET', '/api/v1/poll-votes', { query: { commentId, skip } })).body.pollVotes;
    listed.push(...page);
    if (page.length < 1000) break;
  }
  assert.deepEqual(listed.map((v) => v.id).sort(), stored.map((v) => v._id).sort(), 'the API lists exactly the stored votes');
  const byVoter = new Map<string, string>();
  for (const vote of stored) {
    assert.ok(!byVoter.has(vote.voterId), `voter ${vote.voterId} holds more than one vote`);
    byVoter.set(vote.voterId, vote.optionId);
  }
  const counted = countVotes(stored);
  for (const option of poll.options) assert.equal(option.votes, counted.get(option.id) ?? 0, `count of option ${option.label}`);
  assert.equal(poll.totalVotes, stored.length);
  const doc = (await storedPoll(t.server.services.store, commentId))!;
  assert.deepEqual(doc.options.map((o) => o.votes), poll.options.map((o) => o.votes), 'the stored poll agrees');
  return byVoter;
}

for (const storage of storages()) {
  describe(`poll votes under concurrency on ${storage}`, () => {
    test('2,000 concurrent votes, moves and retractions from 500 voters: counts equal the votes stored, also after a restart', async () => {
      let t = await startTestServer(storage);
      try {
        const { commentId, poll } = await seed(t, { poll: pollInput(4, { privacy: 1 }) });
        const options = poll!.options.map((o) => o.id);
        const chain = voters(450, 'c');
        const burst = voters(50, 'b');
        for (const v of [...chain, ...burst]) if ('userId' in v.body) await addUser(t, v.body.userId);

        const post = (voter: Voter, optionId: string) =>
          checkedFetch(`${t.url}/api/v1/poll-votes`, {
            method: 'POST',
            headers: { 'x-api-key': t.tenant.apiKey, 'x-tenant-id': t.tenant.tenantId, 'content-type': 'application/json' },
            body: JSON.stringify({ commentId, optionId, ...voter.body }),
          }).then(async (res) => ({ status: res.status, body: (await res.json()) as VoteBody }));

        // Chain voters send four requests one after another (vote, move, repeat, then a move or
        // a retraction), all chains at once: the final state of each is known.
        const expected = new Map<string, string | null>();
        const chains = chain.map(async (voter, i) => {
          const first = await post(voter, options[i % 4]!);
          assert.equal(first.status, 200, JSON.stringify(first.body));
          const second = options[(i + 1) % 4]!;
          assert.equal((await post(voter, second)).status, 200);
          const repeat = await post(voter, second);
          assert.deepEqual([repeat.status, repeat.body.pollVote.optionId, repeat.body.pollVote.id], [200, second, first.body.pollVote.id]);
          if (i % 9 === 0) {
            const res = await checkedFetch(`${t.url}/api/v1/poll-votes/${first.body.pollVote.id}`, {
              method: 'DELETE',
              headers: { 'x-api-key': t.tenant.apiKey, 'x-tenant-id': t.tenant.tenantId },
            });
            assert.equal(res.status, 200);
            expected.set(voter.name, null);
          } else {
            const last = options[(i * 7 + 3) % 4]!;
            assert.equal((await post(voter, last)).status, 200);
            expected.set(voter.name, last);
          }
        });
        // Burst voters send their four votes at the same time: whichever lands last wins, and
        // each still ends with exactly one vote.
        const bursts = burst.flatMap((voter, i) => [0, 1, 2, 3].map((k) => post(voter, options[(i + k) % 4]!)));
        const burstResults = await Promise.all(bursts);
        await Promise.all(chains);
        assert.ok(burstResults.every((r) => r.status === 200));

        const check = async () => {
          const byVoter = await assertConsistent(t, commentId);
          for (const [name, option] of expected) assert.equal(byVoter.get(name) ?? null, option, `final vote of ${name}`);
          for (const voter of burst) assert.ok(byVoter.has(voter.name), `burst voter ${voter.name} has a vote`);
          assert.equal(byVoter.size, [...expected.values()].filter((o) => o !== null).length + burst.length);
          return byVoter;
        };
        const before = await check();
        t = await t.restart();
        const after = await check();
        assert.deepEqual([...after].sort(), [...before].sort());
      } finally {
        await t.destroy();
      }
    });

    test('a failed vote batch fails exactly its own votes with 503; acknowledged votes stay, refused ones never appear', async () => {
      let wrapper: FailingVoteCommits | undefined;
      const t = await startTestServer(storage, {}, {
        store: (config) =>
          (wrapper = new FailingVoteCommits(
            createStore(
              { dataDir: config.dataDir, mongodbUri: config.mongodbUri, mongodbDb: config.mongodbDb, mongoTimeoutMs: config.storageTimeoutMs },
              COLLECTIONS,
            ),
          )),
      });
      try {
        const { commentId, poll } = await seed(t, { poll: pollInput(3, { privacy: 1 }) });
        const options = poll!.options.map((o) => o.id);
        const cast = (name: string, optionId: string) =>
          t.api<VoteBody>('POST', '/api/v1/poll-votes', { body: { commentId, optionId, anonUserId: name, ip: `10.9.${name.length}.${name.charCodeAt(name.length - 1)}` } });
        assert.equal((await cast('before', options[0]!)).status, 200);

        wrapper!.failVoteCommits = 1;
        const round = await Promise.all(Array.from({ length: 60 }, (_, i) => cast(`r${i}`, options[i % 3]!)));
        const acked = round.flatMap((r, i) => (r.status === 200 ? [`r${i}`] : []));
        const refused = round.flatMap((r, i) => (r.status === 503 ? [`r${i}`] : []));
        assert.ok(refused.length > 0, 'the injected failure hit some votes');
        assert.equal(acked.length + refused.length, 60, JSON.stringify(round.filter((r) => r.status !== 200 && r.status !== 503).map((r) => r.body)));
        assert.ok(round.filter((r) => r.status === 503).every((r) => (r.body as unknown as { code: string }).code === 'storage-unavailable'));

        const byVoter = await assertConsistent(t, commentId);
        for (const name of ['before', ...acked]) assert.ok(byVoter.has(name), `acknowledged vote of ${name} is stored`);
        for (const name of refused) assert.ok(!byVoter.has(name), `refused vote of ${name} is not stored`);
        // The poll reloaded from storage and takes votes again, the refused voters' included.
        for (const name of refused) assert.equal((await cast(name, options[2]!)).status, 200);
        const after = await assertConsistent(t, commentId);
        assert.equal(after.size, 1 + acked.length + refused.length);
      } finally {
        await t.destroy();
      }
    });
  });
}
