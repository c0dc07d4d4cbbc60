/**
 * An import job (`import-job:<tenantId>:<jobId>`): takes the upload's parts, then runs the
 * import in the background (the mailbox stays free for progress and status reads), writing
 * its progress and report on the job document. See import-job-model.ts.
 *
 * Deadlock rules: the run asks page, username and user actors and tells this actor; none of
 * them asks an import job.
 */
import { createWriteStream, rmSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { Actor, defineKind, type Handlers } from '../../engine/actor.js';
import type { ActorSystem } from '../../engine/actor-system.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { newSecret } from '../../engine/ids.js';
import { log } from '../../engine/log.js';
import { importNative } from '../export/native-import.js';
import { beginRun, endRun } from './data-job-runs.js';
import { DATA_JOB_COLLECTIONS, type ImportJobDoc, importJobView, type JobPartDoc, partId } from './import-job-model.js';
import { runImport } from './import-run.js';
import type { MatchRule } from './match.js';
import type { ImportFormat } from './records.js';
import { openSource } from './sources/index.js';

/** Parts one upload may have. */
export const MAX_PARTS = 10_000;
/** Progress is written at most this often. */
const PROGRESS_EVERY_MS = 1000;

type View = Record<string, unknown>;

export type ImportJobProtocol = {
  create: { in: { format: ImportFormat; dryRun: boolean; match: MatchRule; data: string; last: boolean }; out: View };
  addPart: { in: { part: number; data: string; last: boolean }; out: View };
  get: { in: null; out: View | null };
  /** Starts the run if the job is queued (or was running when a server stopped). */
  run: { in: null; out: View };
  progress: { in: { phase: string; commentsSeen: number; commentsWritten: number }; out: null };
  finished: { in: { report: Record<string, unknown> | null; error: string | null }; out: null };
};

/** `import-job:<tenantId>:<jobId>` */
export const ImportJobKind = defineKind<ImportJobProtocol>('import-job');

export class ImportJobActor extends Actor<ImportJobProtocol> {
  #job: ImportJobDoc | undefined;

  override async onStart(): Promise<void> {
    const job = await this.store.get<ImportJobDoc>(DATA_JOB_COLLECTIONS.importJobs, this.#jobId());
    // Job ids are global: another tenant's job is, for this one, no job at all.
    this.#job = job?.tenantId === this.#tenantId() ? job : undefined;
  }

  #tenantId(): string {
    return this.id.slice(0, this.id.indexOf(':'));
  }

  #jobId(): string {
    return this.id.slice(this.id.indexOf(':') + 1);
  }

  #save(changes: Partial<ImportJobDoc>): ImportJobDoc {
    const job: ImportJobDoc = { ...this.#job!, ...changes, updatedAt: new Date(clock.now()).toISOString() };
    this.put(DATA_JOB_COLLECTIONS.importJobs, job);
    this.#job = job;
    return job;
  }

  #part(n: number, data: string): number {
    const bytes = Buffer.from(data, 'base64');
    const doc: JobPartDoc = { _id: partId(this.#jobId(), n), tenantId: this.#tenantId(), jobId: this.#jobId(), n, data };
    this.put(DATA_JOB_COLLECTIONS.importParts, doc);
    return bytes.length;
  }

  readonly handlers: Handlers<ImportJobProtocol> = {
    create: ({ format, dryRun, match, data, last }) => {
      if (this.#job !== undefined) throw new ApiError('storage-conflict', 'This import job exists.');
      const now = new Date(clock.now()).toISOString();
      this.#job = { _id: this.#jobId(), tenantId: this.#tenantId(), format, dryRun, match, state: 'uploading', parts: 0, bytes: 0, progress: null, report: null, error: null, runs: 0, createdAt: now, updatedAt: now };
      const bytes = this.#part(0, data);
      const job = this.#save({ parts: 1, bytes, state: last ? 'queued' : 'uploading' });
      if (last) this.#start();
      return importJobView(job);
    },
    addPart: ({ part, data, last }) => {
      const job = this.#own();
      // A part sent again (its answer was lost) is answered as before.
      if (part < job.parts) return importJobView(job);
      if (job.state !== 'uploading') throw new ApiError('import-upload-closed');
      if (part > job.parts) throw new ApiError('import-part-out-of-order', `The next part of this upload is ${job.parts}.`);
      if (part >= MAX_PARTS) throw new ApiError('import-upload-closed', `An upload has at most ${MAX_PARTS} parts.`);
      const bytes = this.#part(part, data);
      const next = this.#save({ parts: job.parts + 1, bytes: job.bytes + bytes, state: last ? 'queued' : 'uploading' });
      if (last) this.#start();
      return importJobView(next);
    },
    get: () => (this.#job === undefined ? null : importJobView(this.#job)),
    run: () => {
      const job = this.#own();
      if (job.state === 'queued' || job.state === 'running') this.#start();
      return importJobView(this.#job!);
    },
    progress: (progress) => {
      if (this.#job?.state === 'running') this.#save({ progress });
      return null;
    },
    finished: ({ report, error }) => {
      if (this.#job === undefined) return null;
      // The upload has served: its parts go, in the batch that records the outcome.
      for (let n = 0; n < this.#job.parts; n++) this.remove(DATA_JOB_COLLECTIONS.importParts, partId(this.#jobId(), n));
      this.#save({ state: error === null ? 'done' : 'failed', report, error });
      return null;
    },
  };

  #own(): ImportJobDoc {
    if (this.#job === undefined) throw new ApiError('import-not-found');
    return this.#job;
  }

  /** Begins the run in the background, unless it is under way in this process. */
  #start(): void {
    if (!beginRun(this.system, `import:${this.id}`)) return;
    const job = this.#save({ state: 'running', runs: this.#job!.runs + 1 });
    const system = this.system;
    const key = this.id;
    // Begins once the state above is durable: a crash from here on finds the job running.
    void this.commitNow([])
      .then(() => runJob(system, key, job))
      .catch((err: unknown) => log.error('import-job-failed', { id: key, err }))
      .finally(() => endRun(system, `import:${key}`));
  }
}

async function runJob(system: ActorSystem, key: string, job: ImportJobDoc): Promise<void> {
  const file = join(tmpdir(), `import-${job._id}-${newSecret(6)}.upload`);
  let last = 0;
  try {
    const out = createWriteStream(file);
    for (let n = 0; n < job.parts; n++) {
      const part = await system.store.get<JobPartDoc>(DATA_JOB_COLLECTIONS.importParts, partId(job._id, n));
      if (part === undefined) throw new Error(`part ${n} of the upload is missing`);
      if (!out.write(Buffer.from(part.data, 'base64'))) await new Promise<void>((r) => out.once('drain', () => r()));
    }
    out.end();
    await finished(out);
    const progress = (p: { phase: string; commentsSeen: number; commentsWritten: number }) => {
      const now = Date.now();
      if (now - last < PROGRESS_EVERY_MS) return;
      last = now;
      system.tell(ImportJobKind, key, 'progress', p);
    };
    let report: Record<string, unknown>;
    if (job.format === 'native') {
      report = { ...(await importNative({ system, tenantId: job.tenantId, file, dryRun: job.dryRun, exceptKind: ImportJobKind.name, onProgress: (_, docs) => progress({ phase: 'writing', commentsSeen: docs, commentsWritten: docs }) })) };
    } else {
      const source = await openSource(job.format, file);
      report = {
        ...(await runImport({ system, tenantId: job.tenantId, format: job.format, source, dryRun: job.dryRun, match: job.match, sourceBytes: (await stat(file)).size, onProgress: progress })),
      };
    }
    await system.ask(ImportJobKind, key, 'finished', { report, error: null });
  } catch (err) {
    await system.ask(ImportJobKind, key, 'finished', { report: null, error: err instanceof Error ? err.message : String(err) });
  } finally {
    rmSync(file, { force: true });
  }
}
