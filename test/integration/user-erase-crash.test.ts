/**
 * A user deleted with their comments, the server killed (SIGKILL) while the job runs: the next
 * start carries the job on to the end. Nothing depends on timing: the kill comes once the
 * comments start to go, and if the job was quicker, the end state is checked all the same.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventually } from '../fixtures/eventually.js';
import { checkedFetch } from '../fixtures/openapi.js';
import { demoHeaders, spawnServer, type ServerProcess } from '../fixtures/server-process.js';
import { withServerStorage } from '../fixtures/server-storage.js';
import { storages } from '../fixtures/server.js';
import { inParallel } from './page-helpers.js';

const COMMENTS = 500;
const PAGES = 50;

for (const storage of storages()) {
  describe(`deleting a user across a crash on ${storage}`, () => {
    test('a SIGKILL midway: the next start finishes the job', () =>
      withServerStorage(storage, 'user-erase-crash', async (env) => {
        const first = await spawnServer(env);
        const headers = demoHeaders(first);
        const userId = `${first.demo!.tenantId}:crashy`;
        const api = (server: ServerProcess, method: string, path: string, body?: unknown) =>
          checkedFetch(server.url + path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
        assert.equal((await api(first, 'POST', '/api/v1/sso-users', { id: 'crashy', username: 'crashy', email: 'crashy@example.com' })).status, 200);
        await inParallel(COMMENTS, 16, async (i) => {
          const res = await api(first, 'POST', '/api/v1/comments', { commenterName: 'crashy', comment: `Comment ${i}`, url: `https://example.com/${i % PAGES}`, urlId: `crash-${i % PAGES}`, locale: 'en_us', userId });
          assert.equal(res.status, 200, await res.text());
        });
        const left = async (server: ServerProcess): Promise<number> => {
          const res = await api(server, 'GET', `/api/v1/comments?userId=${encodeURIComponent(userId)}&limit=${COMMENTS}`);
          return ((await res.json()) as { comments: unknown[] }).comments.length;
        };
        assert.equal(await left(first), COMMENTS);

        const deletion = api(first, 'DELETE', '/api/v1/sso-users/crashy?deleteComments=true').then(
          (res) => res.status,
          () => 0,
        );
        await eventually(async () => (await left(first)) < COMMENTS, 120_000);
        await first.kill('SIGKILL');
        assert.ok([0, 200].includes(await deletion), 'the DELETE died with the server, or had finished');

        const second = await spawnServer(env);
        try {
          await eventually(async () => (await left(second)) === 0, 120_000);
          await eventually(async () => (await api(second, 'GET', '/api/v1/sso-users/by-id/crashy')).status === 404, 60_000);
        } finally {
          await second.kill('SIGTERM');
        }
      }));
  });
}
