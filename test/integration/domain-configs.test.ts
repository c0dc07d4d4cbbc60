import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';

interface Config {
  id: string;
  domain: string;
  createdAt: string;
  emailFromName?: string;
  emailHeaders?: Record<string, string>;
}

for (const storage of storages()) {
  describe(`domain configurations on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage);
    });
    after(async () => {
      await t.destroy();
    });

    test('create, read, list, patch, replace, delete; and it all survives a restart', async () => {
      const created = await t.api<{ configuration: Config }>('POST', '/api/v1/domain-configs', {
        body: { domain: 'Blog.Example.com', emailFromName: 'Blog', emailHeaders: { 'X-A': '1' } },
      });
      assert.equal(created.status, 200);
      const config = created.body.configuration;
      assert.equal(config.domain, 'blog.example.com');
      assert.equal(config.emailFromName, 'Blog');
      assert.ok(config.id && config.createdAt);

      await t.api('POST', '/api/v1/domain-configs', { body: { domain: 'a.example.com' } });
      const list = await t.api<{ configurations: Config[] }>('GET', '/api/v1/domain-configs');
      assert.deepEqual(list.body.configurations.map((c) => c.domain), ['a.example.com', 'blog.example.com']);

      const patched = await t.api<{ configuration: Config }>('PATCH', '/api/v1/domain-configs/blog.example.com', { body: { emailFromName: 'The Blog' } });
      assert.equal(patched.body.configuration.emailFromName, 'The Blog');
      assert.deepEqual(patched.body.configuration.emailHeaders, { 'X-A': '1' }, 'patch keeps other fields');

      const replaced = await t.api<{ configuration: Config }>('PUT', '/api/v1/domain-configs/blog.example.com', { body: { domain: 'news.example.com' } });
      assert.equal(replaced.body.configuration.domain, 'news.example.com');
      assert.equal(replaced.body.configuration.emailFromName, undefined, 'replacement drops omitted fields');
      assert.equal(replaced.body.configuration.id, config.id);
      assert.equal((await t.api('GET', '/api/v1/domain-configs/blog.example.com')).status, 404);

      const clash = await t.api('PATCH', '/api/v1/domain-configs/news.example.com', { body: { domain: 'a.example.com' } });
      assert.deepEqual([clash.status, clash.body['code']], [409, 'domain-config-exists']);

      t = await t.restart();
      const after = await t.api<{ configurations: Config[] }>('GET', '/api/v1/domain-configs');
      assert.deepEqual(after.body.configurations.map((c) => c.domain), ['a.example.com', 'news.example.com']);

      assert.equal((await t.api('DELETE', '/api/v1/domain-configs/a.example.com')).status, 200);
      const del = await t.api('DELETE', '/api/v1/domain-configs/a.example.com');
      assert.deepEqual([del.status, del.body['code']], [404, 'not-found']);
      t = await t.restart();
      const final = await t.api<{ configurations: Config[] }>('GET', '/api/v1/domain-configs');
      assert.deepEqual(final.body.configurations.map((c) => c.domain), ['news.example.com']);
    });
  });
}
