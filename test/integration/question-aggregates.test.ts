import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LIVE_EVENT_TYPES, type LiveEvent } from '../../actors/live/live-events.js';
import { QUESTION_COLLECTIONS } from '../../actors/question/question-model.js';
import type { AggregationEvent } from '../../aggregate/aggregator.js';
import { cacheTtlMs } from '../../aggregate/question-cache.js';
import { clock } from '../../engine/clock.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { type LiveClient, subscribe } from '../unit/live/fixtures.js';
import { type Aggregate, type ConfigView, creditsUsed, makeConfig, makeResult, ok, postComment, refused, type ResultView } from './question-fixture.js';

const AGG = '/api/v1/question-results-aggregation';
const SEED_AGG = '/api/v1/question-results-aggregate';
const DAY = 86_400_000;

type Combined = { results: { comment: { _id: string; commenterName: string } | null; result: ResultView }[]; createdAt: string };

async function nextQuestionResult(client: LiveClient): Promise<LiveEvent & { questionResult: Record<string, unknown> }> {
  for (;;) {
    const event = await client.next();
    if (event.type === LIVE_EVENT_TYPES.questionResult) return event as never;
  }
}

for (const storage of storages()) {
  describe(`question aggregates on ${storage}`, () => {
    let t: TestServer;
    let nps: ConfigView;
    let star: ConfigView;
    let now = Date.UTC(2024, 11, 30, 10);
    let restoreClock: () => void;
    before(async () => {
      t = await startTestServer(storage);
      restoreClock = clock.set(() => now);
      nps = await makeConfig(t, { type: 'nps', question: 'Recommend us?' });
      star = await makeConfig(t, { type: 'star', question: 'Stars?' });
      // Values 0..10 of the NPS question over three days that cross a month and a year.
      for (let i = 0; i < 33; i++) {
        await makeResult(t, nps._id, i % 11, { urlId: `/agg-${i % 2}`, userId: `u${i % 3}` });
        if (i % 11 === 10) now += DAY;
      }
      for (let i = 0; i < 5; i++) await makeResult(t, star._id, 5, { urlId: '/agg-0' });
    });
    after(async () => {
      restoreClock();
      await t.destroy();
    });

    const aggregate = async (query: Record<string, string | number | boolean | string[]>, path = AGG) => {
      const r = await t.api<{ data: Aggregate }>('GET', path, { query });
      return { data: ok(r, `aggregate ${JSON.stringify(query)}`).data, cache: r.headers.get('x-cache') };
    };

    test('counts by value, by page and by time bucket, with the total and the two-decimal average', async () => {
      const { data } = await aggregate({ questionId: nps._id, timeBucket: 'day' });
      assert.equal(data.total, 33);
      assert.equal(data.average, 5);
      assert.deepEqual(data.countsByValue, Object.fromEntries(Array.from({ length: 11 }, (_, v) => [String(v), 3])));
      assert.deepEqual(Object.keys(data.dataByUrlId).sort(), ['/agg-0', '/agg-1']);
      assert.equal(data.dataByUrlId['/agg-0']!.total, 17);
      assert.deepEqual(
        Object.entries(data.dataByDateBucket!).map(([day, d]) => [day, d.total]),
        [['2024-12-30T00:00:00.000Z', 11], ['2024-12-31T00:00:00.000Z', 11], ['2025-01-01T00:00:00.000Z', 11]],
      );
      const byMonth = (await aggregate({ questionId: nps._id, timeBucket: 'month' })).data.dataByDateBucket!;
      assert.deepEqual(Object.entries(byMonth).map(([m, d]) => [m, d.total]), [['2024-12-01T00:00:00.000Z', 22], ['2025-01-01T00:00:00.000Z', 11]]);
      const byYear = (await aggregate({ questionId: nps._id, timeBucket: 'year' })).data.dataByDateBucket!;
      assert.deepEqual(Object.entries(byYear).map(([y, d]) => [y, d.total]), [['2024-01-01T00:00:00.000Z', 22], ['2025-01-01T00:00:00.000Z', 11]]);
      assert.equal((await aggregate({ questionId: nps._id })).data.dataByDateBucket, undefined, 'no buckets without timeBucket');

      const both = (await aggregate({ questionIds: [nps._id, star._id] })).data;
      assert.deepEqual([both.total, both.average, both.countsByValue['5']], [38, Math.round(((165 + 25) / 38) * 100) / 100, 8]);
      assert.equal((await aggregate({ questionId: [star._id, nps._id] })).data.total, 38, 'questionId repeated');
      assert.equal((await aggregate({})).data.total, 38, 'every question of the tenant');
      const fromJan = (await aggregate({ questionId: nps._id, startDate: '2025-01-01T00:00:00.000Z' })).data;
      assert.equal(fromJan.total, 11, 'startDate is inclusive');
      assert.equal((await aggregate({ questionId: nps._id, urlId: '/agg-1' })).data.total, 16);
      assert.equal((await aggregate({ questionId: nps._id, userId: 'u0' })).data.total, 11);
      const seedPath = await aggregate({ questionId: nps._id, timeBucket: 'day' }, SEED_AGG);
      assert.deepEqual({ ...seedPath.data, createdAt: '' }, { ...data, createdAt: '' }, 'the seed path answers the same');
      refused(await t.api('GET', AGG, { query: { timeBucket: 'week' } }), 400, 'invalid-param');
      refused(await t.api('GET', AGG, { query: { startDate: 'soon' } }), 400, 'invalid-date');
      const none = (await aggregate({ questionId: 'no-such-question' })).data;
      assert.deepEqual([none.total, none.average, none.countsByValue], [0, 0, {}]);
    });

    test('tallies (no user or start date) answer exactly what reading every result answers, through creates, changes and deletions', async () => {
      const slider = await makeConfig(t, { type: 'slider', min: -3, max: 3 });
      const other = await makeConfig(t, { type: 'slider', min: 0, max: 20 });
      const start = now;
      const made: ResultView[] = [];
      for (let i = 0; i < 12; i++) {
        made.push(await makeResult(t, slider._id, (i % 7) - 3, { urlId: `/tally-${i % 3}` }));
        if (i % 4 === 3) now += DAY / 2;
      }
      ok(await t.api('PATCH', `/api/v1/question-results/${made[0]!._id}`, { body: { value: 3, urlId: '/tally-moved' } }));
      ok(await t.api('PATCH', `/api/v1/question-results/${made[1]!._id}`, { body: { questionId: other._id, value: 20 } }));
      ok(await t.api('DELETE', `/api/v1/question-results/${made[2]!._id}`));
      ok(await t.api('DELETE', `/api/v1/question-results/${made[3]!._id}`));
      // An inclusive start date before any result reads every result instead of the tallies.
      const scan = { startDate: '1970-01-01T00:00:00.000Z', forceRecalculate: true };
      const shapes: Record<string, string | string[]>[] = [
        { questionId: slider._id, timeBucket: 'day' },
        { questionId: slider._id, timeBucket: 'month' },
        { questionIds: [slider._id, other._id], timeBucket: 'year' },
        { questionId: slider._id, urlId: '/tally-1' },
        { questionId: slider._id, urlId: '/tally-moved' },
        {},
      ];
      for (const shape of shapes) {
        const tallied = (await aggregate({ ...shape, forceRecalculate: true })).data;
        const read = (await aggregate({ ...shape, ...scan })).data;
        assert.deepEqual({ ...tallied, createdAt: '' }, { ...read, createdAt: '' }, JSON.stringify(shape));
      }
      assert.equal((await aggregate({ questionId: slider._id, forceRecalculate: true })).data.total, 9, 'twelve made, one moved to another question, two deleted');
      // Later tests count the NPS question's days: its results stay on the first three.
      now = start;
    });

    test('answers come from the cache until it expires; forceRecalculate bypasses it; 2 credits, or 10 when forced', async () => {
      const query = { questionId: nps._id, urlId: '/agg-0' };
      const first = await aggregate(query);
      assert.equal(first.cache, 'miss');
      const second = await aggregate(query);
      assert.deepEqual([second.cache, second.data.createdAt], ['hit', first.data.createdAt]);
      await makeResult(t, nps._id, 10, { urlId: '/agg-0' });
      assert.equal((await aggregate(query)).data.total, 17, 'a new result waits for the entry to expire');
      const forced = await aggregate({ ...query, forceRecalculate: true });
      assert.deepEqual([forced.cache, forced.data.total], ['miss', 18]);
      const after = await aggregate(query);
      assert.deepEqual([after.cache, after.data.total, after.data.createdAt], ['hit', 18, forced.data.createdAt], 'the forced answer replaced the entry');

      now += cacheTtlMs(18) - 1;
      assert.equal((await aggregate(query)).cache, 'hit', 'still fresh just before its lifetime ends');
      now += 2;
      assert.equal((await aggregate(query)).cache, 'miss', 'computed anew once expired');

      const before = await creditsUsed(t);
      await aggregate(query);
      await aggregate({ ...query, forceRecalculate: true });
      assert.equal((await creditsUsed(t)) - before - 1, 12);
    });

    test('concurrent misses of one key compute once, in the aggregation pool', async () => {
      const started: AggregationEvent[] = [];
      const stop = t.server.services.aggregator.observe((event) => {
        if (event.type === 'started') started.push(event);
      });
      try {
        const query = { questionId: nps._id, userId: 'u1', timeBucket: 'month' };
        const answers = await Promise.all(Array.from({ length: 20 }, () => aggregate(query)));
        assert.equal(started.length, 1, 'one computation for twenty concurrent misses');
        assert.equal(new Set(answers.map((a) => a.data.createdAt)).size, 1);
        assert.ok(answers.every((a) => a.data.total === 11));
        started.length = 0;
        await Promise.all(Array.from({ length: 3 }, () => aggregate({ ...query, forceRecalculate: true })));
        assert.equal(started.length, 3, 'forced calls each compute');
      } finally {
        stop();
      }
    });

    test('the bulk form answers each aggregate by its aggId, 2 credits each', async () => {
      const aggregations = [
        { aggId: 'nps-day', questionId: nps._id, timeBucket: 'day' },
        { aggId: 'both', questionIds: [nps._id, star._id], urlId: '/agg-0' },
        { aggId: 'jan', questionId: nps._id, startDate: '2025-01-01T00:00:00.000Z' },
      ];
      const before = await creditsUsed(t);
      const r = ok(await t.api<{ data: Record<string, Aggregate> }>('POST', `${AGG}/bulk`, { body: { aggregations } }));
      assert.equal((await creditsUsed(t)) - before - 1, 6);
      assert.deepEqual(Object.keys(r.data), ['nps-day', 'both', 'jan']);
      assert.equal(Object.keys(r.data['nps-day']!.dataByDateBucket!).length, 3);
      const jan = await aggregate({ questionId: nps._id, startDate: '2025-01-01T00:00:00.000Z', forceRecalculate: true });
      assert.equal(r.data['jan']!.total, jan.data.total);
      const single = await aggregate({ questionIds: [nps._id, star._id], urlId: '/agg-0' });
      assert.equal(r.data['both']!.total, single.data.total);
      refused(await t.api('POST', `${SEED_AGG}/bulk`, { body: { aggregations: [{ aggId: 'x' }, { aggId: 'x' }] } }), 400, 'invalid-param');
      refused(await t.api('POST', `${AGG}/bulk`, { body: { aggregations: [] } }), 400, 'invalid-param');
    });

    test('combination with comments: a value range and a start date, both inclusive, one or more questions, newest first', async () => {
      const thumbs = await makeConfig(t, { type: 'thumbs' });
      const made: { id: string; value: number; question: string }[] = [];
      for (let i = 0; i < 8; i++) {
        now += 60_000;
        const question = i % 4 === 3 ? thumbs._id : star._id;
        const value = question === thumbs._id ? 1 : (i % 5) + 1;
        const comment = ok(await postComment(t, '/combine', { commenterName: `C${i}`, questionValues: { [question]: value } })).comment;
        made.push({ id: comment._id, value, question });
      }
      await makeResult(t, star._id, 4, { urlId: '/combine' });
      const combine = async (query: Record<string, string | number | string[]>) => ok(await t.api<{ data: Combined }>('GET', `${AGG}/combine/comments`, { query })).data;
      const fourToFive = await combine({ questionId: star._id, minValue: 4, maxValue: 5 });
      const expected = made.filter((m) => m.question === star._id && m.value >= 4).reverse();
      assert.deepEqual(fourToFive.results.map((r) => [r.comment?._id, r.result.value]), expected.map((m) => [m.id, m.value]), 'inclusive range, newest first, only results tied to comments');
      assert.ok(fourToFive.results.every((r) => r.result.commentId === r.comment?._id));
      const either = await combine({ questionIds: `${star._id},${thumbs._id}`, minValue: 1, maxValue: 1 });
      assert.deepEqual(either.results.map((r) => r.comment?._id).sort(), made.filter((m) => m.value === 1).map((m) => m.id).sort());
      const since = made[5]!;
      const startDate = (await combine({ questionIds: `${star._id},${thumbs._id}` })).results.find((r) => r.comment?._id === since.id)!.result.createdAt;
      const recent = await combine({ questionIds: `${star._id},${thumbs._id}`, startDate });
      assert.deepEqual(recent.results.map((r) => r.comment?._id), made.slice(5).map((m) => m.id).reverse(), 'startDate is inclusive');
      assert.equal((await combine({ questionIds: `${star._id},${thumbs._id}`, limit: 2 })).results.length, 2);

      ok(await t.api('DELETE', `/api/v1/comments/${made[7]!.id}`));
      const gone = await combine({ questionId: thumbs._id, forceRecalculate: 'true' });
      assert.equal(gone.results.find((r) => r.result.commentId === made[7]!.id)?.comment, null, 'a deleted comment is null beside its result');
      refused(await t.api('GET', `${SEED_AGG}/combine/comments`, { query: { minValue: 5, maxValue: 4 } }), 400, 'invalid-param');
    });

    test('questionValues on a new comment are stored as its results and announced live; a bad one refuses the comment', async () => {
      const urlId = '/with-answers';
      const reader = await subscribe(t, t.tenant.tenantId, urlId);
      try {
        const comment = ok(await postComment(t, urlId, { userId: 'answerer', questionValues: { [nps._id]: 9, [star._id]: '4' } })).comment;
        const seen = [await nextQuestionResult(reader), await nextQuestionResult(reader)];
        assert.deepEqual(seen.map((e) => [e.questionResult['questionId'], e.questionResult['value'], e.questionResult['commentId'], e['urlId']]).sort(), [
          [nps._id, 9, comment._id, urlId],
          [star._id, 4, comment._id, urlId],
        ].sort());
        assert.ok(seen.every((e) => e.questionResult['userId'] === undefined && e.questionResult['anonUserId'] === undefined), 'the public projection only');
        const stored = ok(await t.api<{ questionResults: ResultView[] }>('GET', '/api/v1/question-results', { query: { urlId } })).questionResults;
        assert.deepEqual(stored.map((r) => [r.questionId, r.value, r.commentId, r.userId]).sort(), [
          [nps._id, 9, comment._id, 'answerer'],
          [star._id, 4, comment._id, 'answerer'],
        ].sort());

        const direct = await makeResult(t, nps._id, 3, { urlId });
        assert.equal((await nextQuestionResult(reader)).questionResult['_id'], direct._id, 'results made through the API are announced too');

        const comments = async () => ok(await t.api<{ comments: unknown[] }>('GET', '/api/v1/comments', { query: { urlId } })).comments.length;
        const count = await comments();
        for (const questionValues of [{ [nps._id]: 11 }, { 'no-such-question': 1 }, { [nps._id]: 'nine' }, { [star._id]: { v: 1 } }]) {
          const r = await postComment(t, urlId, { questionValues });
          assert.equal(r.status, 400, JSON.stringify(questionValues));
        }
        assert.equal(await comments(), count, 'no comment was made for a refused answer');
        assert.equal(await t.server.services.store.count(QUESTION_COLLECTIONS.results, { urlId }), 3);
      } finally {
        reader.close();
      }
    });
  });
}
