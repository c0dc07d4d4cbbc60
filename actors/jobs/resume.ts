/**
 * Jobs a crash interrupted, carried on at start-up: erasing users (their job records) and
 * deleting tenants (records with `deletingAt`). Runs in the background; a failure is logged
 * and the job waits for the next start or a retried request. In a cluster every node resumes
 * them: a job is one actor, and its steps are idempotent.
 */
import type { ActorSystem } from '../../engine/actor-system.js';
import { log } from '../../engine/log.js';
import type { Store } from '../../storage/store.js';
import { TENANT_COLLECTIONS } from '../tenant/collections.js';
import type { TenantDoc } from '../tenant/tenant-record.js';
import { JOBS, type JobDoc } from './jobs.js';
import { drivePurge } from './tenant-purge-actor.js';
import { driveUserErase } from './user-erase-actor.js';

/** Starts driving every interrupted job; resolves once they are all found (not finished). */
export async function resumeJobs(system: ActorSystem, store: Store): Promise<{ done: Promise<void> }> {
  const [jobs, deleting] = await Promise.all([
    store.find<JobDoc>(JOBS, {}),
    store.find<TenantDoc>(TENANT_COLLECTIONS.tenants, { deletingAt: { $exists: true } }),
  ]);
  const runs: Promise<unknown>[] = [];
  for (const tenant of deleting) runs.push(drivePurge(system, tenant._id).catch((err: unknown) => log.warn('tenant-purge-resume-failed', { tenantId: tenant._id, err })));
  for (const job of jobs) {
    if (job.type === 'user-erase') runs.push(driveUserErase(system, job.actorId).catch((err: unknown) => log.warn('user-erase-resume-failed', { id: job.actorId, err })));
  }
  if (runs.length > 0) log.info('jobs-resumed', { tenantsDeleting: deleting.length, jobs: jobs.length });
  return { done: Promise.all(runs).then(() => undefined) };
}
