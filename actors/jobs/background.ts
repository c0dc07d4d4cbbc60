/**
 * The identity work a server does in the background: the jobs a crash interrupted, resumed at
 * start-up, and the audit log's expiry sweep (at start, then hourly). In a cluster every node
 * does it: each piece is one actor, reached wherever it lives.
 */
import type { ActorSystem } from '../../engine/actor-system.js';
import { log } from '../../engine/log.js';
import type { Store } from '../../storage/store.js';
import { AuditSweeperKind } from '../audit/audit-actor.js';
import { resumeJobs } from './resume.js';

/** How often expired audit entries are removed. */
const AUDIT_SWEEP_MS = 60 * 60 * 1000;

/** Starts it; `resumed` settles once the resumed jobs ended. */
export async function startIdentityWork(system: ActorSystem, store: Store): Promise<{ resumed: Promise<void> }> {
  const sweep = () => system.ask(AuditSweeperKind, 'all', 'sweep', null).catch((err: unknown) => log.warn('audit-sweep-failed', { err }));
  void sweep();
  setInterval(() => void sweep(), AUDIT_SWEEP_MS).unref();
  return { resumed: (await resumeJobs(system, store)).done };
}
