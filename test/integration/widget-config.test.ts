import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';

interface View {
  config: Record<string, unknown>;
  effectiveConfig: Record<string, unknown>;
}

for (const storage of storages()) {
  describe(`widget configuration on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage);
    });
    after(async () => {
      await t.destroy();
    });

    test('tenant and page levels, merged field by field, kept across a restart', async () => {
      const empty = await t.api<View>('GET', '/api/v1/widget-config');
      assert.deepEqual(empty.body.config, {});

      let r = await t.api<View>('PUT', '/api/v1/widget-config', { body: { disableVoting: true, maxCommentCharacterLength: 500, locale: 'en_us' } });
      assert.equal(r.status, 200);
      r = await t.api<View>('PATCH', '/api/v1/widget-config', { query: { urlId: '/post/1' }, body: { disableVoting: false, flagHideThreshold: 3 } });
      assert.deepEqual(r.body.config, { disableVoting: false, flagHideThreshold: 3 });
      assert.deepEqual(r.body.effectiveConfig, { disableVoting: false, maxCommentCharacterLength: 500, locale: 'en_us', flagHideThreshold: 3 });

      r = await t.api<View>('PATCH', '/api/v1/widget-config', { body: { locale: null } });
      assert.deepEqual(r.body.config, { disableVoting: true, maxCommentCharacterLength: 500, locale: null });

      t = await t.restart();
      const page = await t.api<View>('GET', '/api/v1/widget-config', { query: { urlId: '/post/1' } });
      assert.deepEqual(page.body.effectiveConfig, { disableVoting: false, maxCommentCharacterLength: 500, locale: null, flagHideThreshold: 3 });

      assert.equal((await t.api('DELETE', '/api/v1/widget-config', { query: { urlId: '/post/1' } })).status, 200);
      const again = await t.api('DELETE', '/api/v1/widget-config', { query: { urlId: '/post/1' } });
      assert.deepEqual([again.status, again.body['code']], [404, 'not-found']);
      const after = await t.api<View>('GET', '/api/v1/widget-config', { query: { urlId: '/post/1' } });
      assert.deepEqual(after.body.config, {});
      assert.equal(after.body.effectiveConfig['disableVoting'], true);
    });

    test('the schema refuses unknown fields, wrong types and values outside enumerations', async () => {
      const before = await t.api<View>('GET', '/api/v1/widget-config');
      const cases: [unknown, string][] = [
        [{ disableVotes: true }, 'unexpected-param'],
        [{ disableVoting: 'yes' }, 'invalid-param'],
        [{ defaultSortDirection: 'UP' }, 'invalid-param'],
        [{ spamRules: [{ actions: ['delete'] }] }, 'invalid-param'],
        [{ spamRules: [{ commentContains: 'x' }] }, 'missing-param'],
        [{ flagHideThreshold: 0 }, 'invalid-param'],
        [{ tos: { enabled: true, colour: 'red' } }, 'unexpected-param'],
      ];
      for (const [body, code] of cases) {
        const r = await t.api('PATCH', '/api/v1/widget-config', { body });
        assert.deepEqual([r.status, r.body['code']], [400, code], JSON.stringify(body));
      }
      const empty = await t.api('PATCH', '/api/v1/widget-config', { body: {} });
      assert.equal(empty.status, 400);
      assert.deepEqual((await t.api<View>('GET', '/api/v1/widget-config')).body, before.body);
    });
  });
}
