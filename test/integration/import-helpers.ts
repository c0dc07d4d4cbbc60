/**
 * Shared by the import, export and backup tests: storage made for a test (LMDB directory or
 * MongoDB database) with one tenant, the command line run against it as operators run it,
 * and the store opened afterwards to look at what was written.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { createTenant } from '../../actors/tenant/provision.js';
import { COLLECTIONS } from '../../storage/collections.js';
import { createStore } from '../../storage/create-store.js';
import type { Doc, Filter, Store } from '../../storage/store.js';
import { loadConfig } from '../../engine/config.js';
import { startServer } from '../../http/server.js';
import { checkAnswer } from '../fixtures/openapi.js';
import { PATIENT, type StorageName } from '../fixtures/server.js';
import { repoFile } from '../fixtures/paths.js';

/** Storage of one test, and the environment that points the command line at it. */
export interface Placement {
  readonly storage: StorageName;
  readonly dataDir: string;
  readonly mongodbDb: string | undefined;
  readonly env: Record<string, string>;
}

/** Fresh storage of `storage`. */
export function newPlacement(storage: StorageName): Placement {
  const dataDir = mkdtempSync(join(tmpdir(), 'import-test-'));
  const mongodbDb = storage === 'mongodb' ? `test_${randomBytes(6).toString('hex')}` : undefined;
  return {
    storage,
    dataDir,
    mongodbDb,
    env: { DATA_DIR: dataDir, MONGODB_URI: storage === 'mongodb' ? process.env['MONGODB_URI']! : '', MONGODB_DB: mongodbDb ?? '', STORAGE_TIMEOUT_MS: '20000', LOG_LEVEL: 'error' },
  };
}

/** Opens the placement's store, runs `fn`, closes it. */
export async function withStore<T>(p: Placement, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = createStore({ dataDir: p.dataDir, mongodbUri: p.env['MONGODB_URI'] || undefined, mongodbDb: p.mongodbDb, mongoTimeoutMs: 20_000, replayJournal: false }, COLLECTIONS);
  await store.open();
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** A new tenant on the placement. */
export function addTenant(p: Placement, name = 'Import test'): Promise<string> {
  return withStore(p, async (store) => (await createTenant(store, { name })).tenantId);
}

/** Every document of a collection matching `filter`. */
export function docs<T extends Doc = Doc>(p: Placement, collection: string, filter: Filter): Promise<T[]> {
  return withStore(p, (store) => store.find<T>(collection, filter));
}

/** Removes the placement's data. */
export async function destroyPlacement(p: Placement): Promise<void> {
  rmSync(p.dataDir, { recursive: true, force: true });
  if (p.mongodbDb !== undefined) {
    const client = new MongoClient(process.env['MONGODB_URI']!, { serverSelectionTimeoutMS: 3000 });
    try {
      await client.db(p.mongodbDb).dropDatabase();
    } finally {
      await client.close();
    }
  }
}

/** What a command printed and how it ended. */
export interface CliResult {
  readonly code: number | string;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `node dist/cli.js ...args` with the placement's environment. */
export function cli(p: Placement | Record<string, string>, args: readonly string[]): Promise<CliResult> {
  const env = 'env' in p ? (p as Placement).env : (p as Record<string, string>);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [repoFile('dist/cli.js'), ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve({ code: code ?? signal ?? 'unknown', stdout, stderr }));
  });
}

/** Runs an import and answers its report (the test fails when the command did). */
export async function importFile(p: Placement, tenantId: string, format: string, file: string, extra: readonly string[] = []): Promise<ImportReportJson> {
  const out = await cli(p, ['import', '--tenant', tenantId, '--format', format, file, ...extra]);
  if (out.code !== 0) throw new Error(`import failed (${out.code}): ${out.stderr}`);
  return JSON.parse(out.stdout) as ImportReportJson;
}

/** The report as printed. */
export interface ImportReportJson {
  dryRun: boolean;
  threads: { total: number; skipped: number; pages: number };
  comments: { total: number; imported: number; alreadyPresent: number; skipped: number };
  votes: { imported: number };
  users: { created: number; existing: number };
  problems: { total: number; byReason: Record<string, number>; first: { record: string; sourceId: string | null; reason: string; imported: boolean }[] };
}

/** A server started on the placement's storage, and an API key of `tenantId`. */
export async function serveOn(p: Placement, tenantId: string): Promise<{ url: string; api: (path: string) => Promise<{ status: number; body: Record<string, unknown> }>; stop: () => Promise<void> }> {
  const key = await cli(p, ['api-key', 'create', '--tenant', tenantId]);
  if (key.code !== 0) throw new Error(key.stderr);
  const apiKey = (JSON.parse(key.stdout) as { apiKey: string }).apiKey;
  const base = loadConfig({}, []);
  const server = await startServer({
    ...base,
    ...PATIENT,
    port: 0,
    host: '127.0.0.1',
    dataDir: p.dataDir,
    mongodbUri: p.env['MONGODB_URI'] || undefined,
    mongodbDb: p.mongodbDb,
    logLevel: 'error',
    demoTenant: false,
  });
  const url = `http://127.0.0.1:${server.port}`;
  return {
    url,
    async api(path) {
      const res = await fetch(url + path, { headers: { 'x-api-key': apiKey, 'x-tenant-id': tenantId } });
      const body = (await res.json()) as Record<string, unknown>;
      checkAnswer('GET', path, res.status, body);
      return { status: res.status, body };
    },
    stop: () => server.stop(),
  };
}
