/**
 * The `badge` commands of the command line write the catalog the server awards from: a badge
 * made by the command is served by the API and awarded to the next commenter.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, test } from 'node:test';
import { eventually } from '../fixtures/eventually.js';
import { checkedFetch } from '../fixtures/openapi.js';
import { repoFile } from '../fixtures/paths.js';
import { spawnServer } from '../fixtures/server-process.js';

const run = promisify(execFile);

describe('badge commands of the command line', () => {
  test('create, list, disable, enable and delete catalog badges; the server awards a badge the command made', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'badge-cli-'));
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, MONGODB_URI: '' };
    const cli = async (...args: string[]) => JSON.parse((await run(process.execPath, [repoFile('dist/cli.js'), ...args], { env })).stdout) as Record<string, any>;
    try {
      const tenant = await cli('tenant', 'create', '--name', 'Badges');
      const made = (await cli('badge', 'create', '--tenant', tenant['tenantId'], '--type', '0', '--threshold', '1', '--label', 'First words', '--background', '#123')).tenantBadge;
      assert.deepEqual([made.type, made.threshold, made.displayLabel, made.backgroundColor, made.enabled], [0, 1, 'First words', '#123', true]);
      const spare = (await cli('badge', 'create', '--tenant', tenant['tenantId'], '--type', '4', '--disabled')).tenantBadge;
      assert.equal(spare.enabled, false);
      assert.equal((await cli('badge', 'enable', '--tenant', tenant['tenantId'], '--id', spare._id)).tenantBadge.enabled, true);
      assert.equal((await cli('badge', 'disable', '--tenant', tenant['tenantId'], '--id', spare._id)).tenantBadge.enabled, false);
      assert.deepEqual((await cli('badge', 'delete', '--tenant', tenant['tenantId'], '--id', spare._id)).deleted, spare._id);
      assert.deepEqual((await cli('badge', 'list', '--tenant', tenant['tenantId'])).tenantBadges.map((b: { _id: string }) => b._id), [made._id]);
      await assert.rejects(cli('badge', 'create', '--tenant', tenant['tenantId']), /--type is required/);
      await assert.rejects(cli('badge', 'create', '--tenant', tenant['tenantId'], '--type', 'x'), /--type must be a non-negative integer/);
      await assert.rejects(cli('badge', 'delete', '--tenant', tenant['tenantId'], '--id', 'nope'), /has no badge nope/);

      const server = await spawnServer({ DATA_DIR: dataDir, DEMO_TENANT: 'false' });
      try {
        const headers = { 'x-api-key': tenant['apiKey'], 'x-tenant-id': tenant['tenantId'], 'content-type': 'application/json' };
        const api = async (method: string, path: string, body?: unknown) => (await checkedFetch(`${server.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })).json() as Promise<Record<string, any>>;
        assert.deepEqual((await api('GET', '/api/v1/tenant-badges')).tenantBadges.map((b: { _id: string }) => b._id), [made._id]);
        const comment = await api('POST', '/api/v1/comments', { commenterName: 'Ada', userId: 'ada', comment: 'hello', url: 'https://blog.example/a', urlId: '/a', locale: 'en' });
        assert.equal(comment.status, 'success', JSON.stringify(comment));
        await eventually(async () => (await api('GET', '/api/v1/user-badges?userId=ada')).userBadges.length === 1, 30_000);
      } finally {
        await server.kill('SIGTERM');
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
