/**
 * Calls of every question operation with valid input, for the OpenAPI wire-shape test: a
 * configuration of each type, results with and without a comment and meta, the aggregate with
 * time buckets, its bulk form and the combination with comments; `t.api` validates each answer.
 */
import assert from 'node:assert/strict';
import type { TestServer } from '../fixtures/server.js';

function ok<T>(r: { status: number; body: T }, what: string): T {
  assert.equal(r.status, 200, `${what}: ${JSON.stringify(r.body)}`);
  return r.body;
}

export async function callQuestionOperations(t: TestServer): Promise<void> {
  const make = async (body: Record<string, unknown>) => ok(await t.api<{ questionConfig: { _id: string } }>('POST', '/api/v1/question-configs', { body }), `create ${String(body['type'])}`).questionConfig._id;
  const nps = await make({ name: 'NPS', question: 'Would you recommend us?', type: 'nps', reportingOrder: 0, helpText: 'Zero to ten', labelNegative: 'No', labelPositive: 'Yes' });
  const star = await make({ name: 'Stars', question: 'Rate it', type: 'star', numStars: 5, reportingOrder: 1, summaryLabel: 'Rating', subQuestionIds: [nps], customOptions: [{ imageSrc: '/star.png', name: 'Star' }] });
  await make({ name: 'Slider', question: 'How much?', type: 'slider', min: 0, max: 100, defaultValue: 50, reportingOrder: 2 });
  ok(await t.api('GET', '/api/v1/question-configs'), 'configs');
  ok(await t.api('GET', `/api/v1/question-configs/${star}`), 'one config');
  ok(await t.api('PATCH', `/api/v1/question-configs/${star}`, { body: { helpText: 'One to five' } }), 'patch config');

  const urlId = '/question-shapes';
  const comment = ok(
    await t.api<{ comment: { _id: string } }>('POST', '/api/v1/comments', {
      body: { commenterName: 'Ann', comment: 'Great', url: 'https://blog.example/question-shapes', urlId, locale: 'en_us', questionValues: { [nps]: 9, [star]: 5 } },
    }),
    'comment with answers',
  ).comment;
  const result = ok(
    await t.api<{ questionResult: { _id: string } }>('POST', '/api/v1/question-results', { body: { urlId, questionId: nps, value: 3, userId: 'shape-user', meta: [{ name: 'plan', values: ['pro'] }] } }),
    'create result',
  ).questionResult;
  ok(await t.api('GET', '/api/v1/question-results', { query: { questionIds: `${nps},${star}` } }), 'results');
  ok(await t.api('GET', `/api/v1/question-results/${result._id}`), 'one result');
  ok(await t.api('PATCH', `/api/v1/question-results/${result._id}`, { body: { value: 4 } }), 'patch result');

  ok(await t.api('GET', '/api/v1/question-results-aggregation', { query: { questionId: nps, timeBucket: 'day' } }), 'aggregate');
  ok(await t.api('GET', '/api/v1/question-results-aggregation', { query: { questionIds: [nps, star], forceRecalculate: true } }), 'aggregate, forced');
  ok(await t.api('POST', '/api/v1/question-results-aggregation/bulk', { body: { aggregations: [{ aggId: 'a', questionId: nps, timeBucket: 'month' }, { aggId: 'b', questionIds: [nps, star], urlId }] } }), 'bulk aggregate');
  const combined = ok(
    await t.api<{ data: { results: { comment: unknown }[] } }>('GET', '/api/v1/question-results-aggregation/combine/comments', { query: { questionIds: [nps, star], minValue: 0, maxValue: 10 } }),
    'combine with comments',
  );
  assert.equal(combined.data.results.filter((r) => r.comment !== null).length, 2, `both answers of comment ${comment._id}`);

  ok(await t.api('DELETE', `/api/v1/question-results/${result._id}`), 'delete result');
  ok(await t.api('DELETE', `/api/v1/question-configs/${star}`), 'delete config');
}
