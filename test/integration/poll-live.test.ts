import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LIVE_EVENT_TYPES, type LiveEvent, pageTopic } from '../../actors/live/live-events.js';
import { POLL_COLLECTIONS } from '../../actors/poll/poll-model.js';
import { COLLECTIONS } from '../../storage/collections.js';
import { createStore } from '../../storage/create-store.js';
import { eventually } from '../fixtures/eventually.js';
import { InstrumentedStore } from '../fixtures/instrumented-store.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { type LiveClient, subscribe } from '../unit/live/fixtures.js';
import { pollInput, type PollView, type PollVoteView, seed, storedPoll, storedVotes } from './poll-fixture.js';

type VoteBody = { pollVote: PollVoteView; poll: PollView };

/** The next poll-update a subscriber receives (other event types are skipped). */
async function nextPollUpdate(client: LiveClient): Promise<LiveEvent & { commentId: string; urlId: string; poll: Record<string, unknown> | null }> {
  for (;;) {
    const event = await client.next();
    if (event.type === LIVE_EVENT_TYPES.pollUpdate) return event as never;
  }
}

for (const storage of storages()) {
  describe(`poll live events and comment changes on ${storage}`, () => {
    let t: TestServer;
    let wrapper: InstrumentedStore | undefined;
    before(async () => {
      t = await startTestServer(storage, {}, {
        store: (config) =>
          (wrapper = new InstrumentedStore(
            createStore(
              { dataDir: config.dataDir, mongodbUri: config.mongodbUri, mongodbDb: config.mongodbDb, mongoTimeoutMs: config.storageTimeoutMs },
              COLLECTIONS,
            ),
          )),
      });
    });
    after(async () => {
      await t.destroy();
    });

    const vote = (commentId: string, optionId: string, anonUserId: string) =>
      t.api<VoteBody>('POST', '/api/v1/poll-votes', { body: { commentId, optionId, anonUserId, ip: `198.51.100.${anonUserId.length}` } });

    test('a vote reaches the page subscribers as poll-update with the new counts, only once it is durable', async () => {
      const urlId = '/live-votes';
      const { commentId, poll } = await seed(t, { urlId, poll: pollInput(2) });
      const reader = await subscribe(t, t.tenant.tenantId, urlId);
      const elsewhere = await subscribe(t, t.tenant.tenantId, '/another-page');
      // What was durable at the moment the event was published, taken by a bus listener.
      let durableAtPublish: Set<string> | undefined;
      const stop = t.server.services.bus.listen((topic, event) => {
        if (topic === pageTopic(t.tenant.tenantId, urlId) && (event as LiveEvent).type === LIVE_EVENT_TYPES.pollUpdate) {
          durableAtPublish ??= new Set(wrapper!.durable);
        }
      });
      try {
        const cast = await vote(commentId, poll!.options[1]!.id, 'live-1');
        assert.equal(cast.status, 200);
        const event = await nextPollUpdate(reader);
        assert.deepEqual([event.commentId, event.urlId], [commentId, urlId]);
        assert.deepEqual(event.poll, { ...cast.body.poll, resultsHidden: false });
        assert.ok(durableAtPublish?.has(`${POLL_COLLECTIONS.pollVotes}/${cast.body.pollVote.id}`), 'the vote was durable when its event went out');
        await vote(commentId, poll!.options[0]!.id, 'live-2');
        assert.equal((await nextPollUpdate(reader)).poll!['totalVotes'], 2);
        // Nothing reached the other page: its first message is the one sent to it now.
        const other = await seed(t, { urlId: '/another-page', poll: pollInput(2) });
        await vote(other.commentId, other.poll!.options[0]!.id, 'live-3');
        assert.equal((await nextPollUpdate(elsewhere)).commentId, other.commentId);
      } finally {
        stop();
        reader.close();
        elsewhere.close();
      }
    });

    test('a burst of votes is announced in fewer events whose last one has every vote', async () => {
      const urlId = '/live-burst';
      const { commentId, poll } = await seed(t, { urlId, poll: pollInput(3) });
      const reader = await subscribe(t, t.tenant.tenantId, urlId);
      try {
        const results = await Promise.all(Array.from({ length: 40 }, (_, i) => vote(commentId, poll!.options[i % 3]!.id, `burst-${i}`)));
        assert.ok(results.every((r) => r.status === 200));
        const totals: number[] = [];
        while (totals.at(-1) !== 40) totals.push((await nextPollUpdate(reader)).poll!['totalVotes'] as number);
        assert.ok(totals.every((n, i) => i === 0 || n > totals[i - 1]!), `totals only grow: ${totals.join(',')}`);
        assert.ok(totals.length <= 40);
      } finally {
        reader.close();
      }
    });

    test('changes and removal are announced; a poll that hides results goes out without counts', async () => {
      const urlId = '/live-changes';
      const { commentId, poll } = await seed(t, { urlId, poll: pollInput(2, { requireVoteToSeeResults: true }) });
      const reader = await subscribe(t, t.tenant.tenantId, urlId);
      try {
        await vote(commentId, poll!.options[0]!.id, 'hidden-1');
        const hidden = await nextPollUpdate(reader);
        assert.deepEqual(hidden.poll!['options'], poll!.options.map((o) => ({ id: o.id, label: o.label })));
        assert.deepEqual([hidden.poll!['totalVotes'], hidden.poll!['resultsHidden']], [undefined, true]);

        assert.equal((await t.api('PATCH', `/api/v1/polls/${commentId}`, { body: { question: 'Changed?', requireVoteToSeeResults: false } })).status, 200);
        const changed = await nextPollUpdate(reader);
        assert.deepEqual([changed.poll!['question'], changed.poll!['totalVotes']], ['Changed?', 1]);
        assert.equal((await t.api('PUT', `/api/v1/polls/${commentId}`, { query: { replaceVotes: true }, body: pollInput(3) })).status, 200);
        const replaced = await nextPollUpdate(reader);
        assert.deepEqual([(replaced.poll!['options'] as unknown[]).length, replaced.poll!['totalVotes']], [3, 0]);
        assert.equal((await t.api('DELETE', `/api/v1/polls/${commentId}`)).status, 200);
        const removed = await nextPollUpdate(reader);
        assert.deepEqual([removed.commentId, removed.poll], [commentId, null]);
      } finally {
        reader.close();
      }
    });

    test('the page embeds current counts, and reports locks, moves and deletion; deletion removes poll and votes durably', async () => {
      const { commentId, poll } = await seed(t, { urlId: '/from', poll: pollInput(2, { privacy: 1 }) });
      const cast = await vote(commentId, poll!.options[0]!.id, 'mover');
      assert.equal(cast.status, 200);
      const embedded = async () => (await t.api<{ comment: { poll?: PollView } }>('GET', `/api/v1/comments/${commentId}`)).body.comment.poll;
      await eventually(async () => (await embedded())?.totalVotes === 1, 5000);
      assert.deepEqual(await embedded(), cast.body.poll);

      assert.equal((await t.api('PATCH', `/api/v1/comments/${commentId}`, { body: { isLocked: true } })).status, 200);
      assert.equal((await t.api('PATCH', `/api/v1/polls/${commentId}`, { body: { question: 'Q' } })).body['code'], 'locked');
      assert.equal((await t.api('PATCH', `/api/v1/comments/${commentId}`, { body: { isLocked: false } })).status, 200);
      assert.equal((await t.api('PATCH', `/api/v1/polls/${commentId}`, { body: { question: 'Q' } })).status, 200);

      const target = await subscribe(t, t.tenant.tenantId, '/to');
      try {
        const moved = await t.api('PATCH', `/api/v1/comments/${commentId}`, { body: { urlId: '/to', url: 'https://example.com/to' } });
        assert.equal(moved.status, 200, JSON.stringify(moved.body));
        assert.equal((await storedPoll(t.server.services.store, commentId))?.urlId, '/to');
        assert.deepEqual((await storedVotes(t.server.services.store, t.tenant.tenantId, commentId)).map((v) => v.urlId), ['/to']);
        const listed = await t.api<{ pollVotes: PollVoteView[] }>('GET', '/api/v1/poll-votes', { query: { commentId } });
        assert.equal(listed.body.pollVotes[0]!.urlId, '/to');
        await vote(commentId, poll!.options[1]!.id, 'after-move');
        assert.equal((await nextPollUpdate(target)).urlId, '/to');
        await eventually(async () => (await embedded())?.totalVotes === 2, 5000);
      } finally {
        target.close();
      }

      assert.equal((await t.api('DELETE', `/api/v1/comments/${commentId}`)).status, 200);
      assert.equal(await storedPoll(t.server.services.store, commentId), undefined, 'removed before the comment deletion was answered');
      assert.deepEqual(await storedVotes(t.server.services.store, t.tenant.tenantId, commentId), []);
      for (const [method, path] of [['GET', `/api/v1/polls/${commentId}`], ['PATCH', `/api/v1/polls/${commentId}`], ['DELETE', `/api/v1/polls/${commentId}`]] as const) {
        const r = await t.api(method, path, method === 'PATCH' ? { body: { question: 'Q' } } : {});
        assert.equal(r.body['code'], 'poll-not-found', method);
      }
      assert.equal((await t.api('PUT', `/api/v1/polls/${commentId}`, { body: pollInput(2) })).body['code'], 'not-found');
      assert.equal((await t.api('GET', `/api/v1/poll-votes/${cast.body.pollVote.id}`)).body['code'], 'not-found');
      assert.equal((await vote(commentId, poll!.options[0]!.id, 'too-late')).body['code' as never], 'poll-not-found');
    });

    test('a poll whose actor is not active still follows its comment: moved, then deleted', async () => {
      const { commentId, poll } = await seed(t, { urlId: '/cold-from', poll: pollInput(2, { privacy: 1 }) });
      for (const voter of ['c1', 'c2', 'c3']) assert.equal((await vote(commentId, poll!.options[1]!.id, voter)).status, 200);
      t = await t.restart();
      const store = t.server.services.store;
      const moved = await t.api('PATCH', `/api/v1/comments/${commentId}`, { body: { urlId: '/cold-to', url: 'https://example.com/cold-to' } });
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      assert.equal((await storedPoll(store, commentId))?.urlId, '/cold-to', 'stored by the move, not by some later vote');
      assert.deepEqual((await storedVotes(store, t.tenant.tenantId, commentId)).map((v) => v.urlId), ['/cold-to', '/cold-to', '/cold-to']);

      t = await t.restart();
      assert.equal((await t.api('DELETE', `/api/v1/comments/${commentId}`)).status, 200);
      assert.equal(await storedPoll(t.server.services.store, commentId), undefined);
      assert.deepEqual(await storedVotes(t.server.services.store, t.tenant.tenantId, commentId), []);
      assert.equal((await t.api('GET', `/api/v1/polls/${commentId}`)).body['code'], 'poll-not-found');
    });

    test('a poll attached with PUT is announced and embedded by the page, and so is its removal', async () => {
      const { commentId } = await seed(t, { urlId: '/attach' });
      const reader = await subscribe(t, t.tenant.tenantId, '/attach');
      const put = await t.api<{ poll: PollView }>('PUT', `/api/v1/polls/${commentId}`, { body: pollInput(2) });
      assert.equal(put.status, 200);
      try {
        const attached = await nextPollUpdate(reader);
        assert.deepEqual([attached.commentId, attached.poll], [commentId, { ...put.body.poll, resultsHidden: false }]);
      } finally {
        reader.close();
      }
      const embedded = async () => (await t.api<{ comment: { poll?: PollView; hasPoll: boolean } }>('GET', `/api/v1/comments/${commentId}`)).body.comment;
      await eventually(async () => (await embedded()).poll !== undefined, 5000);
      assert.deepEqual((await embedded()).poll, put.body.poll);
      assert.equal((await t.api('DELETE', `/api/v1/polls/${commentId}`)).status, 200);
      await eventually(async () => (await embedded()).poll === undefined, 5000);
      assert.ok(!(await embedded()).hasPoll);
    });

    test('a comment created with a poll reaches widgets live, with or without isLive', async () => {
      const reader = await subscribe(t, t.tenant.tenantId, '/born-with-poll');
      try {
        const quiet = await t.api<{ comment: { _id: string; poll: PollView } }>('POST', '/api/v1/comments', {
          body: { commenterName: 'A', comment: 'q', url: 'https://example.com/p', urlId: '/born-with-poll', locale: 'en', poll: pollInput(2) },
        });
        assert.equal(quiet.status, 200);
        const announced = await nextPollUpdate(reader);
        assert.deepEqual([announced.commentId, announced.poll], [quiet.body.comment._id, { ...quiet.body.comment.poll, resultsHidden: false }]);
        const live = await t.api<{ comment: { _id: string; poll: PollView } }>('POST', '/api/v1/comments', {
          query: { isLive: true },
          body: { commenterName: 'A', comment: 'q2', url: 'https://example.com/p', urlId: '/born-with-poll', locale: 'en', poll: pollInput(2) },
        });
        const created = await reader.next();
        assert.equal(created.type, LIVE_EVENT_TYPES.newComment);
        assert.deepEqual((created.comment as { poll: unknown }).poll, { ...live.body.comment.poll, resultsHidden: false });
      } finally {
        reader.close();
      }
    });
  });
}
