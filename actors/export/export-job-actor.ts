/**
 * An export job (`export-job:<tenantId>:<jobId>`): runs the export (export-tenant.ts) in the
 * background and stores its file in parts of about `PART_BYTES`, each durable before the
 * next is made; the API then hands the parts out. A job running when a server stopped is run
 * again at the next start, from the beginning (its parts are written again).
 */
import { Actor, defineKind, type Handlers } from '../../engine/actor.js';
import type { ActorSystem } from '../../engine/actor-system.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { log } from '../../engine/log.js';
import { beginRun, endRun } from '../import/data-job-runs.js';
import { DATA_JOB_COLLECTIONS, type ExportJobDoc, exportJobView, type JobPartDoc, partId } from '../import/import-job-model.js';
import { exportTenant } from './export-tenant.js';

/** Text per part (an answer of `GET /api/v1/exports/:id/parts/:n`). */
export const PART_BYTES = 512 * 1024;

type View = Record<string, unknown>;

export type ExportJobProtocol = {
  create: { in: null; out: View };
  get: { in: null; out: View | null };
  run: { in: null; out: View };
  /** Stores part `n` of the running export (durable when answered). */
  part: { in: { n: number; data: string }; out: null };
  finished: { in: { parts: number; documents: number; bytes: number; error: string | null }; out: null };
  /** Part `n` of a finished export, as text. */
  readPart: { in: { n: number }; out: string };
};

/** `export-job:<tenantId>:<jobId>` */
export const ExportJobKind = defineKind<ExportJobProtocol>('export-job');

export class ExportJobActor extends Actor<ExportJobProtocol> {
  #job: ExportJobDoc | undefined;

  override async onStart(): Promise<void> {
    const job = await this.store.get<ExportJobDoc>(DATA_JOB_COLLECTIONS.exportJobs, this.#jobId());
    // Job ids are global: another tenant's job is, for this one, no job at all.
    this.#job = job?.tenantId === this.#tenantId() ? job : undefined;
  }

  #tenantId(): string {
    return this.id.slice(0, this.id.indexOf(':'));
  }

  #jobId(): string {
    return this.id.slice(this.id.indexOf(':') + 1);
  }

  #save(changes: Partial<ExportJobDoc>): ExportJobDoc {
    const job: ExportJobDoc = { ...this.#job!, ...changes, updatedAt: new Date(clock.now()).toISOString() };
    this.put(DATA_JOB_COLLECTIONS.exportJobs, job);
    this.#job = job;
    return job;
  }

  readonly handlers: Handlers<ExportJobProtocol> = {
    create: () => {
      if (this.#job !== undefined) throw new ApiError('storage-conflict', 'This export job exists.');
      const now = new Date(clock.now()).toISOString();
      this.#job = { _id: this.#jobId(), tenantId: this.#tenantId(), state: 'queued', parts: 0, documents: 0, bytes: 0, error: null, createdAt: now, updatedAt: now };
      this.#start();
      return exportJobView(this.#job);
    },
    get: () => (this.#job === undefined ? null : exportJobView(this.#job)),
    run: () => {
      if (this.#job === undefined) throw new ApiError('export-not-found');
      if (this.#job.state === 'queued' || this.#job.state === 'running') this.#start();
      return exportJobView(this.#job);
    },
    part: ({ n, data }) => {
      const doc: JobPartDoc = { _id: partId(this.#jobId(), n), tenantId: this.#tenantId(), jobId: this.#jobId(), n, data };
      this.put(DATA_JOB_COLLECTIONS.exportParts, doc);
      return null;
    },
    readPart: async ({ n }) => {
      const job = this.#job;
      if (job === undefined) throw new ApiError('export-not-found');
      if (job.state !== 'done') throw new ApiError('export-not-ready');
      if (n >= job.parts) throw new ApiError('export-not-found', `The export has ${job.parts} parts, numbered from 0.`);
      const part = await this.store.get<JobPartDoc>(DATA_JOB_COLLECTIONS.exportParts, partId(this.#jobId(), n));
      if (part === undefined || part.tenantId !== this.#tenantId()) throw new ApiError('export-not-found');
      return part.data;
    },
    finished: ({ parts, documents, bytes, error }) => {
      if (this.#job !== undefined) this.#save({ state: error === null ? 'done' : 'failed', parts, documents, bytes, error });
      return null;
    },
  };

  #start(): void {
    if (!beginRun(this.system, `export:${this.id}`)) return;
    this.#save({ state: 'running' });
    const { system, id } = this;
    const tenantId = this.#tenantId();
    void this.commitNow([])
      .then(() => runExport(system, id, tenantId))
      .catch((err: unknown) => log.error('export-job-failed', { id, err }))
      .finally(() => endRun(system, `export:${id}`));
  }
}

async function runExport(system: ActorSystem, id: string, tenantId: string): Promise<void> {
  let parts = 0;
  let documents = -1;
  let bytes = 0;
  let text = '';
  const flush = async () => {
    await system.ask(ExportJobKind, id, 'part', { n: parts++, data: text });
    bytes += Buffer.byteLength(text);
    text = '';
  };
  try {
    for await (const chunk of exportTenant(system.store, tenantId)) {
      for (const line of chunk.split('\n')) {
        if (line === '') continue;
        documents++;
        text += line + '\n';
        if (text.length >= PART_BYTES) await flush();
      }
    }
    if (text !== '' || parts === 0) await flush();
    await system.ask(ExportJobKind, id, 'finished', { parts, documents, bytes, error: null });
  } catch (err) {
    await system.ask(ExportJobKind, id, 'finished', { parts, documents: Math.max(documents, 0), bytes, error: err instanceof Error ? err.message : String(err) });
  }
}
