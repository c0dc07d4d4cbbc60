/**
 * Durable background jobs: work too long for one message (deleting a user's comments on
 * thousands of pages) is recorded before it starts and removed when it ends, so a crash
 * midway leaves the record, and the next start carries the job on (`resumeJobs`). Each job
 * is an actor stepped round by round; a step is idempotent, so two drivers of one job (a
 * retried request, a resume, another node's resume) only repeat a check.
 */
import type { CollectionSpec, Doc } from '../../storage/store.js';

export const JOBS = 'jobs';

export const jobCollections: readonly CollectionSpec[] = [{ name: JOBS, indexes: [{ name: 'by_tenant', fields: ['tenantId'] }] }];

/** What every job record holds. */
export interface JobDoc extends Doc {
  type: string;
  /** The id of the actor that runs it. */
  actorId: string;
  tenantId: string;
  /** ms since 1970. */
  createdAt: number;
}
