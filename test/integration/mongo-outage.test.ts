import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventually } from '../fixtures/eventually.js';
import { ferretdbAvailable, startFerretDb } from '../fixtures/ferretdb.js';
import { spawnServer } from '../fixtures/server-process.js';
import { checkedFetch } from '../fixtures/openapi.js';

async function status(url: string, init?: RequestInit): Promise<[number, string | undefined]> {
  const res = await checkedFetch(url, init);
  const body = (await res.json()) as { code?: string };
  return [res.status, body.code];
}


/**
 * The database server itself goes away under a running server: requests get 503
 * `storage-unavailable` (nothing changed), and service comes back by itself.
 */
describe('MongoDB outage under a running server', () => {
  test('503 storage-unavailable while the database is down; resumes by itself; nothing refused appears', async (t) => {
    if (!ferretdbAvailable()) {
      if (process.env['CI'] === 'true') assert.fail('ferretdb binary not found under CI');
      t.skip('ferretdb binary not found (bash .ci/install-ferretdb.sh)');
      return;
    }
    const db = await startFerretDb();
    const server = await spawnServer({ MONGODB_URI: db.uri, MONGODB_DB: 'outage', STORAGE_TIMEOUT_MS: '1500', ASK_TIMEOUT_MS: '5000' });
    try {
      const { tenantId, apiKey } = server.demo!;
      const headers = { 'x-api-key': apiKey, 'x-tenant-id': tenantId, 'content-type': 'application/json' };
      const post = (domain: string) => status(`${server.url}/api/v1/domain-configs`, { method: 'POST', headers, body: JSON.stringify({ domain }) });
      assert.deepEqual(await post('before.example'), [200, undefined]);

      await db.stop();
      assert.deepEqual(await status(`${server.url}/healthz`), [503, 'storage-unavailable']);
      assert.deepEqual(await post('during.example'), [503, 'storage-unavailable']);

      await db.start();
      await eventually(async () => (await status(`${server.url}/healthz`))[0] === 200, 20_000);
      await eventually(async () => (await post('after.example'))[0] === 200, 20_000);
      const res = await checkedFetch(`${server.url}/api/v1/domain-configs`, { headers });
      const domains = ((await res.json()) as { configurations: { domain: string }[] }).configurations.map((c) => c.domain);
      assert.deepEqual(domains, ['after.example', 'before.example']);
    } finally {
      await server.kill('SIGTERM');
      await db.destroy();
    }
  });
});
