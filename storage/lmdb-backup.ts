/**
 * Backups of the embedded LMDB database, taken while a server runs. LMDB copies an open
 * environment inside one read transaction (`mdb_env_copy2`, lmdb-js `backup`): the copy is
 * the database as of one instant, every commit before it whole and none after it in part,
 * and writers are not stopped. A backup is a directory: `lmdb/` (the copy) and
 * `backup.json` (when and from where). Restoring copies it into an empty DATA_DIR, and is
 * refused while a server holds that directory (its lock, lmdb-lock.ts).
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { open } from 'lmdb';
import { lockDataDir } from './lmdb-lock.js';

/** What `backup.json` says. */
export interface BackupManifest {
  readonly kind: 'comments-lmdb-backup';
  readonly createdAt: string;
  readonly dataDir: string;
}

function emptyOrMissing(dir: string): boolean {
  return !existsSync(dir) || readdirSync(dir).length === 0;
}

/**
 * Copies the LMDB environment of `dataDir` into `dest` (missing or empty). Works beside a
 * running server: the copy is one consistent read of the database.
 */
export async function backupDataDir(dataDir: string, dest: string): Promise<BackupManifest> {
  const source = join(dataDir, 'lmdb');
  if (!existsSync(join(source, 'data.mdb'))) throw new Error(`no LMDB database under ${dataDir} (expected ${source}/data.mdb)`);
  if (!emptyOrMissing(dest)) throw new Error(`backup directory ${dest} is not empty`);
  const target = join(dest, 'lmdb');
  mkdirSync(target, { recursive: true });
  const env = open({ path: source, readOnly: true, maxDbs: 256, overlappingSync: false, compression: false });
  try {
    await env.backup(target, false);
  } finally {
    await env.close();
  }
  // The copy's own lock file is not part of the data.
  rmSync(join(target, 'lock.mdb'), { force: true });
  const manifest: BackupManifest = { kind: 'comments-lmdb-backup', createdAt: new Date().toISOString(), dataDir: resolve(dataDir) };
  writeFileSync(join(dest, 'backup.json'), JSON.stringify(manifest, null, 2) + '\n');
  return manifest;
}

/**
 * Restores a backup into `dataDir`, which must hold no database; refused while a server (or
 * another restore) holds its lock.
 */
export async function restoreDataDir(backupDir: string, dataDir: string): Promise<BackupManifest> {
  const manifestPath = join(backupDir, 'backup.json');
  if (!existsSync(manifestPath) || !existsSync(join(backupDir, 'lmdb', 'data.mdb'))) throw new Error(`${backupDir} is not a backup (no backup.json and lmdb/data.mdb)`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as BackupManifest;
  if (manifest.kind !== 'comments-lmdb-backup') throw new Error(`${manifestPath} is not a backup manifest`);
  const lease = await lockDataDir(dataDir);
  try {
    const target = join(dataDir, 'lmdb');
    if (existsSync(join(target, 'data.mdb'))) throw new Error(`DATA_DIR ${dataDir} already holds a database: restore into an empty directory`);
    mkdirSync(target, { recursive: true });
    cpSync(join(backupDir, 'lmdb', 'data.mdb'), join(target, 'data.mdb'));
  } finally {
    await lease.release();
  }
  return manifest;
}

/** Backup directories under `root` made by `scheduledBackup`, oldest first. */
export function scheduledBackups(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((name) => /^backup-\d{8}T\d{9}Z$/.test(name))
    .sort();
}

/** One scheduled backup under `root` (`backup-<UTC time>`), then the oldest removed beyond `keep`. */
export async function scheduledBackup(dataDir: string, root: string, keep: number, nowMs: number = Date.now()): Promise<string> {
  const stamp = new Date(nowMs).toISOString().replace(/[-:.]/g, '');
  const dest = join(root, `backup-${stamp}`);
  const partial = `${dest}.partial`;
  rmSync(partial, { recursive: true, force: true });
  await backupDataDir(dataDir, partial);
  // Renamed when complete: a crash midway never leaves a directory that looks like a backup.
  renameSync(partial, dest);
  const all = scheduledBackups(root);
  for (const old of all.slice(0, Math.max(0, all.length - keep))) rmSync(join(root, old), { recursive: true, force: true });
  return dest;
}
