/**
 * No accidental second writer: a second server on the same storage refuses to start (clear
 * message, non-zero exit) while the first runs, and starts at once after the first was killed.
 * Cluster mode without MongoDB is refused the same way.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { spawnServer } from '../fixtures/server-process.js';
import { withServerStorage } from '../fixtures/server-storage.js';
import { storages } from '../fixtures/server.js';
import { checkedFetch } from '../fixtures/openapi.js';

async function refused(env: Record<string, string>): Promise<string> {
  try {
    const server = await spawnServer(env);
    await server.kill('SIGKILL');
  } catch (err) {
    const message = (err as Error).message;
    assert.match(message, /server exited \(1\) before listening/);
    return message;
  }
  assert.fail('the second server started');
}

for (const storage of storages()) {
  describe(`one writer per storage on ${storage}`, () => {
    test('a second server refuses to start while the first runs, and the storage is free again once the first is killed', () =>
      withServerStorage(storage, 'single-writer', async (env) => {
        const first = await spawnServer(env);
        try {
          const message = await refused(env);
          assert.match(message, storage === 'lmdb' ? /Another server is running on DATA_DIR/ : /is in use by a server \(process \d+/);
          const me = await checkedFetch(`${first.url}/api/v1/me?tenantId=${first.demo!.tenantId}`, { headers: { 'x-api-key': first.demo!.apiKey } });
          assert.equal(me.status, 200, 'the first server is untouched');
        } finally {
          await first.kill('SIGKILL');
        }
        const second = await spawnServer(env);
        await second.kill('SIGTERM');
      }));
  });
}

test('cluster mode without MongoDB is refused with the reason', async () => {
  const message = await refused({ NATS_URL: 'nats://127.0.0.1:1' });
  assert.match(message, /Cluster mode \(NATS_URL is set\) needs MongoDB/);
});
