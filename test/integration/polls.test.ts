import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { clock } from '../../engine/clock.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { pollInput, type PollView, seed, storedPoll, storedVotes } from './poll-fixture.js';

type PollBody = { poll: PollView };

for (const storage of storages()) {
  describe(`polls on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage);
    });
    after(async () => {
      await t.destroy();
    });

    const anon = (commentId: string, optionId: string, anonUserId: string) =>
      t.api<{ poll: PollView }>('POST', '/api/v1/poll-votes', { body: { commentId, optionId, anonUserId, ip: '203.0.113.9' } });

    test('a comment created with a poll serves it; unknown, other-tenant, poll-less and deleted comments give poll-not-found', async () => {
      const { commentId, poll } = await seed(t, { poll: pollInput(3, { privacy: 1 }) });
      const r = await t.api<PollBody>('GET', `/api/v1/polls/${commentId}`);
      assert.equal(r.status, 200);
      assert.equal(r.body.poll.question, 'Which one?');
      assert.deepEqual(r.body.poll.options, poll!.options.map((o) => ({ id: o.id, label: o.label, votes: 0 })));
      assert.deepEqual([r.body.poll.totalVotes, r.body.poll.closesAt, r.body.poll.privacy, r.body.poll.requireVoteToSeeResults], [0, null, 1, false]);

      const plain = await seed(t);
      const deleted = await seed(t, { poll: pollInput(), isDeleted: true });
      const other = await t.addTenant();
      const foreign = await seed(t, { as: other, poll: pollInput() });
      for (const id of ['5f0000000000000000000000', plain.commentId, deleted.commentId, foreign.commentId]) {
        const miss = await t.api('GET', `/api/v1/polls/${id}`);
        assert.deepEqual([miss.status, miss.body['code']], [404, 'poll-not-found'], id);
      }
    });

    test('PUT attaches a poll to a comment without one; ids, duplicate labels and a past closesAt are refused', async () => {
      const { commentId } = await seed(t);
      const refused: [unknown, string][] = [
        [{ question: 'Q', options: [{ id: 'x', label: 'A' }, { label: 'B' }] }, 'poll-invalid'],
        [{ question: 'Q', options: [{ label: 'Yes' }, { label: 'yes ' }] }, 'poll-invalid'],
        [{ question: 'Q', options: [{ label: 'A' }, { label: 'B' }], closesAt: new Date(clock.now() - 1000).toISOString() }, 'poll-invalid'],
        [{ question: '   ', options: [{ label: 'A' }, { label: 'B' }] }, 'poll-invalid'],
      ];
      for (const [body, code] of refused) {
        const r = await t.api('PUT', `/api/v1/polls/${commentId}`, { body });
        assert.deepEqual([r.status, r.body['code']], [400, code], JSON.stringify(body));
      }
      assert.equal((await t.api('GET', `/api/v1/polls/${commentId}`)).body['code'], 'poll-not-found');

      const closesAt = new Date(clock.now() + 86_400_000).toISOString();
      const r = await t.api<PollBody>('PUT', `/api/v1/polls/${commentId}`, {
        body: { question: 'Best?', options: [{ label: 'One' }, { label: 'Two' }], closesAt, privacy: 2, requireVoteToSeeResults: true },
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.body.poll.options.map((o) => [o.label, o.votes]), [['One', 0], ['Two', 0]]);
      assert.ok(r.body.poll.options.every((o) => typeof o.id === 'string' && o.id.length > 0));
      assert.deepEqual([r.body.poll.closesAt, r.body.poll.privacy, r.body.poll.requireVoteToSeeResults], [closesAt, 2, true]);
      assert.deepEqual((await t.api<PollBody>('GET', `/api/v1/polls/${commentId}`)).body.poll, r.body.poll);
      assert.equal((await storedPoll(t.server.services.store, commentId))?.question, 'Best?');

      const missing = await t.api('PUT', '/api/v1/polls/5f0000000000000000000001', { body: pollInput() });
      assert.deepEqual([missing.status, missing.body['code']], [404, 'not-found']);
    });

    test('PUT keeping ids keeps their votes in the given order; omitted options go with their votes', async () => {
      const { commentId, poll } = await seed(t, { poll: pollInput(3, { privacy: 1 }) });
      const [a, b, c] = poll!.options;
      for (const [i, option] of [a, a, b, c, c, c].entries()) assert.equal((await anon(commentId, option!.id, `v${i}`)).status, 200);

      const r = await t.api<PollBody>('PUT', `/api/v1/polls/${commentId}`, {
        body: { question: 'Renamed', options: [{ id: c!.id, label: 'C!' }, { label: 'New' }, { id: a!.id, label: 'A' }], privacy: 1 },
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.body.poll.options.map((o) => [o.label, o.votes]), [['C!', 3], ['New', 0], ['A', 2]]);
      assert.equal(r.body.poll.options[0]!.id, c!.id);
      assert.equal(r.body.poll.totalVotes, 5);
      const votes = await storedVotes(t.server.services.store, t.tenant.tenantId, commentId);
      assert.equal(votes.length, 5);
      assert.ok(votes.every((v) => v.optionId !== b!.id));
    });

    test('PUT without ids on a poll with votes needs replaceVotes=true, which deletes every vote', async () => {
      const { commentId, poll } = await seed(t, { poll: pollInput(2) });
      assert.equal((await anon(commentId, poll!.options[0]!.id, 'r1')).status, 200);
      const before = await t.api<PollBody>('GET', `/api/v1/polls/${commentId}`);

      const refused = await t.api('PUT', `/api/v1/polls/${commentId}`, { body: pollInput(2) });
      assert.deepEqual([refused.status, refused.body['code']], [409, 'replace-votes-required']);
      const unknownId = await t.api('PUT', `/api/v1/polls/${commentId}`, { body: { question: 'Q', options: [{ id: 'nope', label: 'A' }, { label: 'B' }] } });
      assert.deepEqual([unknownId.status, unknownId.body['code']], [400, 'poll-invalid']);
      const twice = poll!.options[0]!.id;
      const duplicated = await t.api('PUT', `/api/v1/polls/${commentId}`, { body: { question: 'Q', options: [{ id: twice, label: 'A' }, { id: twice, label: 'B' }] } });
      assert.deepEqual([duplicated.status, duplicated.body['code']], [400, 'poll-invalid']);
      assert.deepEqual((await t.api<PollBody>('GET', `/api/v1/polls/${commentId}`)).body, before.body, 'refusals changed nothing');

      const r = await t.api<PollBody>('PUT', `/api/v1/polls/${commentId}`, { query: { replaceVotes: true }, body: pollInput(4) });
      assert.equal(r.status, 200);
      assert.deepEqual([r.body.poll.totalVotes, r.body.poll.options.length], [0, 4]);
      assert.ok(r.body.poll.options.every((o) => !poll!.options.some((p) => p.id === o.id)), 'all options are new');
      assert.equal((await storedVotes(t.server.services.store, t.tenant.tenantId, commentId)).length, 0);
    });

    test('PUT resets omitted settings; privacy narrows freely but widens only without votes', async () => {
      const closesAt = new Date(clock.now() + 3_600_000).toISOString();
      const { commentId, poll } = await seed(t, { poll: pollInput(2, { privacy: 2, closesAt, requireVoteToSeeResults: true }) });
      const keep = poll!.options.map((o) => ({ id: o.id, label: o.label }));
      let r = await t.api<PollBody>('PUT', `/api/v1/polls/${commentId}`, { body: { question: 'Q', options: keep } });
      assert.deepEqual([r.body.poll.closesAt, r.body.poll.privacy, r.body.poll.requireVoteToSeeResults], [null, 0, false]);
      r = await t.api<PollBody>('PUT', `/api/v1/polls/${commentId}`, { body: { question: 'Q', options: keep, privacy: 2 } });
      assert.equal(r.body.poll.privacy, 2, 'widening without votes is allowed');

      assert.equal((await anon(commentId, keep[0]!.id, 'p1')).status, 200);
      r = await t.api<PollBody>('PUT', `/api/v1/polls/${commentId}`, { body: { question: 'Q', options: keep, privacy: 1 } });
      assert.equal(r.body.poll.privacy, 1);
      const widen = await t.api('PUT', `/api/v1/polls/${commentId}`, { body: { question: 'Q', options: keep, privacy: 2 } });
      assert.deepEqual([widen.status, widen.body['code']], [409, 'poll-privacy-locked']);
      const patchWiden = await t.api('PATCH', `/api/v1/polls/${commentId}`, { body: { privacy: 2 } });
      assert.deepEqual([patchWiden.status, patchWiden.body['code']], [409, 'poll-privacy-locked']);
      r = await t.api<PollBody>('PATCH', `/api/v1/polls/${commentId}`, { body: { privacy: 0 } });
      assert.equal(r.body.poll.privacy, 0);
      // Removing the only option with votes leaves none to expose: widening is then allowed.
      r = await t.api<PollBody>('PUT', `/api/v1/polls/${commentId}`, { body: { question: 'Q', options: [keep[1]!, { label: 'Z' }], privacy: 2 } });
      assert.deepEqual([r.status, r.body.poll.privacy, r.body.poll.totalVotes], [200, 2, 0]);
    });

    test('PATCH relabels by id without touching votes, closes and reopens, and refuses what breaks the rules', async () => {
      const { commentId, poll } = await seed(t, { poll: pollInput(3, { privacy: 1 }) });
      const [a, b] = poll!.options;
      assert.equal((await anon(commentId, b!.id, 'q1')).status, 200);
      let r = await t.api<PollBody>('PATCH', `/api/v1/polls/${commentId}`, { body: { options: [{ id: b!.id, label: 'Bee' }], question: 'New question?' } });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.poll.options.map((o) => [o.id, o.label, o.votes]), [[a!.id, 'A', 0], [b!.id, 'Bee', 1], [poll!.options[2]!.id, 'C', 0]]);
      assert.equal(r.body.poll.question, 'New question?');

      const cases: [unknown, number, string][] = [
        [{}, 400, 'invalid-param'],
        [{ options: [{ id: 'missing', label: 'X' }] }, 400, 'poll-invalid'],
        [{ options: [{ id: a!.id, label: 'bee' }] }, 400, 'poll-invalid'],
        [{ options: [{ id: a!.id, label: 'X' }, { id: a!.id, label: 'Y' }] }, 400, 'poll-invalid'],
        [{ options: [{ label: 'no id' }] }, 400, 'missing-param'],
        [{ votes: 3 }, 400, 'unexpected-param'],
        [{ question: 'x'.repeat(201) }, 400, 'invalid-param'],
        [{ closesAt: 'tomorrow' }, 400, 'invalid-param'],
      ];
      for (const [body, status, code] of cases) {
        const bad = await t.api('PATCH', `/api/v1/polls/${commentId}`, { body });
        assert.deepEqual([bad.status, bad.body['code']], [status, code], JSON.stringify(body));
      }
      assert.deepEqual((await t.api<PollBody>('GET', `/api/v1/polls/${commentId}`)).body.poll, r.body.poll, 'refusals changed nothing');

      r = await t.api<PollBody>('PATCH', `/api/v1/polls/${commentId}`, { body: { closesAt: new Date(clock.now() - 1).toISOString() } });
      assert.equal(r.status, 200);
      const closed = await anon(commentId, a!.id, 'q2');
      assert.deepEqual([closed.status, closed.body['code' as never]], [409, 'poll-closed']);
      r = await t.api<PollBody>('PATCH', `/api/v1/polls/${commentId}`, { body: { closesAt: null } });
      assert.equal(r.body.poll.closesAt, null);
      assert.equal((await anon(commentId, a!.id, 'q2')).status, 200, 'reopened');

      const none = await seed(t);
      const missing = await t.api('PATCH', `/api/v1/polls/${none.commentId}`, { body: { question: 'Q' } });
      assert.deepEqual([missing.status, missing.body['code']], [404, 'poll-not-found']);
    });

    test('DELETE removes the poll and all its votes; the comment stays and can take a new poll', async () => {
      const { commentId, poll } = await seed(t, { poll: pollInput(2) });
      for (const voter of ['d1', 'd2', 'd3']) assert.equal((await anon(commentId, poll!.options[1]!.id, voter)).status, 200);
      assert.equal((await t.api('DELETE', `/api/v1/polls/${commentId}`)).status, 200);
      assert.equal((await t.api('GET', `/api/v1/polls/${commentId}`)).body['code'], 'poll-not-found');
      assert.equal((await t.api('DELETE', `/api/v1/polls/${commentId}`)).body['code'], 'poll-not-found');
      assert.equal(await storedPoll(t.server.services.store, commentId), undefined);
      assert.equal((await storedVotes(t.server.services.store, t.tenant.tenantId, commentId)).length, 0);
      const again = await t.api<PollBody>('PUT', `/api/v1/polls/${commentId}`, { body: pollInput(2) });
      assert.deepEqual([again.status, again.body.poll.totalVotes], [200, 0]);
    });

    test('a locked comment refuses PUT, PATCH and DELETE of its poll with locked; votes still count', async () => {
      const { commentId, poll } = await seed(t, { poll: pollInput(2), isLocked: true });
      const before = await t.api<PollBody>('GET', `/api/v1/polls/${commentId}`);
      assert.equal(before.status, 200);
      for (const [method, body] of [['PUT', pollInput(2)], ['PATCH', { question: 'Q' }], ['DELETE', undefined]] as const) {
        const r = await t.api(method, `/api/v1/polls/${commentId}`, body === undefined ? {} : { body });
        assert.deepEqual([r.status, r.body['code']], [423, 'locked'], method);
      }
      assert.equal((await anon(commentId, poll!.options[0]!.id, 'l1')).status, 200);
      const plain = await seed(t, { isLocked: true });
      const create = await t.api('PUT', `/api/v1/polls/${plain.commentId}`, { body: pollInput(2) });
      assert.deepEqual([create.status, create.body['code']], [423, 'locked']);
    });

    test('with polls disabled, creation and changes give polls-disabled; reads, votes and removal still work', async () => {
      const urlId = '/no-polls';
      const { commentId, poll } = await seed(t, { urlId, poll: pollInput(2) });
      const plain = await seed(t, { urlId });
      assert.equal((await t.api('PATCH', '/api/v1/widget-config', { query: { urlId }, body: { disablePolls: true } })).status, 200);
      const create = await t.api('PUT', `/api/v1/polls/${plain.commentId}`, { body: pollInput(2) });
      assert.deepEqual([create.status, create.body['code']], [403, 'polls-disabled']);
      const replace = await t.api('PUT', `/api/v1/polls/${commentId}`, { body: pollInput(2) });
      assert.deepEqual([replace.status, replace.body['code']], [403, 'polls-disabled']);
      const change = await t.api('PATCH', `/api/v1/polls/${commentId}`, { body: { question: 'Q' } });
      assert.deepEqual([change.status, change.body['code']], [403, 'polls-disabled']);
      assert.equal((await t.api('GET', `/api/v1/polls/${commentId}`)).status, 200);
      assert.equal((await anon(commentId, poll!.options[0]!.id, 'x1')).status, 200);
      assert.equal((await t.api('DELETE', `/api/v1/polls/${commentId}`)).status, 200);
      assert.equal((await t.api('PATCH', '/api/v1/widget-config', { query: { urlId }, body: { disablePolls: false } })).status, 200);
      assert.equal((await t.api('PUT', `/api/v1/polls/${plain.commentId}`, { body: pollInput(2) })).status, 200);
    });

    test('another tenant cannot read, change or delete a poll by its comment id', async () => {
      const other = await t.addTenant();
      const { commentId } = await seed(t, { as: other, poll: pollInput(2) });
      assert.equal((await t.api('GET', `/api/v1/polls/${commentId}`)).body['code'], 'poll-not-found');
      assert.equal((await t.api('PUT', `/api/v1/polls/${commentId}`, { body: pollInput(2) })).body['code'], 'not-found');
      assert.equal((await t.api('PATCH', `/api/v1/polls/${commentId}`, { body: { question: 'mine' } })).body['code'], 'poll-not-found');
      assert.equal((await t.api('DELETE', `/api/v1/polls/${commentId}`)).body['code'], 'poll-not-found');
      const theirs = await storedPoll(t.server.services.store, commentId);
      assert.deepEqual([theirs?.question, theirs?.tenantId], ['Which one?', other.tenantId]);
    });

    test('malformed bodies are refused with a code naming the problem and change nothing', async () => {
      const { commentId } = await seed(t);
      const cases: [string | unknown, number, string][] = [
        ['{"question":', 400, 'invalid-json'],
        [{ question: 'Q', options: [{ label: 'only one' }] }, 400, 'invalid-param'],
        [{ question: 'Q', options: Array.from({ length: 11 }, (_, i) => ({ label: `o${i}` })) }, 400, 'invalid-param'],
        [{ question: 'Q', options: [{ label: 'x'.repeat(101) }, { label: 'B' }] }, 400, 'invalid-param'],
        [{ question: 'Q', options: [{ label: 'A' }, { label: 'B' }], privacy: 3 }, 400, 'invalid-param'],
        [{ question: 'Q', options: [{ label: 'A' }, { label: 'B' }], totalVotes: 9 }, 400, 'unexpected-param'],
        [{ options: [{ label: 'A' }, { label: 'B' }] }, 400, 'missing-param'],
        [{ question: 7, options: [{ label: 'A' }, { label: 'B' }] }, 400, 'invalid-param'],
      ];
      for (const [body, status, code] of cases) {
        const r = await t.api('PUT', `/api/v1/polls/${commentId}`, { body });
        assert.deepEqual([r.status, r.body['code']], [status, code], JSON.stringify(body));
      }
      const flag = await t.api('PUT', `/api/v1/polls/${commentId}`, { query: { replaceVotes: 'maybe' }, body: pollInput(2) });
      assert.deepEqual([flag.status, flag.body['code']], [400, 'invalid-param']);
      assert.equal((await t.api('GET', `/api/v1/polls/${commentId}`)).body['code'], 'poll-not-found');
      assert.equal(await storedPoll(t.server.services.store, commentId), undefined);
    });

    test('polls, counts and votes survive a restart', async () => {
      const { commentId, poll } = await seed(t, { poll: pollInput(2, { privacy: 1 }) });
      for (const voter of ['s1', 's2', 's3']) assert.equal((await anon(commentId, poll!.options[voter === 's2' ? 1 : 0]!.id, voter)).status, 200);
      const before = await t.api<PollBody>('GET', `/api/v1/polls/${commentId}`);
      t = await t.restart();
      const after = await t.api<PollBody>('GET', `/api/v1/polls/${commentId}`);
      assert.deepEqual(after.body, before.body);
      assert.deepEqual(after.body.poll.options.map((o) => o.votes), [2, 1]);
    });
  });
}
