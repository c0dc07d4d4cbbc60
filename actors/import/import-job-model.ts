/**
 * Imports and exports run as durable jobs for tenants without shell access
 * (`/api/v1/imports`, `/api/v1/exports`). A job is a document; its file is stored in parts
 * (each within the request body limit), in storage, so that any node of a cluster can run it
 * and a restart finds it. A job that was queued or running when the server stopped is run
 * again at the next start (`resumeDataJobs`): imports are idempotent, so running again
 * resumes without duplicates.
 */
import type { CollectionSpec, Doc } from '../../storage/store.js';
import type { MatchRule } from './match.js';
import type { ImportFormat } from './records.js';

export const DATA_JOB_COLLECTIONS = {
  importJobs: 'importJobs',
  importParts: 'importParts',
  exportJobs: 'exportJobs',
  exportParts: 'exportParts',
} as const;

export const dataJobCollections: readonly CollectionSpec[] = [
  { name: DATA_JOB_COLLECTIONS.importJobs, indexes: [{ name: 'by_tenant_state', fields: ['tenantId', 'state'] }, { name: 'by_state', fields: ['state'] }] },
  { name: DATA_JOB_COLLECTIONS.importParts, indexes: [{ name: 'by_job', fields: ['tenantId', 'jobId', 'n'] }] },
  { name: DATA_JOB_COLLECTIONS.exportJobs, indexes: [{ name: 'by_tenant_state', fields: ['tenantId', 'state'] }, { name: 'by_state', fields: ['state'] }] },
  { name: DATA_JOB_COLLECTIONS.exportParts, indexes: [{ name: 'by_job', fields: ['tenantId', 'jobId', 'n'] }] },
];

/** `uploading` (parts still coming), `queued`, `running`, `done` or `failed`. */
export type JobState = 'uploading' | 'queued' | 'running' | 'done' | 'failed';

/** An import job. */
export interface ImportJobDoc extends Doc {
  tenantId: string;
  format: ImportFormat;
  dryRun: boolean;
  match: MatchRule;
  state: JobState;
  /** Parts received. */
  parts: number;
  bytes: number;
  progress: { phase: string; commentsSeen: number; commentsWritten: number } | null;
  report: Record<string, unknown> | null;
  error: string | null;
  /** Runs begun (a resumed job counts again). */
  runs: number;
  createdAt: string;
  updatedAt: string;
}

/** An export job; its file is `parts` parts of NDJSON text. */
export interface ExportJobDoc extends Doc {
  tenantId: string;
  state: JobState;
  parts: number;
  documents: number;
  bytes: number;
  error: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A part of a job's file. `data`: base64 for uploads, text for exports. */
export interface JobPartDoc extends Doc {
  tenantId: string;
  jobId: string;
  n: number;
  data: string;
}

/** The id of a part document. */
export function partId(jobId: string, n: number): string {
  return `${jobId}:${n}`;
}

/** What the API answers of an import job. */
export function importJobView(job: ImportJobDoc): Record<string, unknown> {
  return {
    id: job._id,
    format: job.format,
    dryRun: job.dryRun,
    match: job.match,
    state: job.state,
    parts: job.parts,
    bytes: job.bytes,
    progress: job.progress,
    report: job.report,
    error: job.error,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
  };
}

/** What the API answers of an export job. */
export function exportJobView(job: ExportJobDoc): Record<string, unknown> {
  return { id: job._id, state: job.state, parts: job.parts, documents: job.documents, bytes: job.bytes, error: job.error, createdAt: job.createdAt, updatedAt: job.updatedAt };
}
