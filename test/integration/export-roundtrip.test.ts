/**
 * Export and native import: a tenant's data made through the API on one storage, exported
 * while its server runs, imported into a fresh tenant on the other storage, exported again:
 * the two exports hold the same documents (the tenant id aside), no secret is in them, and
 * the second server answers the same comments, votes and polls.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { NOT_EXPORTED, NOT_IMPORTED } from '../../actors/export/export-rules.js';
import { type StorageName, startTestServer, type TestServer } from '../fixtures/server.js';
import { pollInput, seed } from './poll-fixture.js';
import { addTenant, cli, destroyPlacement, importFile, newPlacement, type Placement, serveOn, withStore } from './import-helpers.js';

const pairs: [StorageName, StorageName][] = process.env['MONGODB_URI'] ? [['lmdb', 'mongodb'], ['mongodb', 'lmdb']] : [['lmdb', 'lmdb']];

function envOf(t: TestServer): Record<string, string> {
  const c = t.server.services.config;
  return { DATA_DIR: c.dataDir, MONGODB_URI: c.mongodbUri ?? '', MONGODB_DB: c.mongodbDb ?? '', LOG_LEVEL: 'error' };
}

/** The documents of an export by collection and id, with the tenant's id taken out. */
function documents(text: string): Map<string, unknown> {
  const [head, ...lines] = text.trim().split('\n');
  const tenantId = (JSON.parse(head!) as { tenantId: string }).tenantId;
  const out = new Map<string, unknown>();
  for (const line of lines) {
    const { c, d } = JSON.parse(line.split(tenantId).join('<tenant>')) as { c: string; d: { _id: string } };
    if (c in NOT_IMPORTED) continue;
    out.set(`${c}/${d._id}`, d);
  }
  return out;
}

async function makeData(t: TestServer): Promise<void> {
  const post = async (urlId: string, name: string, text: string, extra: Record<string, unknown> = {}) => {
    const r = await t.api<{ comment: { _id: string } }>('POST', '/api/v1/comments', {
      body: { commenterName: name, commenterEmail: `${name.toLowerCase()}@example.com`, comment: text, url: `https://site.example${urlId}`, urlId, locale: 'en_us', ...extra },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.comment._id;
  };
  const root = await post('/one', 'Ann', 'Hello **there** #launch');
  const reply = await post('/one', 'Bob', 'Hi Ann', { parentId: root });
  await post('/two', 'Cy', 'Another page');
  for (const [commentId, userId, direction] of [[root, 'v1', 'up'], [root, 'v2', 'up'], [reply, 'v1', 'down']] as const) {
    assert.equal((await t.api('POST', '/api/v1/votes', { query: { commentId, direction, userId } })).status, 200);
  }
  const { commentId, poll } = await seed(t, { urlId: '/poll', poll: pollInput(3) });
  assert.equal((await t.api('POST', '/api/v1/poll-votes', { body: { commentId, optionId: poll!.options[1]!.id, anonUserId: 'pv1' } })).status, 200);
  assert.equal((await t.api('PUT', '/api/v1/widget-config', { body: { disableVoting: false, maxCommentCharacterLength: 500, locale: 'en_us' } })).status, 200);
  assert.equal((await t.api('POST', '/api/v1/domain-configs', { body: { domain: 'site.example' } })).status, 200);
}

for (const [from, to] of pairs) {
  describe(`export from ${from}, import on ${to}`, () => {
    const cleanup: (() => Promise<void>)[] = [];
    after(async () => {
      for (const step of cleanup.reverse()) await step();
    });

    test('the import into a fresh tenant holds the same documents and answers the same', async () => {
      const a = await startTestServer(from);
      cleanup.push(() => a.destroy());
      await makeData(a);
      const target: Placement = newPlacement(to);
      cleanup.push(() => destroyPlacement(target));
      const file = join(target.dataDir, 'export.ndjson');

      // Beside the running server.
      const exported = await cli(envOf(a), ['export', '--tenant', a.tenant.tenantId, '--out', file]);
      assert.equal(exported.code, 0, exported.stderr);
      const text = readFileSync(file, 'utf8');
      for (const secret of [a.tenant.apiKey, a.tenant.apiSecret]) assert.ok(!text.includes(secret), 'no secret is exported');
      const collections = new Set(text.trim().split('\n').slice(1).map((l) => (JSON.parse(l) as { c: string }).c));
      for (const name of Object.keys(NOT_EXPORTED)) assert.ok(!collections.has(name), `${name} is not exported`);
      for (const name of ['comments', 'votes', 'pages', 'users', 'polls', 'pollVotes', 'widgetConfigs', 'domainConfigs']) assert.ok(collections.has(name), `${name} is exported`);

      const tenantB = await addTenant(target, 'Moved here');
      const dry = await cli(target, ['import', '--tenant', tenantB, '--format', 'native', file, '--dry-run']);
      assert.equal(dry.code, 0, dry.stderr);
      const imported = await cli(target, ['import', '--tenant', tenantB, '--format', 'native', file]);
      assert.equal(imported.code, 0, imported.stderr);
      const report = JSON.parse(imported.stdout) as { documents: { total: number; imported: number; skipped: number } };
      assert.equal(report.documents.imported + report.documents.skipped, report.documents.total);
      // Twice is the same as once.
      assert.equal((await cli(target, ['import', '--tenant', tenantB, '--format', 'native', file])).code, 0);

      const again = join(target.dataDir, 'again.ndjson');
      const reexported = await cli(target, ['export', '--tenant', tenantB, '--out', again]);
      assert.equal(reexported.code, 0, reexported.stderr);
      const before = documents(text);
      const after = documents(readFileSync(again, 'utf8'));
      assert.deepEqual([...after.keys()].sort(), [...before.keys()].sort());
      for (const [key, doc] of before) assert.deepEqual(after.get(key), doc, key);

      const b = await serveOn(target, tenantB);
      cleanup.push(() => b.stop());
      for (const urlId of ['/one', '/two', '/poll']) {
        const path = `/api/v1/comments?urlId=${encodeURIComponent(urlId)}`;
        const answerA = await a.api<{ comments: unknown[] }>('GET', path);
        const answerB = await b.api(path);
        const strip = (body: unknown, tenantId: string) => JSON.parse(JSON.stringify(body).split(tenantId).join('<tenant>')) as { comments: unknown[] };
        assert.deepEqual(strip(answerB.body, tenantB).comments, strip(answerA.body, a.tenant.tenantId).comments, urlId);
      }
    });
  });
}

describe('a native import naming another tenant', () => {
  test('writes nothing of that tenant', async () => {
    const p = newPlacement('lmdb');
    try {
      const victim = await addTenant(p, 'Victim');
      const mine = await addTenant(p, 'Mine');
      const source = 'a'.repeat(24);
      const file = join(p.dataDir, 'crafted.ndjson');
      const lines = [
        { kind: 'comments-export', version: 1, tenantId: source, exportedAt: new Date().toISOString(), storage: 'lmdb' },
        { c: 'users', d: { _id: 'u1', tenantId: victim, kind: 'commenter', username: 'x', email: 'x@example.com' } },
        { c: 'usernameClaims', d: { _id: `${victim}:bob`, tenantId: source, username: 'bob', email: 'evil@example.com', userId: 'u2' } },
        { c: 'apiKeys', d: { _id: 'k1', tenantId: source, keyHash: 'x' } },
        { c: 'serverState', d: { _id: 'live-secret', value: 'x' } },
        { c: 'users', d: { _id: 'u3', tenantId: source, kind: 'commenter', username: 'ok', email: 'ok@example.com' } },
      ];
      writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
      const report = await importFile(p, mine, 'native', file);
      const counts = report as unknown as { documents: { total: number; imported: number; skipped: number } };
      assert.deepEqual(counts.documents, { total: 5, imported: 1, skipped: 4 });
      await withStore(p, async (store) => {
        assert.equal(await store.get('users', 'u1'), undefined);
        assert.equal(await store.get('usernameClaims', `${victim}:bob`), undefined);
        assert.equal((await store.get('users', 'u3'))?.['tenantId'], mine);
      });
    } finally {
      await destroyPlacement(p);
    }
  });
});
