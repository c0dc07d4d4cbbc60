/**
 * An import killed midway (SIGKILL) and run again: every comment of the export is there once,
 * threading and page counts are right, and the second run's report says what the first had
 * already written.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { CommentDoc } from '../../actors/page/comment-doc.js';
import type { PageDoc } from '../../actors/page/page-doc.js';
import { repoFile } from '../fixtures/paths.js';
import { storages } from '../fixtures/server.js';
import { generateDisqus } from './import-fixtures.js';
import { addTenant, destroyPlacement, importFile, newPlacement, type Placement, withStore } from './import-helpers.js';

for (const storage of storages()) {
  describe(`an import killed midway on ${storage}`, () => {
    const placements: Placement[] = [];
    after(async () => {
      for (const p of placements) await destroyPlacement(p);
    });

    test('resumes by running again: nothing lost, nothing doubled', async () => {
      const total = storage === 'lmdb' ? 20_000 : 1_500;
      const threads = storage === 'lmdb' ? 200 : 20;
      const p = newPlacement(storage);
      placements.push(p);
      const tenantId = await addTenant(p);
      const file = join(p.dataDir, 'big.xml');
      await generateDisqus(file, threads, total, storage === 'lmdb' ? 5000 : 100);

      const child = spawn(process.execPath, [repoFile('dist/cli.js'), 'import', '--tenant', tenantId, '--format', 'disqus', file], { env: { ...process.env, ...p.env, TMPDIR: p.dataDir }, stdio: ['ignore', 'pipe', 'pipe'] });
      const exited = new Promise<string | number>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code ?? 'unknown')));
      // Killed once the first pages are written (the writing phase said so).
      await new Promise<void>((resolve, reject) => {
        let err = '';
        child.stderr.on('data', (d: Buffer) => {
          err += d.toString();
          if (/progress writing/.test(err)) resolve();
        });
        void exited.then((code) => reject(new Error(`import ended (${code}) before writing: ${err}`)));
      });
      child.kill('SIGKILL');
      assert.equal(await exited, 'SIGKILL');
      const partial = await withStore(p, (store) => store.count('comments', { tenantId }));
      assert.ok(partial > 0 && partial < total, `killed midway (${partial} of ${total} written)`);

      const report = await importFile(p, tenantId, 'disqus', file);
      assert.equal(report.comments.total, total);
      assert.equal(report.comments.skipped, 0);
      assert.equal(report.comments.imported + report.comments.alreadyPresent, total);
      assert.ok(report.comments.alreadyPresent >= partial, 'what the first run wrote is found, not written again');

      await withStore(p, async (store) => {
        assert.equal(await store.count('comments', { tenantId }), total);
        const ids = new Set<string>();
        const external = new Map<string, string>();
        let orphaned = 0;
        const parents: [CommentDoc, string][] = [];
        for await (const batch of store.scan<CommentDoc>('comments', { tenantId })) {
          for (const c of batch) {
            ids.add(c._id);
            external.set(c.externalId!, c._id);
            if (c.externalParentId !== null) {
              if (c.parentId === null) orphaned++;
              else parents.push([c, c.externalParentId]);
            }
          }
        }
        assert.equal(ids.size, total);
        assert.equal(external.size, total, 'one comment per source post');
        assert.equal(orphaned, 0, 'no reply lost its parent');
        for (const [c, parent] of parents) assert.equal(c.parentId, external.get(parent));
        const pages = await store.find<PageDoc>('pages', { tenantId });
        assert.equal(pages.length, threads);
        assert.equal(pages.reduce((sum, page) => sum + page.commentCount, 0), total);
      });
    });
  });
}
