import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventually } from '../fixtures/eventually.js';
import { COLLECTIONS } from '../../storage/collections.js';
import { createStore } from '../../storage/create-store.js';
import { InstrumentedStore } from '../fixtures/instrumented-store.js';
import { startTestServer, type TestServer } from '../fixtures/server.js';


describe('storage outage (LMDB behind a switchable wrapper)', () => {
  test('requests get 503 storage-unavailable while storage is down, and service resumes by itself', async () => {
    let wrapper: InstrumentedStore | undefined;
    const t: TestServer = await startTestServer('lmdb', {}, {
      store: (config) => (wrapper = new InstrumentedStore(createStore({ dataDir: config.dataDir }, COLLECTIONS))),
    });
    try {
      assert.equal((await t.api('GET', '/healthz', { auth: 'none' })).status, 200);
      assert.equal((await t.api('POST', '/api/v1/domain-configs', { body: { domain: 'before.example' } })).status, 200);

      wrapper!.setDown(true);
      const health = await t.api('GET', '/healthz', { auth: 'none' });
      assert.deepEqual([health.status, health.body['code']], [503, 'storage-unavailable']);
      const write = await t.api('POST', '/api/v1/domain-configs', { body: { domain: 'during.example' } });
      assert.deepEqual([write.status, write.body['code']], [503, 'storage-unavailable']);
      const read = await t.api('GET', '/api/v1/domain-configs');
      assert.deepEqual([read.status, read.body['code']], [503, 'storage-unavailable']);

      wrapper!.setDown(false);
      await eventually(async () => (await t.api('GET', '/healthz', { auth: 'none' })).status === 200, 5000);
      const list = await t.api<{ configurations: { domain: string }[] }>('GET', '/api/v1/domain-configs');
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.configurations.map((c) => c.domain), ['before.example'], 'the refused write is absent, the acknowledged one present');
      assert.equal((await t.api('POST', '/api/v1/domain-configs', { body: { domain: 'after.example' } })).status, 200);
    } finally {
      await t.destroy();
    }
  });
});
