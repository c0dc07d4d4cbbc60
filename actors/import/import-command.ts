/**
 * `cli import`: an import from a file, run in this process against the server's storage.
 * It takes the storage's writer claim, as a server does, so it is refused while a server runs
 * on the same storage (whose page actors would not see what it writes): import through
 * `POST /api/v1/imports` then, or stop the server.
 */
import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { ActorSystem } from '../../engine/actor-system.js';
import type { Config } from '../../engine/config.js';
import { EventBus } from '../../engine/event-bus.js';
import { Progress } from '../../engine/progress.js';
import { COLLECTIONS } from '../../storage/collections.js';
import { createStore } from '../../storage/create-store.js';
import { WriterHeldError } from '../../storage/errors.js';
import type { Store, WriterLease } from '../../storage/store.js';
import { registerActors } from '../index.js';
import { TENANT_COLLECTIONS } from '../tenant/collections.js';
import { importNative } from '../export/native-import.js';
import { runImport } from './import-run.js';
import { MATCH_RULES, type MatchRule } from './match.js';
import { IMPORT_FORMATS, type ImportFormat } from './records.js';
import { openSource } from './sources/index.js';

/** What `cli import` was asked. */
export interface ImportCommand {
  readonly tenantId: string;
  readonly format: ImportFormat;
  readonly file: string;
  readonly dryRun: boolean;
  readonly match: MatchRule;
  /** Every problem as a JSON line, when given. */
  readonly problemsFile: string | undefined;
}

/** Checks the words of `cli import`. */
export function importCommand(opts: Map<string, string>, positional: string[]): ImportCommand {
  const tenantId = opts.get('tenant');
  if (tenantId === undefined || tenantId === 'true') throw new Error('--tenant is required');
  const format = opts.get('format') as ImportFormat | undefined;
  if (format === undefined || !IMPORT_FORMATS.includes(format)) throw new Error(`--format must be one of ${IMPORT_FORMATS.join(', ')}`);
  const file = positional[0];
  if (file === undefined || positional.length > 1) throw new Error('give exactly one file to import');
  const match = (opts.get('match') ?? 'path') as MatchRule;
  if (!MATCH_RULES.includes(match)) throw new Error(`--match must be one of ${MATCH_RULES.join(', ')}`);
  return { tenantId, format, file, dryRun: opts.get('dry-run') === 'true', match, problemsFile: opts.get('problems-file') };
}

/** Opens storage as its writer (refused while a server holds it). */
export async function openAsWriter(config: Config): Promise<{ store: Store; lease: WriterLease | undefined }> {
  const store = createStore(
    { dataDir: config.dataDir, mongodbUri: config.mongodbUri, mongodbDb: config.mongodbDb, mongoTimeoutMs: config.storageTimeoutMs, replayJournal: false },
    COLLECTIONS,
  );
  await store.open();
  try {
    const lease = await store.claimWriter?.({ mode: 'single' }, () => {
      process.stderr.write('error: another process took over this storage; stopping\n');
      process.exit(70);
    });
    return { store, lease };
  } catch (err) {
    await store.close();
    if (err instanceof WriterHeldError) throw new Error(`${err.message}\nA server is running on this storage: import through POST /api/v1/imports instead, or stop the server first.`);
    throw err;
  }
}

/** Runs `cli import`; resolves with the report. */
export async function runImportCommand(config: Config, cmd: ImportCommand): Promise<Record<string, unknown>> {
  await stat(cmd.file);
  const { store, lease } = await openAsWriter(config);
  // Pages are written one after another: those done are let go soon, so memory stays bounded.
  const system = new ActorSystem({ store, bus: new EventBus(), maxActive: Math.min(config.maxActiveActors, 1000), idleMs: Math.min(config.actorIdleMs, 5000), askTimeoutMs: Math.max(config.askTimeoutMs, 600_000), mailboxLimit: config.mailboxLimit });
  registerActors(system);
  const problems = cmd.problemsFile === undefined ? undefined : createWriteStream(cmd.problemsFile);
  try {
    if ((await store.get(TENANT_COLLECTIONS.tenants, cmd.tenantId)) === undefined) throw new Error(`no tenant ${cmd.tenantId}`);
    const size = (await stat(cmd.file)).size;
    const seenTotal = (p: { commentsSeen: number }) => p.commentsSeen;
    const progress = new Progress(size, cmd.format === 'native' ? 'documents' : 'comments');
    let report: Record<string, unknown>;
    if (cmd.format === 'native') {
      const out = await importNative({ system, tenantId: cmd.tenantId, file: cmd.file, dryRun: cmd.dryRun, onProgress: (bytes, docs) => progress.update(bytes, docs) });
      progress.done(out.documents.total);
      report = { ...out };
    } else {
      const source = await openSource(cmd.format, cmd.file);
      const out = await runImport({
        system,
        tenantId: cmd.tenantId,
        format: cmd.format,
        source,
        dryRun: cmd.dryRun,
        match: cmd.match,
        sourceBytes: size,
        onProgress: (p) => (p.phase === 'reading' ? progress.update(p.bytesRead, p.commentsSeen, 'reading') : progress.update(p.commentsWritten, p.commentsWritten, 'writing', seenTotal(p))),
        onProblem: (p) => problems?.write(JSON.stringify(p) + '\n'),
      });
      progress.done(out.comments.total);
      report = { ...out };
    }
    return report;
  } finally {
    await new Promise<void>((resolve) => (problems === undefined ? resolve() : problems.end(resolve)));
    await system.shutdown(30_000);
    await lease?.release();
    await store.close();
  }
}
