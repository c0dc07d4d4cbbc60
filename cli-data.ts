/**
 * The data commands of the command line: import, export, backup, restore (cli.ts hands
 * them over). Reports are one JSON object on stdout; progress goes to stderr.
 *
 *   import --tenant T --format disqus|wordpress|commento|isso|remark42|native FILE [--dry-run] [--match path|identifier] [--problems-file F]
 *   export --tenant T [--out FILE]
 *   backup DIR
 *   restore DIR
 */
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { exportTenant } from './actors/export/export-tenant.js';
import { importCommand, runImportCommand } from './actors/import/import-command.js';
import type { Config } from './engine/config.js';
import { COLLECTIONS } from './storage/collections.js';
import { createStore } from './storage/create-store.js';
import { backupDataDir, restoreDataDir } from './storage/lmdb-backup.js';

/** The commands this module runs. */
export const DATA_COMMANDS = new Set(['import', 'export', 'backup', 'restore']);

function parse(args: string[]): { opts: Map<string, string>; positional: string[] } {
  const opts = new Map<string, string>();
  const positional: string[] = [];
  const flags = new Set(['dry-run']);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    if (eq > 0) opts.set(arg.slice(2, eq), arg.slice(eq + 1));
    else if (!flags.has(arg.slice(2)) && i + 1 < args.length && !args[i + 1]!.startsWith('--')) opts.set(arg.slice(2), args[++i]!);
    else opts.set(arg.slice(2), 'true');
  }
  return { opts, positional };
}

async function runExport(config: Config, tenantId: string, out: string | undefined): Promise<Record<string, unknown>> {
  // A reader beside a running server: LMDB opened read-only, MongoDB's journal left to the server.
  const store = createStore(
    { dataDir: config.dataDir, mongodbUri: config.mongodbUri, mongodbDb: config.mongodbDb, mongoTimeoutMs: config.storageTimeoutMs, replayJournal: false, readOnly: true },
    COLLECTIONS,
  );
  await store.open();
  try {
    if ((await store.get('tenants', tenantId)) === undefined) throw new Error(`no tenant ${tenantId}`);
    const sink = out === undefined ? process.stdout : createWriteStream(out);
    let lines = 0;
    for await (const text of exportTenant(store, tenantId)) {
      lines += text.split('\n').length - 1;
      if (!sink.write(text)) await new Promise<void>((r) => sink.once('drain', () => r()));
    }
    if (sink !== process.stdout) {
      sink.end();
      await finished(sink);
    }
    return { tenantId, documents: lines - 1, file: out ?? null };
  } finally {
    await store.close();
  }
}

/** Runs one data command; resolves with the JSON to print (null when stdout carried the data). */
export async function runDataCommand(config: Config, noun: string, args: string[]): Promise<Record<string, unknown> | null> {
  const { opts, positional } = parse(args);
  switch (noun) {
    case 'import':
      return runImportCommand(config, importCommand(opts, positional));
    case 'export': {
      const tenantId = opts.get('tenant');
      if (tenantId === undefined || tenantId === 'true') throw new Error('--tenant is required');
      const out = opts.get('out');
      const report = await runExport(config, tenantId, out);
      if (out === undefined) {
        process.stderr.write(JSON.stringify(report) + '\n');
        return null;
      }
      return report;
    }
    case 'backup':
    case 'restore': {
      if (config.mongodbUri !== undefined) throw new Error(`${noun} copies the embedded LMDB database; on MongoDB use mongodump and mongorestore (docs/import-export.md)`);
      const dir = positional[0];
      if (dir === undefined || positional.length > 1) throw new Error(`give the ${noun} directory`);
      const manifest = noun === 'backup' ? await backupDataDir(config.dataDir, dir) : await restoreDataDir(dir, config.dataDir);
      return { [noun === 'backup' ? 'backup' : 'restored']: dir, dataDir: config.dataDir, createdAt: manifest.createdAt };
    }
    default:
      throw new Error(`unknown command ${noun}`);
  }
}
