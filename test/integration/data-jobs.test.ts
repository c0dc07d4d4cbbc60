/**
 * Imports and exports through the API (durable jobs): an upload in parts, its progress and
 * report, the comments it made as the API serves them; an export downloaded part by part and
 * imported into another tenant; refusals; and a server killed during an import finishing the
 * job after its restart, without duplicates.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { CommentDoc } from '../../actors/page/comment-doc.js';
import { eventually } from '../fixtures/eventually.js';
import { demoHeaders, type ServerProcess, spawnServer } from '../fixtures/server-process.js';
import { credentials } from './poll-fixture.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { disqusXml, generateDisqus } from './import-fixtures.js';
import { withStore } from './import-helpers.js';

type Job = { id: string; state: string; parts: number; report: { comments: { total: number; imported: number; alreadyPresent: number; skipped: number } } | null; error: string | null };

/** Uploads `bytes` in parts of `partBytes`; answers the job. */
async function upload(call: (method: string, path: string, body: unknown) => Promise<{ status: number; body: Record<string, unknown> }>, query: string, bytes: Buffer, partBytes: number): Promise<Job> {
  const pieces: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += partBytes) pieces.push(bytes.subarray(i, i + partBytes));
  let r = await call('POST', `/api/v1/imports?${query}`, { data: pieces[0]!.toString('base64'), last: pieces.length === 1 });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const id = (r.body['importJob'] as Job).id;
  for (let n = 1; n < pieces.length; n++) {
    r = await call('POST', `/api/v1/imports/${id}/parts`, { part: n, data: pieces[n]!.toString('base64'), last: n === pieces.length - 1 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  return r.body['importJob'] as Job;
}

for (const storage of storages()) {
  describe(`imports and exports through the API on ${storage}`, () => {
    let t: TestServer;
    after(async () => t?.destroy());

    test('an upload in parts is imported; its report and comments are served; an export goes part by part into another tenant', async () => {
      t = await startTestServer(storage);
      const call = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => t.api(method, path, body === undefined ? { headers } : { body, headers });
      const file = Buffer.from(
        disqusXml(
          [{ id: '1', link: 'https://api.example/a/', title: 'A' }],
          [
            { id: '10', thread: '1', message: '<p>first</p>', createdAt: '2016-01-01T00:00:00Z', name: 'Ann', email: 'ann@api.example' },
            { id: '11', thread: '1', parent: '10', message: 'second', createdAt: '2016-01-02T00:00:00Z', anonymous: true },
            { id: '12', thread: '9', message: 'orphan thread', createdAt: '2016-01-03T00:00:00Z', anonymous: true },
          ],
        ),
      );
      const started = await upload(call, 'format=disqus', file, 300);
      assert.ok(started.parts >= 3);
      let job!: Job;
      await eventually(async () => {
        job = (await call('GET', `/api/v1/imports/${started.id}`)).body['importJob'] as Job;
        return job.state === 'done' || job.state === 'failed';
      }, 60_000);
      assert.equal(job.state, 'done', job.error ?? '');
      assert.deepEqual(job.report!.comments, { total: 3, imported: 2, alreadyPresent: 0, skipped: 1 });
      assert.equal(await t.server.services.store.count('importParts', { tenantId: t.tenant.tenantId, jobId: started.id }), 0, 'the upload is removed once imported');
      const listed = await t.api<{ comments: { comment: string }[] }>('GET', '/api/v1/comments', { query: { urlId: '/a' } });
      assert.deepEqual(listed.body.comments.map((c) => c.comment).sort(), ['first', 'second']);

      // Refusals, with nothing changed.
      const next = await call('POST', '/api/v1/imports?format=disqus', { data: Buffer.from('<disqus>').toString('base64'), last: false });
      const pending = (next.body['importJob'] as Job).id;
      assert.deepEqual([(await call('POST', `/api/v1/imports/${pending}/parts`, { part: 5, data: 'AAAA' })).body['code']], ['import-part-out-of-order']);
      assert.equal((await call('POST', `/api/v1/imports/${pending}/parts`, { part: 1, data: 'not base64!' })).body['code'], 'invalid-import-data');
      assert.equal((await call('POST', `/api/v1/imports/${started.id}/parts`, { part: 9, data: 'AAAA' })).body['code'], 'import-upload-closed');
      const other = await t.addTenant();
      const foreign = await call('GET', `/api/v1/imports/${started.id}`, undefined, credentials(other));
      assert.deepEqual([foreign.status, foreign.body['code']], [404, 'import-not-found']);
      assert.equal((await call('POST', '/api/v1/imports?format=gedcom', { data: 'AAAA' })).status, 400);

      // Export, downloaded part by part, imported into the other tenant.
      const ex = await call('POST', '/api/v1/exports');
      assert.equal(ex.status, 200);
      const exportId = (ex.body['exportJob'] as { id: string }).id;
      let exportJob!: { state: string; parts: number; documents: number };
      await eventually(async () => {
        exportJob = (await call('GET', `/api/v1/exports/${exportId}`)).body['exportJob'] as typeof exportJob;
        return exportJob.state === 'done';
      }, 60_000);
      let text = '';
      for (let n = 0; n < exportJob.parts; n++) {
        const res = await fetch(`${t.url}/api/v1/exports/${exportId}/parts/${n}`, { headers: credentials(t.tenant) });
        assert.equal(res.status, 200);
        assert.match(res.headers.get('content-type') ?? '', /application\/x-ndjson/);
        text += await res.text();
      }
      const lines = text.trim().split('\n');
      assert.equal(lines.length, exportJob.documents + 1);
      assert.ok(!text.includes(t.tenant.apiKey) && !text.includes(t.tenant.apiSecret));
      const beyond = await call('GET', `/api/v1/exports/${exportId}/parts/${exportJob.parts}`);
      assert.deepEqual([beyond.status, beyond.body['code']], [404, 'export-not-found']);
      // Into another tenant of the same server: the documents whose ids the first tenant holds are refused.
      const same = await upload((m, p, b) => call(m, p, b, credentials(other)), 'format=native', Buffer.from(text), 700_000);
      let sameJob!: Job & { report: { documents?: { skipped: number }; problems?: { first: { reason: string }[] } } };
      await eventually(async () => {
        sameJob = (await call('GET', `/api/v1/imports/${same.id}`, undefined, credentials(other))).body['importJob'] as typeof sameJob;
        return sameJob.state === 'done';
      }, 60_000);
      assert.ok(sameJob.report.documents!.skipped > 0);
      assert.ok(sameJob.report.problems!.first.some((x) => /another tenant of this server holds/.test(x.reason)));
      // Into a tenant of another server: the same comments.
      const second = await startTestServer(storage);
      try {
        const moved = await upload((m, p, b) => second.api(m, p, { body: b }), 'format=native', Buffer.from(text), 700_000);
        await eventually(async () => ((await second.api('GET', `/api/v1/imports/${moved.id}`)).body['importJob'] as Job).state === 'done', 60_000);
        const theirs = await second.api<{ comments: { comment: string }[] }>('GET', '/api/v1/comments', { query: { urlId: '/a' } });
        assert.deepEqual(theirs.body.comments.map((c) => c.comment).sort(), ['first', 'second']);
      } finally {
        await second.destroy();
      }
    });
  });
}

describe('an import job when its server is killed', () => {
  const servers: ServerProcess[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'import-job-kill-'));
  after(async () => {
    for (const s of servers) await s.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  test('is finished after the restart: every comment once', async () => {
    const dataDir = join(dir, 'data');
    // The spool a killed run leaves goes with the test's directory.
    const server = await spawnServer({ DATA_DIR: dataDir, TMPDIR: dir });
    servers.push(server);
    const headers = demoHeaders(server);
    const tenantId = server.demo!.tenantId;
    const call = async (method: string, path: string, body: unknown) => {
      const res = await fetch(`${server.url}${path}`, { method, headers, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const file = join(dir, 'big.xml');
    const total = 20_000;
    await generateDisqus(file, 100, total);
    const job = await upload(call, 'format=disqus', readFileSync(file), 700_000);
    await eventually(async () => {
      const res = await fetch(`${server.url}/api/v1/imports/${job.id}`, { headers });
      const j = (await res.json()) as { importJob: { progress: { phase: string; commentsWritten: number } | null } };
      return j.importJob.progress?.phase === 'writing' && j.importJob.progress.commentsWritten > 0;
    }, 120_000);
    await server.kill('SIGKILL');
    servers.length = 0;

    const again = await spawnServer({ DATA_DIR: dataDir, TMPDIR: dir });
    servers.push(again);
    let done: Job | undefined;
    await eventually(async () => {
      const res = await fetch(`${again.url}/api/v1/imports/${job.id}`, { headers });
      done = ((await res.json()) as { importJob: Job }).importJob;
      return done.state === 'done' || done.state === 'failed';
    }, 120_000);
    assert.equal(done!.state, 'done', done!.error ?? '');
    assert.equal(done!.report!.comments.imported + done!.report!.comments.alreadyPresent, total);
    await again.kill('SIGTERM');
    servers.length = 0;
    await withStore({ storage: 'lmdb', dataDir, mongodbDb: undefined, env: { MONGODB_URI: '' } }, async (store) => {
      assert.equal(await store.count('comments', { tenantId }), total);
      const external = new Set<string>();
      for await (const batch of store.scan<CommentDoc>('comments', { tenantId })) for (const c of batch) external.add(c.externalId!);
      assert.equal(external.size, total, 'no post twice');
    });
  });
});
