/**
 * Backups of a running server on LMDB: writes under load, a backup taken in the middle,
 * restored into a new directory, answer every write acknowledged before the backup began;
 * restore refuses a directory a server holds or one that has data; scheduled backups keep
 * the newest `BACKUP_KEEP`.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { eventually } from '../fixtures/eventually.js';
import { demoHeaders, type ServerProcess, spawnServer } from '../fixtures/server-process.js';
import { checkAnswer } from '../fixtures/openapi.js';
import { disqusXml } from './import-fixtures.js';
import { cli } from './import-helpers.js';

const dirs: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

describe('backups on LMDB', () => {
  const servers: ServerProcess[] = [];
  after(async () => {
    for (const s of servers) await s.kill('SIGTERM');
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  test('a backup taken under write load, restored, answers every write acknowledged before it began', async () => {
    const dataDir = tempDir('backup-src-');
    const server = await spawnServer({ DATA_DIR: dataDir });
    servers.push(server);
    const headers = demoHeaders(server);
    const acked: { id: string; at: number }[] = [];
    let stop = false;
    let failures = 0;
    const writer = async (n: number) => {
      for (let i = 0; !stop; i++) {
        const res = await fetch(`${server.url}/api/v1/comments`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ commenterName: `Writer ${n}`, comment: `write ${n}/${i}`, url: `https://load.example/${i % 20}`, urlId: `/load/${i % 20}`, locale: 'en_us' }),
        });
        const body = (await res.json()) as { comment?: { _id: string } };
        if (res.status === 200) acked.push({ id: body.comment!._id, at: Date.now() });
        else failures++;
      }
    };
    const writers = Array.from({ length: 8 }, (_, n) => writer(n));
    // An import from the command line is refused while the server holds its storage.
    const xml = join(tempDir('backup-import-'), 'tiny.xml');
    writeFileSync(xml, disqusXml([{ id: '1', link: 'https://x.example/a' }], [{ id: '2', thread: '1', message: 'hi', createdAt: '2015-01-01T00:00:00Z', anonymous: true }]));
    const refused = await cli({ DATA_DIR: dataDir, MONGODB_URI: '' }, ['import', '--tenant', server.demo!.tenantId, '--format', 'disqus', xml]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /import through POST \/api\/v1\/imports/);
    await eventually(async () => acked.length >= 300, 60_000);

    const backupDir = join(tempDir('backup-dest-'), 'b1');
    const began = Date.now();
    const before = acked.filter((w) => w.at < began).map((w) => w.id);
    const backup = await cli({ DATA_DIR: dataDir, MONGODB_URI: '' }, ['backup', backupDir]);
    assert.equal(backup.code, 0, backup.stderr);
    const countDuring = acked.length;
    await eventually(async () => acked.length >= countDuring + 50, 60_000);
    stop = true;
    await Promise.all(writers);
    assert.equal(failures, 0);

    // Refused: the directory of a running server, and a directory that holds a database.
    const held = await cli({ DATA_DIR: dataDir, MONGODB_URI: '' }, ['restore', backupDir]);
    assert.notEqual(held.code, 0);
    assert.match(held.stderr, /Another server is running on DATA_DIR/);
    const restored = tempDir('backup-restored-');
    const ok = await cli({ DATA_DIR: restored, MONGODB_URI: '' }, ['restore', backupDir]);
    assert.equal(ok.code, 0, ok.stderr);
    const twice = await cli({ DATA_DIR: restored, MONGODB_URI: '' }, ['restore', backupDir]);
    assert.notEqual(twice.code, 0);
    assert.match(twice.stderr, /already holds a database/);

    const copy = await spawnServer({ DATA_DIR: restored, DEMO_TENANT: 'false' });
    servers.push(copy);
    for (const id of before) {
      const res = await fetch(`${copy.url}/api/v1/comments/${id}`, { headers });
      const body = (await res.json()) as Record<string, unknown>;
      checkAnswer('GET', `/api/v1/comments/${id}`, res.status, body);
      assert.equal(res.status, 200, `comment ${id}, acknowledged before the backup began, is in it`);
    }
    await copy.kill('SIGTERM');
  });

  test('scheduled backups: one per interval, the newest BACKUP_KEEP kept, each one restorable', async () => {
    const dataDir = tempDir('backup-sched-');
    const root = join(tempDir('backup-root-'), 'backups');
    const server = await spawnServer({ DATA_DIR: dataDir, BACKUP_DIR: root, BACKUP_KEEP: '2', BACKUP_INTERVAL_MS: '200' });
    servers.push(server);
    const seen = new Set<string>();
    const list = () => (existsSync(root) ? readdirSync(root).filter((n) => !n.endsWith('.partial')) : []);
    await eventually(async () => {
      for (const name of list()) seen.add(name);
      return seen.size >= 4;
    }, 60_000);
    await server.kill('SIGTERM');
    // One more may have been made between the last look and the stop.
    for (const name of list()) seen.add(name);
    const kept = list().sort();
    assert.equal(kept.length, 2);
    assert.deepEqual(kept, [...seen].sort().slice(-2), 'the newest are kept');
    const restored = tempDir('backup-sched-restored-');
    const ok = await cli({ DATA_DIR: restored, MONGODB_URI: '' }, ['restore', join(root, kept[1]!)]);
    assert.equal(ok.code, 0, ok.stderr);
    const copy = await spawnServer({ DATA_DIR: restored, DEMO_TENANT: 'false' });
    servers.push(copy);
    const me = await fetch(`${copy.url}/api/v1/me`, { headers: demoHeaders(server) });
    assert.equal(me.status, 200, 'the demo tenant and its key are in the backup');
    await copy.kill('SIGTERM');
  });
});
