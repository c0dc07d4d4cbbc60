import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { afterRestart, killUnderLoad } from '../fixtures/crash-load.js';
import { checkedFetch } from '../fixtures/openapi.js';
import { demoHeaders, spawnServer } from '../fixtures/server-process.js';
import { storages } from '../fixtures/server.js';
import { withServerStorage } from '../fixtures/server-storage.js';

const WORKERS = 30;
const ACKS_BEFORE_KILL = 400;

/**
 * Kills a server with SIGKILL while results pour into one question, restarts it on the same
 * data, and checks that every acknowledged result is stored, that at most the requests in
 * flight at the kill were stored besides them, and that the question's `usedCount` and tallies
 * (written in the same batch as each result) agree with the results stored.
 */
for (const storage of storages()) {
  describe(`question results across a crash on ${storage}`, () => {
    test('acknowledged results survive SIGKILL; usedCount and the tallies agree with the stored results after the restart', () =>
      withServerStorage(storage, 'question-crash', async (env) => {
        const first = await spawnServer(env);
        const headers = demoHeaders(first);
        const made = await checkedFetch(`${first.url}/api/v1/question-configs`, { method: 'POST', headers, body: JSON.stringify({ name: 'NPS', question: 'Recommend?', type: 'nps', reportingOrder: 0 }) });
        assert.equal(made.status, 200);
        const questionId = ((await made.json()) as { questionConfig: { _id: string } }).questionConfig._id;

        const acked = new Set<string>();
        const { unknown } = await killUnderLoad(first, {
          workers: WORKERS,
          acksBeforeKill: ACKS_BEFORE_KILL,
          send: async (w, n) => {
            const res = await checkedFetch(`${first.url}/api/v1/question-results`, {
              method: 'POST',
              headers,
              body: JSON.stringify({ urlId: `/crash-${w % 5}`, questionId, value: n % 11, userId: `w${w}-${n}` }),
            });
            if (res.status !== 200) return false;
            acked.add(((await res.json()) as { questionResult: { _id: string } }).questionResult._id);
            return true;
          },
        });

        await afterRestart(env, headers, async (get) => {
          const stored: string[] = [];
          for (let skip = 0; ; skip += 1000) {
            const page = (await get<{ questionResults: { _id: string }[] }>(`/api/v1/question-results?questionId=${questionId}&skip=${skip}`)).questionResults;
            stored.push(...page.map((r) => r._id));
            if (page.length < 1000) break;
          }
          const kept = new Set(stored);
          const lost = [...acked].filter((id) => !kept.has(id));
          assert.deepEqual(lost, [], 'every acknowledged result is stored');
          assert.ok(stored.length <= acked.size + unknown, `${stored.length} stored, ${acked.size} acknowledged, ${unknown} in flight`);
          const config = (await get<{ questionConfig: { usedCount: number } }>(`/api/v1/question-configs/${questionId}`)).questionConfig;
          assert.equal(config.usedCount, stored.length, 'usedCount moves with the results');
          const tallied = (await get<{ data: { total: number } }>(`/api/v1/question-results-aggregation?questionId=${questionId}`)).data;
          const read = (await get<{ data: { total: number } }>(`/api/v1/question-results-aggregation?questionId=${questionId}&startDate=0`)).data;
          assert.deepEqual([tallied.total, read.total], [stored.length, stored.length], 'the tallies move with the results');
        });
      }));
  });
}
