import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { QUESTION_COLLECTIONS } from '../../actors/question/question-model.js';
import { clock } from '../../engine/clock.js';
import { eventually } from '../fixtures/eventually.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { as } from './identity-helpers.js';
import { type ConfigView, creditsUsed, makeConfig, makeResult, ok, postComment, refused, type ResultView } from './question-fixture.js';

type Configs = { questionConfigs: ConfigView[]; creditsCost: number };
type Results = { questionResults: ResultView[]; creditsCost: number };

for (const storage of storages()) {
  describe(`question configurations and results on ${storage}`, () => {
    let t: TestServer;
    let restoreClock: (() => void) | undefined;
    before(async () => {
      t = await startTestServer(storage);
    });
    after(async () => {
      await t.destroy();
    });
    afterEach(() => {
      restoreClock?.();
      restoreClock = undefined;
    });

    /** Credits one call costs: the difference of two usage reads, less the first read's own charge. */
    async function costOf(call: () => Promise<unknown>): Promise<number> {
      const before = await creditsUsed(t);
      await call();
      return (await creditsUsed(t)) - before - 1;
    }

    test('a configuration is completed by its type: NPS 0-10, thumbs 0-1, star 1-numStars, slider min-max', async () => {
      const nps = await makeConfig(t, { type: 'nps', min: 3, max: 4 });
      assert.deepEqual([nps.min, nps.max, nps.defaultValue, nps.usedCount], [0, 10, 0, 0]);
      assert.equal(nps.lastUsed, nps.createdAt, 'lastUsed is the creation time until a first result');
      const thumbs = await makeConfig(t, { type: 'thumbs' });
      assert.deepEqual([thumbs.min, thumbs.max], [0, 1]);
      const star = await makeConfig(t, { type: 'star', numStars: 7, defaultValue: 4 });
      assert.deepEqual([star.min, star.max, star.numStars, star.defaultValue], [1, 7, 7, 4]);
      assert.deepEqual([(await makeConfig(t, { type: 'star' })).max], [5], 'five stars by default');
      const slider = await makeConfig(t, { type: 'slider', min: -5, max: 5 });
      assert.deepEqual([slider.min, slider.max, slider.defaultValue], [-5, 5, -5]);

      const bad: [Record<string, unknown>, string][] = [
        [{ type: 'emoji' }, 'invalid-param'],
        [{ type: 'slider', min: 5, max: 5 }, 'invalid-param'],
        [{ type: 'slider', min: 0.5, max: 5 }, 'invalid-param'],
        [{ type: 'star', numStars: 11 }, 'invalid-param'],
        [{ type: 'nps', defaultValue: 11 }, 'invalid-param'],
        [{ question: '   ' }, 'invalid-param'],
        [{ subQuestionIds: ['no-such-question'] }, 'invalid-question-id'],
        [{ colour: 'red' }, 'unexpected-param'],
      ];
      for (const [fields, code] of bad) {
        refused(await t.api('POST', '/api/v1/question-configs', { body: { name: 'N', question: 'Q?', type: 'star', reportingOrder: 1, ...fields } }), 400, code, JSON.stringify(fields));
      }
      refused(await t.api('POST', '/api/v1/question-configs', { body: { name: 'N', type: 'star', reportingOrder: 1 } }), 400, 'missing-param');
      const withSub = await makeConfig(t, { subQuestionIds: [nps._id] });
      assert.deepEqual(withSub.subQuestionIds, [nps._id]);
    });

    test('configurations are listed 100 a page by question ascending, 1 credit per 100; another tenant sees none of them', async () => {
      const other = await t.addTenant();
      const mine = ok(await t.api<Configs>('GET', '/api/v1/question-configs'));
      const start = mine.questionConfigs.length;
      const made: string[] = [];
      for (let i = 0; i < 130 - start; i++) made.push((await makeConfig(t, { question: `Q ${String(129 - i).padStart(3, '0')}?` }))._id);
      const first = ok(await t.api<Configs>('GET', '/api/v1/question-configs'));
      assert.equal(first.questionConfigs.length, 100);
      assert.equal(first.creditsCost, 1);
      const second = ok(await t.api<Configs>('GET', '/api/v1/question-configs', { query: { skip: 100 } }));
      assert.equal(second.questionConfigs.length, 30);
      const texts = [...first.questionConfigs, ...second.questionConfigs].map((c) => c.question);
      assert.deepEqual(texts, [...texts].sort(), 'sorted by question text');
      assert.equal(ok(await t.api<Configs>('GET', '/api/v1/question-configs', { ...as(other) })).questionConfigs.length, 0);
      refused(await t.api('GET', `/api/v1/question-configs/${made[0]}`, as(other)), 404, 'not-found');
      refused(await t.api('DELETE', `/api/v1/question-configs/${made[0]}`, as(other)), 404, 'not-found');
      for (const id of made) ok(await t.api('DELETE', `/api/v1/question-configs/${id}`));
    });

    test('PATCH changes what it names; a change of type re-derives the bounds; an empty or bad change is refused and changes nothing', async () => {
      const config = await makeConfig(t, { type: 'slider', min: 0, max: 100, defaultValue: 50 });
      ok(await t.api('PATCH', `/api/v1/question-configs/${config._id}`, { body: { question: 'Renamed?', labelPositive: 'Yes!' } }));
      let now = ok(await t.api<{ questionConfig: ConfigView & { labelPositive: string } }>('GET', `/api/v1/question-configs/${config._id}`)).questionConfig;
      assert.deepEqual([now.question, now.labelPositive, now.min, now.max, now.defaultValue], ['Renamed?', 'Yes!', 0, 100, 50]);
      refused(await t.api('PATCH', `/api/v1/question-configs/${config._id}`, { body: {} }), 400, 'invalid-param');
      refused(await t.api('PATCH', `/api/v1/question-configs/${config._id}`, { body: { min: 200 } }), 400, 'invalid-param');
      refused(await t.api('PATCH', `/api/v1/question-configs/${config._id}`, { body: { subQuestionIds: [config._id] } }), 400, 'invalid-question-id');
      refused(await t.api('PATCH', '/api/v1/question-configs/missing', { body: { name: 'x' } }), 404, 'not-found');
      ok(await t.api('PATCH', `/api/v1/question-configs/${config._id}`, { body: { type: 'nps' } }));
      now = ok(await t.api<{ questionConfig: ConfigView & { labelPositive: string } }>('GET', `/api/v1/question-configs/${config._id}`)).questionConfig;
      assert.deepEqual([now.type, now.min, now.max, now.defaultValue, now.question], ['nps', 0, 10, 0, 'Renamed?']);
    });

    test('a result must name a question of the tenant and a value within its bounds, and a comment of the tenant if any', async () => {
      const star = await makeConfig(t, { type: 'star' });
      const other = await t.addTenant();
      const foreign = await makeConfig(t, {}, as(other));
      const comment = ok(await postComment(t, '/q-valid')).comment;
      const bad: [Record<string, unknown>, number, string][] = [
        [{ questionId: 'missing' }, 400, 'invalid-question-id'],
        [{ questionId: foreign._id }, 400, 'invalid-question-id'],
        [{ value: 6 }, 400, 'invalid-param'],
        [{ value: 0 }, 400, 'invalid-param'],
        [{ value: 2.5 }, 400, 'invalid-param'],
        [{ value: '3' }, 400, 'invalid-param'],
        [{ urlId: ' ' }, 400, 'missing-url-id'],
        [{ commentId: 'no-such-comment' }, 404, 'invalid-comment-id'],
      ];
      for (const [fields, status, code] of bad) {
        refused(await t.api('POST', '/api/v1/question-results', { body: { urlId: '/q-valid', questionId: star._id, value: 3, ...fields } }), status, code, JSON.stringify(fields));
      }
      refused(await t.api('POST', '/api/v1/question-results', { body: { questionId: star._id, value: 3 } }), 400, 'missing-url-id');
      assert.equal(await t.server.services.store.count(QUESTION_COLLECTIONS.results, { questionId: star._id }), 0, 'nothing refused was stored');

      const result = await makeResult(t, star._id, 4, { urlId: '/q-valid', userId: 'u1', commentId: comment._id, meta: [{ name: 'source', values: ['a', 'b'] }] });
      assert.deepEqual([result.value, result.userId, result.anonUserId, result.commentId, result.meta], [4, 'u1', '', comment._id, [{ name: 'source', values: ['a', 'b'] }]]);
      const used = ok(await t.api<{ questionConfig: ConfigView }>('GET', `/api/v1/question-configs/${star._id}`)).questionConfig;
      assert.deepEqual([used.usedCount, used.lastUsed], [1, result.createdAt], 'each result counts one use of its question');
      assert.deepEqual(ok(await t.api<{ questionResult: ResultView }>('GET', `/api/v1/question-results/${result._id}`)).questionResult, result);
      refused(await t.api('GET', `/api/v1/question-results/${result._id}`, as(other)), 404, 'not-found');
    });

    test('results are listed by createdAt ascending, filtered by urlId, userId, startDate (inclusive) and one or more questions; 1 credit per 100', async () => {
      const a = await makeConfig(t, { type: 'nps' });
      const b = await makeConfig(t, { type: 'thumbs' });
      let now = Date.UTC(2025, 2, 1, 12);
      restoreClock = clock.set(() => now);
      const made: ResultView[] = [];
      for (let i = 0; i < 12; i++) {
        made.push(await makeResult(t, i % 2 === 0 ? a._id : b._id, i % 2, { urlId: `/list-${i % 3}`, userId: `user-${i % 4}` }));
        now += 60_000;
      }
      const list = async (query: Record<string, string | number | string[]>) => ok(await t.api<Results>('GET', '/api/v1/question-results', { query })).questionResults.map((r) => r._id);
      const ids = (pick: (r: ResultView, i: number) => boolean) => made.filter(pick).map((r) => r._id);
      const both = [a._id, b._id];
      assert.deepEqual(await list({ questionIds: both.join(',') }), ids(() => true), 'oldest first');
      assert.deepEqual(await list({ questionId: a._id }), ids((_, i) => i % 2 === 0));
      assert.deepEqual(await list({ questionId: both }), ids(() => true), 'questionId repeated');
      assert.deepEqual(await list({ questionIds: both.join(','), urlId: '/list-1' }), ids((_, i) => i % 3 === 1));
      assert.deepEqual(await list({ questionIds: both.join(','), userId: 'user-2' }), ids((_, i) => i % 4 === 2));
      assert.deepEqual(await list({ questionIds: both.join(','), startDate: made[5]!.createdAt }), ids((_, i) => i >= 5), 'startDate is inclusive');
      assert.deepEqual(await list({ questionIds: both.join(','), startDate: Date.parse(made[5]!.createdAt) }), ids((_, i) => i >= 5), 'startDate in ms');
      assert.deepEqual(await list({ questionIds: both.join(','), skip: 10 }), ids((_, i) => i >= 10));
      assert.deepEqual(await list({ questionIds: both.join(','), limit: 3 }), ids((_, i) => i < 3));
      refused(await t.api('GET', '/api/v1/question-results', { query: { startDate: 'yesterday' } }), 400, 'invalid-date');
      refused(await t.api('GET', '/api/v1/question-results', { query: { limit: 1001 } }), 400, 'invalid-param');

      // Sent 100 at a time: the actor takes them in one batch per storage round trip.
      for (let i = 0; i < 1090; i += 100) await Promise.all(Array.from({ length: Math.min(100, 1090 - i) }, (_, j) => makeResult(t, a._id, (i + j) % 11, { urlId: '/bulk' })));
      const page = ok(await t.api<Results>('GET', '/api/v1/question-results', { query: { questionId: a._id } }));
      assert.deepEqual([page.questionResults.length, page.creditsCost], [1000, 10], 'at most 1000 a page, 1 credit per 100');
      const rest = ok(await t.api<Results>('GET', '/api/v1/question-results', { query: { questionId: a._id, skip: 1000 } }));
      assert.deepEqual([rest.questionResults.length, rest.creditsCost], [96, 1]);
    });

    test('PATCH and DELETE of a result; the new value is checked against the (new) question', async () => {
      const star = await makeConfig(t, { type: 'star' });
      const nps = await makeConfig(t, { type: 'nps' });
      const result = await makeResult(t, star._id, 5);
      refused(await t.api('PATCH', `/api/v1/question-results/${result._id}`, { body: { value: 9 } }), 400, 'invalid-param');
      refused(await t.api('PATCH', `/api/v1/question-results/${result._id}`, { body: { questionId: 'missing' } }), 400, 'invalid-question-id');
      ok(await t.api('PATCH', `/api/v1/question-results/${result._id}`, { body: { questionId: nps._id, value: 9, urlId: '/moved', anonUserId: 'anon-7' } }));
      const now = ok(await t.api<{ questionResult: ResultView }>('GET', `/api/v1/question-results/${result._id}`)).questionResult;
      assert.deepEqual([now.questionId, now.value, now.urlId, now.anonUserId, now.createdAt], [nps._id, 9, '/moved', 'anon-7', result.createdAt]);
      ok(await t.api('DELETE', `/api/v1/question-results/${result._id}`));
      refused(await t.api('GET', `/api/v1/question-results/${result._id}`), 404, 'not-found');
      refused(await t.api('DELETE', `/api/v1/question-results/${result._id}`), 404, 'not-found');
    });

    test('deleting a configuration costs 100 credits and removes all its results, not the comments', async () => {
      const doomed = await makeConfig(t, { type: 'nps' });
      const kept = await makeConfig(t, { type: 'nps' });
      const comment = ok(await postComment(t, '/q-doomed', { questionValues: { [doomed._id]: 7, [kept._id]: '8' } })).comment;
      // More than one removal step of 1,000; fewer on MongoDB, whose test server (FerretDB) is slow.
      const bulk = storage === 'lmdb' ? 2500 : 1200;
      for (let i = 0; i < bulk; i += 500) {
        await t.server.services.store.commit(
          Array.from({ length: Math.min(500, bulk - i) }, (_, j) => ({
            op: 'put' as const,
            collection: QUESTION_COLLECTIONS.results,
            doc: { _id: `bulk-${doomed._id}-${i + j}`, tenantId: t.tenant.tenantId, urlId: '/q-doomed', questionId: doomed._id, value: 5, userId: null, anonUserId: null, commentId: null, meta: null, createdAt: new Date().toISOString() },
          })),
        );
      }
      // With a start date the results themselves are read (some here were written straight to storage, without tallies).
      const tenantTotal = async () => ok(await t.api<{ data: { total: number } }>('GET', '/api/v1/question-results-aggregation', { query: { forceRecalculate: true, startDate: 0 } })).data.total;
      const totalBefore = await tenantTotal();
      const cost = await costOf(async () => ok(await t.api('DELETE', `/api/v1/question-configs/${doomed._id}`)));
      assert.equal(cost, 100);
      assert.equal(totalBefore - (await tenantTotal()), bulk + 1, 'the deleted question leaves the tenant-wide aggregate at once');
      const named = ok(await t.api<{ data: { total: number } }>('GET', '/api/v1/question-results-aggregation', { query: { questionId: doomed._id, startDate: 0 } })).data;
      assert.equal(named.total, 0, 'and aggregates naming it');
      refused(await t.api('GET', `/api/v1/question-configs/${doomed._id}`), 404, 'not-found');
      refused(await t.api('POST', '/api/v1/question-results', { body: { urlId: '/q', questionId: doomed._id, value: 1 } }), 400, 'invalid-question-id');
      assert.equal(ok(await t.api<Results>('GET', '/api/v1/question-results', { query: { questionId: doomed._id } })).questionResults.length, 0, 'gone for readers at once');
      const store = t.server.services.store;
      await eventually(async () => (await store.count(QUESTION_COLLECTIONS.results, { questionId: doomed._id })) === 0, 60_000);
      await eventually(async () => (await store.get(QUESTION_COLLECTIONS.configs, doomed._id)) === undefined, 60_000);
      assert.equal(await store.count(QUESTION_COLLECTIONS.results, { questionId: kept._id }), 1, 'results of other questions stay');
      ok(await t.api('GET', `/api/v1/comments/${comment._id}`), 'the comment stays');
    });

    test('a removal of results cut short (a deleted configuration still in storage) carries on when the tenant is next served', async () => {
      const other = await t.addTenant();
      const store = t.server.services.store;
      const tenantId = other.tenantId;
      const at = new Date().toISOString();
      const config = { _id: `cut-${tenantId}`, tenantId, name: 'Gone', question: 'Gone?', helpText: '', createdAt: at, createdBy: 'api', usedCount: 1500, lastUsed: at, type: 'nps', numStars: 0, min: 0, max: 10, defaultValue: 0, labelNegative: '', labelPositive: '', customOptions: [], subQuestionIds: [], alwaysShowSubQuestions: false, reportingOrder: 0, deletedAt: at };
      await store.commit([{ op: 'put', collection: QUESTION_COLLECTIONS.configs, doc: config }]);
      for (let i = 0; i < 1500; i += 500) {
        await store.commit(
          Array.from({ length: 500 }, (_, j) => ({
            op: 'put' as const,
            collection: QUESTION_COLLECTIONS.results,
            doc: { _id: `cut-${tenantId}-${i + j}`, tenantId, urlId: '/cut', questionId: config._id, value: 3, userId: null, anonUserId: null, commentId: null, meta: null, createdAt: at },
          })),
        );
      }
      assert.deepEqual(ok(await t.api<Configs>('GET', '/api/v1/question-configs', as(other))).questionConfigs, [], 'a deleted configuration is not listed');
      await eventually(async () => (await store.count(QUESTION_COLLECTIONS.results, { tenantId })) === 0, 60_000);
      await eventually(async () => (await store.get(QUESTION_COLLECTIONS.configs, config._id)) === undefined, 60_000);
    });
  });
}
