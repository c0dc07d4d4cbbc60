/**
 * Import and export jobs a stopped server left queued or running, run again at start-up
 * (import-job-model.ts). In a cluster every node asks; a job is one actor, and a run under
 * way in its process is not started twice.
 */
import type { ActorSystem } from '../../engine/actor-system.js';
import { log } from '../../engine/log.js';
import type { Store } from '../../storage/store.js';
import { ExportJobKind } from '../export/export-job-actor.js';
import { DATA_JOB_COLLECTIONS, type ExportJobDoc, type ImportJobDoc } from './import-job-model.js';
import { ImportJobKind } from './import-job-actor.js';

/** Asks every unfinished job to run; resolves once asked. */
export async function resumeDataJobs(system: ActorSystem, store: Store): Promise<void> {
  for (const state of ['queued', 'running']) {
    for (const job of await store.find<ImportJobDoc>(DATA_JOB_COLLECTIONS.importJobs, { state })) {
      await system.ask(ImportJobKind, `${job.tenantId}:${job._id}`, 'run', null).catch((err: unknown) => log.warn('import-job-resume-failed', { id: job._id, err }));
    }
    for (const job of await store.find<ExportJobDoc>(DATA_JOB_COLLECTIONS.exportJobs, { state })) {
      await system.ask(ExportJobKind, `${job.tenantId}:${job._id}`, 'run', null).catch((err: unknown) => log.warn('export-job-resume-failed', { id: job._id, err }));
    }
  }
}
