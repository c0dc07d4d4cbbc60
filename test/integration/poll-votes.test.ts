import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { clock } from '../../engine/clock.js';
import { newId } from '../../engine/ids.js';
import { POLL_COLLECTIONS, type PollVoteDoc } from '../../actors/poll/poll-model.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { addUser, pollInput, type PollView, type PollVoteView, seed, storedPoll, storedVotes } from './poll-fixture.js';
import { checkedFetch } from '../fixtures/openapi.js';

type VoteBody = { pollVote: PollVoteView; poll: PollView };
type ListBody = { pollVotes: PollVoteView[]; creditsCost: number };

for (const storage of storages()) {
  describe(`poll votes on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage);
      await addUser(t, 'alice');
      await addUser(t, 'bob');
    });
    after(async () => {
      await t.destroy();
    });

    const vote = (body: Record<string, unknown>) => t.api<VoteBody>('POST', '/api/v1/poll-votes', { body });
    const counts = async (commentId: string) => (await t.api<{ poll: PollView }>('GET', `/api/v1/polls/${commentId}`)).body.poll.options.map((o) => o.votes);

    test('a vote is recorded, moved with updatedAt set, and repeated without change', async () => {
      const { commentId, poll } = await seed(t, { urlId: '/votes', poll: pollInput(3, { privacy: 1 }) });
      const [a, b] = poll!.options;
      const first = await vote({ commentId, optionId: a!.id, userId: 'alice', ip: '198.51.100.1' });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const v = first.body.pollVote;
      assert.deepEqual(
        [v.tenantId, v.commentId, v.urlId, v.voterId, v.optionId, v.userId, v.anonUserId],
        [t.tenant.tenantId, commentId, '/votes', 'alice', a!.id, 'alice', null],
      );
      assert.match(v.id, /^[0-9a-f]{24}$/);
      assert.equal(v.createdAt, v.updatedAt);
      assert.deepEqual([first.body.poll.options.map((o) => o.votes), first.body.poll.totalVotes], [[1, 0, 0], 1]);

      clock.set(() => Date.now() + 5000);
      let moved;
      try {
        moved = await vote({ commentId, optionId: b!.id, userId: 'alice' });
      } finally {
        clock.set(Date.now);
      }
      assert.equal(moved.status, 200);
      assert.deepEqual([moved.body.pollVote.id, moved.body.pollVote.optionId, moved.body.pollVote.createdAt], [v.id, b!.id, v.createdAt]);
      assert.ok(moved.body.pollVote.updatedAt > v.updatedAt);
      assert.deepEqual([moved.body.poll.options.map((o) => o.votes), moved.body.poll.totalVotes], [[0, 1, 0], 1]);

      const repeat = await vote({ commentId, optionId: b!.id, userId: 'alice' });
      assert.deepEqual(repeat.body.pollVote, moved.body.pollVote);
      assert.deepEqual(repeat.body.poll, moved.body.poll);
      const stored = await storedVotes(t.server.services.store, t.tenant.tenantId, commentId);
      assert.deepEqual(stored.map((s) => [s._id, s.optionId]), [[v.id, b!.id]]);
    });

    test('every refusal has its code and changes nothing', async () => {
      const { commentId, poll } = await seed(t, { urlId: '/refusals', poll: pollInput(2, { privacy: 1 }) });
      const optionId = poll!.options[0]!.id;
      const other = await t.addTenant();
      const foreign = await seed(t, { as: other, poll: pollInput(2) });
      const plain = await seed(t);
      const cases: [Record<string, unknown> | string, number, string][] = [
        [{ optionId, anonUserId: 'x' }, 400, 'missing-comment-id'],
        [{ commentId, optionId }, 400, 'missing-user-id'],
        [{ commentId, anonUserId: 'x' }, 400, 'missing-param'],
        [{ commentId, optionId: 'nope', anonUserId: 'x' }, 400, 'poll-invalid-option'],
        [{ commentId, optionId, userId: 'mallory' }, 400, 'invalid-user'],
        [{ commentId: plain.commentId, optionId, anonUserId: 'x' }, 404, 'poll-not-found'],
        [{ commentId: 'f'.repeat(24), optionId, anonUserId: 'x' }, 404, 'poll-not-found'],
        [{ commentId: foreign.commentId, optionId: foreign.poll!.options[0]!.id, anonUserId: 'x' }, 404, 'poll-not-found'],
        [{ commentId, optionId, anonUserId: 'x', ip: 'not-an-ip' }, 400, 'invalid-param'],
        [{ commentId, optionId, anonUserId: 7 }, 400, 'invalid-param'],
        [{ commentId, optionId, anonUserId: 'x', weight: 2 }, 400, 'unexpected-param'],
        ['{"commentId":', 400, 'invalid-json'],
      ];
      for (const [body, status, code] of cases) {
        const r = await t.api('POST', '/api/v1/poll-votes', { body });
        assert.deepEqual([r.status, r.body['code']], [status, code], JSON.stringify(body));
      }
      assert.deepEqual(await counts(commentId), [0, 0]);
      assert.equal((await storedVotes(t.server.services.store, t.tenant.tenantId, commentId)).length, 0);
      assert.equal((await storedVotes(t.server.services.store, other.tenantId, foreign.commentId)).length, 0);
    });

    test('a user of another tenant is not a user here', async () => {
      const other = await t.addTenant();
      await addUser(t, 'carol', other.tenantId);
      const { commentId, poll } = await seed(t, { poll: pollInput(2) });
      const r = await vote({ commentId, optionId: poll!.options[0]!.id, userId: 'carol' });
      assert.deepEqual([r.status, r.body['code' as never]], [400, 'invalid-user']);
    });

    test('with allowAnonVotes false, anonymous-only votes need login; user votes still count', async () => {
      const urlId = '/login-only';
      const { commentId, poll } = await seed(t, { urlId, poll: pollInput(2) });
      assert.equal((await t.api('PATCH', '/api/v1/widget-config', { query: { urlId }, body: { allowAnonVotes: false } })).status, 200);
      const anon = await vote({ commentId, optionId: poll!.options[0]!.id, anonUserId: 'anon-1' });
      assert.deepEqual([anon.status, anon.body['code' as never]], [403, 'poll-login-required']);
      const user = await vote({ commentId, optionId: poll!.options[0]!.id, userId: 'bob', anonUserId: 'anon-1' });
      assert.equal(user.status, 200);
      assert.deepEqual([user.body.pollVote.voterId, user.body.pollVote.anonUserId], ['bob', 'anon-1']);
      assert.deepEqual(await counts(commentId), [1, 0]);
    });

    test('a closed poll refuses votes and retractions', async () => {
      const { commentId, poll } = await seed(t, { poll: pollInput(2, { closesAt: new Date(clock.now() + 60_000).toISOString() }) });
      const cast = await vote({ commentId, optionId: poll!.options[0]!.id, anonUserId: 'early', ip: '198.51.100.2' });
      assert.equal(cast.status, 200);
      clock.set(() => Date.now() + 120_000);
      try {
        const late = await vote({ commentId, optionId: poll!.options[1]!.id, anonUserId: 'late' });
        assert.deepEqual([late.status, late.body['code' as never]], [409, 'poll-closed']);
        // Deleting a vote works whenever the vote exists: poll-closed is only for casting.
        const retract = await t.api('DELETE', `/api/v1/poll-votes/${cast.body.pollVote.id}`);
        assert.equal(retract.status, 200, JSON.stringify(retract.body));
      } finally {
        clock.set(Date.now);
      }
      assert.deepEqual(await counts(commentId), [0, 0]);
    });

    test(`anonymous votes are rate limited per address per poll`, async () => {
      const a = await seed(t, { poll: pollInput(2) });
      const b = await seed(t, { poll: pollInput(2) });
      const optionA = a.poll!.options[0]!.id;
      for (let i = 0; i < 30; i++) {
        const r = await vote({ commentId: a.commentId, optionId: optionA, anonUserId: `rl-${i}`, ip: '192.0.2.50' });
        assert.equal(r.status, 200, `vote ${i}`);
      }
      const limited = await vote({ commentId: a.commentId, optionId: optionA, anonUserId: 'rl-30', ip: '192.0.2.50' });
      assert.deepEqual([limited.status, limited.body['code' as never]], [429, 'rate-limited']);
      assert.match(String(limited.body['reason' as never]), /30 anonymous votes/);
      // Every spelling of the address is the same address.
      for (const spelling of ['::ffff:192.0.2.50', '192.000.002.050', '::FFFF:C000:0232', '[::ffff:192.0.2.50]']) {
        const again = await vote({ commentId: a.commentId, optionId: optionA, anonUserId: 'rl-30', ip: spelling });
        assert.deepEqual([again.status, again.body['code' as never]], [429, 'rate-limited'], spelling);
      }
      assert.equal((await vote({ commentId: a.commentId, optionId: optionA, anonUserId: 'rl-30', ip: '192.0.2.51' })).status, 200, 'another address');
      assert.equal((await vote({ commentId: b.commentId, optionId: b.poll!.options[0]!.id, anonUserId: 'rl-30', ip: '192.0.2.50' })).status, 200, 'another poll');
      assert.equal((await vote({ commentId: a.commentId, optionId: optionA, userId: 'alice', ip: '192.0.2.50' })).status, 200, 'logged-in voters are not limited');
      // Without an ip in the body, the limit applies to the caller's own address.
      for (let i = 0; i < 30; i++) assert.equal((await vote({ commentId: b.commentId, optionId: b.poll!.options[1]!.id, anonUserId: `own-${i}` })).status, 200);
      assert.equal((await vote({ commentId: b.commentId, optionId: b.poll!.options[1]!.id, anonUserId: 'own-30' })).status, 429);
      assert.deepEqual(await counts(a.commentId), [32, 0]);

      clock.set(() => Date.now() + 61_000);
      try {
        assert.equal((await vote({ commentId: a.commentId, optionId: optionA, anonUserId: 'rl-31', ip: '192.0.2.50' })).status, 200, 'the window moved on');
      } finally {
        clock.set(Date.now);
      }
    });

    test('addresses are stored only as a keyed hash', async () => {
      const { commentId, poll } = await seed(t, { poll: pollInput(2, { privacy: 1 }) });
      const one = await vote({ commentId, optionId: poll!.options[0]!.id, anonUserId: 'h1', ip: '203.0.113.77' });
      const two = await vote({ commentId, optionId: poll!.options[1]!.id, anonUserId: 'h2', ip: '203.0.113.77' });
      const three = await vote({ commentId, optionId: poll!.options[1]!.id, anonUserId: 'h3', ip: '2001:db8::1' });
      const none = await vote({ commentId, optionId: poll!.options[1]!.id, userId: 'alice' });
      assert.match(one.body.pollVote.ip!, /^[0-9a-f]{32}$/);
      assert.equal(two.body.pollVote.ip, one.body.pollVote.ip, 'same address, same hash within a poll');
      assert.notEqual(three.body.pollVote.ip, one.body.pollVote.ip);
      assert.equal(none.body.pollVote.ip, null);
      const stored = JSON.stringify(await storedVotes(t.server.services.store, t.tenant.tenantId, commentId));
      assert.ok(!stored.includes('203.0.113.77') && !stored.includes('2001:db8::1'));
      const other = await seed(t, { poll: pollInput(2, { privacy: 1 }) });
      const elsewhere = await vote({ commentId: other.commentId, optionId: other.poll!.options[0]!.id, anonUserId: 'h1', ip: '203.0.113.77' });
      assert.notEqual(elsewhere.body.pollVote.ip, one.body.pollVote.ip, 'hashes do not link voters across polls');
    });

    test('listing: oldest first, filtered, 1000 at most, one credit per 100 returned', async () => {
      const { commentId, poll } = await seed(t, { poll: pollInput(2, { privacy: 1 }) });
      const [a, b] = poll!.options;
      // A big poll is written straight to storage, as a poll actor would have stored it.
      const base = Date.parse('2030-01-01T00:00:00.000Z');
      const ops = Array.from({ length: 1205 }, (_, i): { op: 'put'; collection: string; doc: PollVoteDoc } => ({
        op: 'put',
        collection: POLL_COLLECTIONS.pollVotes,
        doc: {
          _id: newId(base + i * 1000),
          tenantId: t.tenant.tenantId,
          commentId,
          urlId: '/poll-page',
          voterId: `bulk-${i}`,
          optionId: i % 5 === 0 ? b!.id : a!.id,
          userId: null,
          anonUserId: `bulk-${i}`,
          ip: null,
          createdAt: new Date(base + i * 1000).toISOString(),
          updatedAt: new Date(base + i * 1000).toISOString(),
          generation: 0,
        },
      }));
      const stored = (await storedPoll(t.server.services.store, commentId))!;
      const options = stored.options.map((o) => ({ ...o, votes: o.id === b!.id ? 241 : 964 }));
      await t.server.services.store.commit([...ops, { op: 'put', collection: POLL_COLLECTIONS.polls, doc: { ...stored, options, totalVotes: 1205 } }]);

      const first = await t.api<ListBody>('GET', '/api/v1/poll-votes', { query: { commentId } });
      assert.equal(first.status, 200);
      assert.deepEqual([first.body.pollVotes.length, first.body.creditsCost], [1000, 10]);
      assert.equal(first.body.pollVotes[0]!.voterId, 'bulk-0');
      assert.ok(first.body.pollVotes.every((v, i) => i === 0 || first.body.pollVotes[i - 1]!.createdAt <= v.createdAt));
      const rest = await t.api<ListBody>('GET', '/api/v1/poll-votes', { query: { commentId, skip: 1000 } });
      assert.deepEqual([rest.body.pollVotes.length, rest.body.creditsCost, rest.body.pollVotes[0]!.voterId], [205, 3, 'bulk-1000']);
      const onB = await t.api<ListBody>('GET', '/api/v1/poll-votes', { query: { commentId, optionId: b!.id } });
      assert.deepEqual([onB.body.pollVotes.length, onB.body.creditsCost], [241, 3]);
      assert.ok(onB.body.pollVotes.every((v) => v.optionId === b!.id));
      const one = await t.api<ListBody>('GET', '/api/v1/poll-votes', { query: { commentId, voterId: 'bulk-7' } });
      assert.deepEqual([one.body.pollVotes.map((v) => v.voterId), one.body.creditsCost], [['bulk-7'], 1]);
      const none = await t.api<ListBody>('GET', '/api/v1/poll-votes', { query: { commentId, voterId: 'nobody' } });
      assert.deepEqual([none.body.pollVotes, none.body.creditsCost], [[], 1]);
      assert.deepEqual(await counts(commentId), [964, 241]);

      const missing = await t.api('GET', '/api/v1/poll-votes');
      assert.deepEqual([missing.status, missing.body['code']], [400, 'missing-comment-id']);
      const badSkip = await t.api('GET', '/api/v1/poll-votes', { query: { commentId, skip: -1 } });
      assert.deepEqual([badSkip.status, badSkip.body['code']], [400, 'invalid-param']);
    });

    test('privacy decides who reads individual votes', async () => {
      const anonymous = await seed(t, { poll: pollInput(2) });
      const admins = await seed(t, { poll: pollInput(2, { privacy: 1 }) });
      const everyone = await seed(t, { poll: pollInput(2, { privacy: 2 }) });
      const cast = async (p: { commentId: string; poll?: { options: { id: string }[] } }) =>
        (await vote({ commentId: p.commentId, optionId: p.poll!.options[0]!.id, anonUserId: 'secret-session', ip: '198.51.100.9' })).body.pollVote;
      const [va, vb, vc] = [await cast(anonymous), await cast(admins), await cast(everyone)];
      await vote({ commentId: everyone.commentId, optionId: everyone.poll!.options[1]!.id, userId: 'bob' });

      const list = (commentId: string) => t.api<ListBody>('GET', '/api/v1/poll-votes', { query: { commentId } });
      const pub = (commentId: string) => t.api<ListBody>('GET', `/poll-votes/v1/${t.tenant.tenantId}`, { query: { commentId }, auth: 'none' });
      assert.deepEqual([(await list(anonymous.commentId)).status, (await list(anonymous.commentId)).body['code' as never]], [403, 'poll-anonymous']);
      const one = await t.api('GET', `/api/v1/poll-votes/${va.id}`);
      assert.deepEqual([one.status, one.body['code']], [403, 'poll-anonymous']);
      assert.equal((await pub(anonymous.commentId)).body['code' as never], 'poll-anonymous');

      assert.equal((await list(admins.commentId)).body.pollVotes.length, 1);
      const byId = await t.api<{ pollVote: PollVoteView }>('GET', `/api/v1/poll-votes/${vb.id}`);
      assert.deepEqual(byId.body.pollVote, vb);
      const restricted = await pub(admins.commentId);
      assert.deepEqual([restricted.status, restricted.body['code' as never]], [403, 'poll-votes-restricted']);

      const open = await pub(everyone.commentId);
      assert.equal(open.status, 200);
      assert.equal(open.body.creditsCost, undefined, 'public reads cost nothing');
      assert.deepEqual(
        open.body.pollVotes.map((v) => Object.keys(v).sort()),
        [0, 1].map(() => ['commentId', 'createdAt', 'id', 'optionId', 'updatedAt', 'urlId', 'userId', 'voterId']),
      );
      assert.deepEqual(open.body.pollVotes.map((v) => [v.id, v.voterId, v.userId]), [[vc.id, null, null], [open.body.pollVotes[1]!.id, 'bob', 'bob']]);
      assert.ok(!JSON.stringify(open.body).includes('secret-session'));
      assert.equal((await list(everyone.commentId)).body.pollVotes[0]!.anonUserId, 'secret-session');
      const otherTenant = await t.addTenant();
      const wrongTenant = await t.api('GET', `/poll-votes/v1/${otherTenant.tenantId}`, { query: { commentId: everyone.commentId }, auth: 'none' });
      assert.deepEqual([wrongTenant.status, wrongTenant.body['code']], [404, 'poll-not-found']);
    });

    test('retracting: the count returns, the voter may vote again, a second delete is not-found', async () => {
      const { commentId, poll } = await seed(t, { poll: pollInput(2, { privacy: 1 }) });
      const [a, b] = poll!.options;
      const mine = (await vote({ commentId, optionId: a!.id, userId: 'alice' })).body.pollVote;
      await vote({ commentId, optionId: a!.id, userId: 'bob' });
      const gone = await t.api<{ poll: PollView }>('DELETE', `/api/v1/poll-votes/${mine.id}`);
      assert.equal(gone.status, 200);
      assert.deepEqual([gone.body.poll.options.map((o) => o.votes), gone.body.poll.totalVotes], [[1, 0], 1]);
      const again = await t.api('DELETE', `/api/v1/poll-votes/${mine.id}`);
      assert.deepEqual([again.status, again.body['code']], [404, 'not-found']);
      assert.equal((await t.api('GET', `/api/v1/poll-votes/${mine.id}`)).body['code'], 'not-found');
      assert.deepEqual(await counts(commentId), [1, 0]);
      const revote = await vote({ commentId, optionId: b!.id, userId: 'alice' });
      assert.notEqual(revote.body.pollVote.id, mine.id);
      assert.deepEqual(await counts(commentId), [1, 1]);
    });

    test('a vote removed by a replacement is gone: deleting it changes no count', async () => {
      const { commentId, poll } = await seed(t, { poll: pollInput(3, { privacy: 1 }) });
      const [a, b, c] = poll!.options;
      const onA = (await vote({ commentId, optionId: a!.id, userId: 'alice' })).body.pollVote;
      const onB = (await vote({ commentId, optionId: b!.id, userId: 'bob' })).body.pollVote;
      await vote({ commentId, optionId: c!.id, anonUserId: 'z', ip: '198.51.100.3' });
      // B is dropped with its vote; A and C are kept with theirs.
      const kept = await t.api('PUT', `/api/v1/polls/${commentId}`, { body: { question: 'Q', options: [{ id: a!.id, label: 'A' }, { id: c!.id, label: 'C' }], privacy: 1 } });
      assert.equal(kept.status, 200);
      const dropped = await t.api('DELETE', `/api/v1/poll-votes/${onB.id}`);
      assert.deepEqual([dropped.status, dropped.body['code']], [404, 'not-found']);
      assert.deepEqual(await counts(commentId), [1, 1]);
      const stillCounted = await t.api<{ poll: PollView }>('DELETE', `/api/v1/poll-votes/${onA.id}`);
      assert.deepEqual(stillCounted.body.poll.options.map((o) => o.votes), [0, 1]);

      const replaced = await t.api('PUT', `/api/v1/polls/${commentId}`, { query: { replaceVotes: true }, body: pollInput(2, { privacy: 1 }) });
      assert.equal(replaced.status, 200);
      const all = await t.api<ListBody>('GET', '/api/v1/poll-votes', { query: { commentId } });
      assert.deepEqual(all.body.pollVotes, []);
      const zId = (await storedVotes(t.server.services.store, t.tenant.tenantId, commentId)).map((v) => v._id);
      assert.deepEqual(zId, []);
      assert.deepEqual(await counts(commentId), [0, 0]);
    });

    test("another tenant's vote id is unknown", async () => {
      const other = await t.addTenant();
      const theirs = await seed(t, { as: other, poll: pollInput(2, { privacy: 2 }) });
      const res = await checkedFetch(`${t.url}/api/v1/poll-votes`, {
        method: 'POST',
        headers: { 'x-api-key': other.apiKey, 'x-tenant-id': other.tenantId, 'content-type': 'application/json' },
        body: JSON.stringify({ commentId: theirs.commentId, optionId: theirs.poll!.options[0]!.id, anonUserId: 'o', ip: '198.51.100.4' }),
      });
      const id = ((await res.json()) as VoteBody).pollVote.id;
      for (const method of ['GET', 'DELETE']) {
        const r = await t.api(method, `/api/v1/poll-votes/${id}`);
        assert.deepEqual([r.status, r.body['code']], [404, 'not-found'], method);
      }
      assert.equal((await storedVotes(t.server.services.store, other.tenantId, theirs.commentId)).length, 1);
    });
  });
}
