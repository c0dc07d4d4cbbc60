import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, test } from 'node:test';
import { MongoClient } from 'mongodb';
import { repoFile } from '../fixtures/paths.js';
import { spawnServer } from '../fixtures/server-process.js';
import { checkedFetch, WireShapeError } from '../fixtures/openapi.js';

const run = promisify(execFile);

function freshDir(): string {
  return mkdtempSync(join(tmpdir(), 'ops-test-'));
}

describe('operating the server as a process', () => {
  test('first start prints a demo tenant and a curl call that works; a restart does not create another', async () => {
    const dataDir = freshDir();
    try {
      const server = await spawnServer({ DATA_DIR: dataDir });
      assert.ok(server.demo);
      const res = await checkedFetch(`${server.url}/api/v1/me?tenantId=${server.demo.tenantId}`, { headers: { 'x-api-key': server.demo.apiKey } });
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as { tenant: { name: string } }).tenant.name, 'Demo');
      assert.equal(await server.kill('SIGTERM'), 0);
      const again = await spawnServer({ DATA_DIR: dataDir });
      assert.equal(again.demo, undefined);
      await again.kill('SIGTERM');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('SIGTERM under load: in-flight requests finish, acknowledged writes are kept, exit code 0', async () => {
    const dataDir = freshDir();
    try {
      const server = await spawnServer({ DATA_DIR: dataDir });
      const { tenantId, apiKey } = server.demo!;
      const headers = { 'x-api-key': apiKey, 'x-tenant-id': tenantId, 'content-type': 'application/json' };
      const acked: string[] = [];
      let stop = false;
      const workers = Array.from({ length: 8 }, async (_, w) => {
        for (let n = 0; !stop; n++) {
          const domain = `w${w}n${n}.term.example`;
          try {
            const res = await checkedFetch(`${server.url}/api/v1/domain-configs`, { method: 'POST', headers, body: JSON.stringify({ domain }) });
            if (res.status === 200) acked.push(domain);
            else if (res.status !== 503) assert.fail(`unexpected status ${res.status}`);
          } catch (error) {
            if (error instanceof WireShapeError) throw error;
            return; // the listener closed: no more requests get in
          }
        }
      });
      while (acked.length < 100) await new Promise((r) => setTimeout(r, 10));
      const code = await server.kill('SIGTERM');
      stop = true;
      await Promise.all(workers);
      assert.equal(code, 0, 'clean exit');

      const again = await spawnServer({ DATA_DIR: dataDir });
      try {
        const res = await checkedFetch(`${again.url}/api/v1/domain-configs`, { headers });
        const stored = new Set(((await res.json()) as { configurations: { domain: string }[] }).configurations.map((c) => c.domain));
        for (const domain of acked) assert.ok(stored.has(domain), `acknowledged ${domain} lost over SIGTERM`);
      } finally {
        await again.kill('SIGTERM');
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('refuses to start on the pure-JS fallback of uWebSockets.js unless allowed', async () => {
    const dataDir = freshDir();
    try {
      await assert.rejects(spawnServer({ DATA_DIR: dataDir, UWS_USE_FALLBACK: '1' }), /pure-JS implementation/);
      const allowed = await spawnServer({ DATA_DIR: dataDir, UWS_USE_FALLBACK: '1', ALLOW_UWS_FALLBACK: 'true' });
      try {
        assert.equal((await checkedFetch(`${allowed.url}/healthz`)).status, 200);
        const { tenantId, apiKey } = allowed.demo!;
        const me = await checkedFetch(`${allowed.url}/api/v1/me`, { headers: { 'x-api-key': apiKey, 'x-tenant-id': tenantId } });
        assert.equal(me.status, 200, 'REST requests are served on the fallback');
      } finally {
        await allowed.kill('SIGTERM');
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a bad setting stops start-up with a message naming it', async () => {
    await assert.rejects(spawnServer({ PORT: 'eighty' }), /PORT must be a non-negative integer/);
  });
});

for (const storage of process.env['MONGODB_URI'] ? ['lmdb', 'mongodb'] : ['lmdb']) {
  describe(`command line on ${storage}`, () => {
    test('tenant create and api-key create print JSON and work against the server’s storage', async () => {
      const dataDir = freshDir();
      const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, MONGODB_URI: '' };
      if (storage === 'mongodb') {
        env['MONGODB_URI'] = process.env['MONGODB_URI'];
        env['MONGODB_DB'] = `cli_${Date.now().toString(36)}`;
      }
      const cli = (...args: string[]) => run(process.execPath, [repoFile('dist/cli.js'), ...args], { env });
      try {
        const created = await cli('tenant', 'create', '--name', 'CLI site', '--monthly-credits', '1000');
        const tenant = JSON.parse(created.stdout) as { tenantId: string; apiKey: string; apiSecret: string; packageId: string };
        assert.equal(created.stdout.trim().split('\n').length, 1, 'one JSON object on stdout');
        assert.ok(tenant.tenantId && tenant.apiKey && tenant.apiSecret && tenant.packageId);
        const key = JSON.parse((await cli('api-key', 'create', '--tenant', tenant.tenantId)).stdout) as { tenantId: string; apiKey: string };
        assert.equal(key.tenantId, tenant.tenantId);
        assert.notEqual(key.apiKey, tenant.apiKey);

        const serverEnv: Record<string, string> = { DATA_DIR: dataDir, DEMO_TENANT: 'false' };
        if (storage === 'mongodb') Object.assign(serverEnv, { MONGODB_URI: env['MONGODB_URI']!, MONGODB_DB: env['MONGODB_DB']! });
        const server = await spawnServer(serverEnv);
        try {
          for (const apiKey of [tenant.apiKey, key.apiKey]) {
            const res = await checkedFetch(`${server.url}/api/v1/me`, { headers: { 'x-api-key': apiKey, 'x-tenant-id': tenant.tenantId } });
            assert.equal(res.status, 200);
          }
        } finally {
          await server.kill('SIGTERM');
        }

        await assert.rejects(cli('api-key', 'create', '--tenant', 'nope'), /no tenant nope/);
        await assert.rejects(cli('tenant', 'create'), /--name is required/);
        await assert.rejects(cli('tenant', 'frobnicate'), /unknown command/);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
        if (storage === 'mongodb') {
          const client = new MongoClient(env['MONGODB_URI']!);
          await client.db(env['MONGODB_DB']).dropDatabase();
          await client.close();
        }
      }
    });
  });
}
