/**
 * Questions in cluster mode: the tenant's questions actor lives on one node, requests and
 * readers reach any. Answers sent with a comment through either node are stored once and reach
 * every reader of the page (readers connect through the shared port, so the kernel spreads them
 * over both nodes) as one `question-result` event each; aggregates through any node count them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LiveEvent } from '../../actors/live/live-events.js';
import { startTestCluster, type TestCluster } from '../fixtures/cluster.js';
import { clusterTestsEnabled } from '../fixtures/nats.js';
import { LiveClient } from '../unit/live/fixtures.js';
import { call, comment } from './helpers.js';

const enabled = clusterTestsEnabled();

describe('cluster mode: questions', { skip: !enabled }, () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster({ nodes: 2 });
  });
  after(async () => {
    await c?.destroy();
  });

  test('answers sent with comments reach every reader on every node once, and every node aggregates them', async () => {
    const made = await call<{ questionConfig: { _id: string } }>(c, 'POST', '/api/v1/question-configs', { name: 'NPS', question: 'Recommend?', type: 'nps', reportingOrder: 0 });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const questionId = made.body.questionConfig._id;
    const urlId = '/cluster/questions';
    await comment(c, urlId);
    const page = await call<{ urlIdWS: string; tenantIdWS: string }>(c, 'GET', `/api/v1/comments?urlId=${encodeURIComponent(urlId)}`);
    assert.equal(page.status, 200);
    const subUrl = `ws://127.0.0.1:${c.port}/sub?urlId=${encodeURIComponent(page.body.urlIdWS)}&tenantIdWS=${encodeURIComponent(page.body.tenantIdWS)}`;
    const readers = await Promise.all(Array.from({ length: 6 }, () => LiveClient.connect(subUrl)));

    const commentIds: string[] = [];
    for (let i = 0; i < 4; i++) commentIds.push(await comment(c, urlId, { questionValues: { [questionId]: 6 + i } }));
    for (const reader of readers) {
      const seen: LiveEvent[] = [];
      while (seen.length < 4) {
        const event = await reader.next();
        if (event.type === 'question-result') seen.push(event);
      }
      const results = seen.map((e) => e['questionResult'] as { commentId: string; value: number });
      assert.deepEqual(results.map((r) => [r.commentId, r.value]).sort(), commentIds.map((id, i) => [id, 6 + i]).sort());
      reader.close();
    }

    const listed = await call<{ questionResults: { commentId: string }[] }>(c, 'GET', `/api/v1/question-results?questionId=${questionId}`);
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.questionResults.map((r) => r.commentId).sort(), [...commentIds].sort(), 'each answer stored once');
    for (let i = 0; i < 4; i++) {
      const agg = await call<{ data: { total: number; average: number } }>(c, 'GET', `/api/v1/question-results-aggregation?questionId=${questionId}&forceRecalculate=true`);
      assert.equal(agg.status, 200, JSON.stringify(agg.body));
      assert.deepEqual([agg.body.data.total, agg.body.data.average], [4, 7.5]);
    }
  });
});
