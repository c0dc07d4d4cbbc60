/**
 * Scheduled backups of a server on LMDB (`BACKUP_DIR`, `BACKUP_KEEP`, `BACKUP_INTERVAL_MS`):
 * one backup per interval, taken while the server serves (lmdb-backup.ts), the oldest removed
 * beyond the number kept. A failed backup is logged and the next one tried on time.
 */
import { log } from '../engine/log.js';
import { scheduledBackup } from './lmdb-backup.js';

/** The running schedule. */
export interface BackupSchedule {
  /** Stops scheduling and waits for a backup under way. */
  stop(): Promise<void>;
}

/** Starts the schedule, or nothing when `dir` is unset or storage is not LMDB. */
export function startBackups(options: { dataDir: string; dir: string | undefined; keep: number; intervalMs: number; storageKind: string }): BackupSchedule {
  if (options.dir === undefined) return { stop: async () => undefined };
  if (options.storageKind !== 'lmdb') {
    log.warn('backup-dir-ignored', { reason: 'BACKUP_DIR copies the embedded LMDB database; on MongoDB use mongodump (docs/import-export.md)' });
    return { stop: async () => undefined };
  }
  const dir = options.dir;
  let running: Promise<void> | undefined;
  let stopped = false;
  const tick = () => {
    if (running !== undefined || stopped) return;
    running = scheduledBackup(options.dataDir, dir, options.keep)
      .then((path) => log.info('backup-done', { path }))
      .catch((err: unknown) => log.error('backup-failed', { dir, err }))
      .finally(() => (running = undefined));
  };
  const timer = setInterval(tick, options.intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
