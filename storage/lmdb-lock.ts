/**
 * One server per LMDB directory. LMDB itself lets several processes open one environment, and
 * two servers would then each hold actors over the same documents and overwrite each other's
 * state. A server therefore holds an exclusive `flock` on `<dataDir>/server.lock` for its whole
 * life. Node has no `flock`, so the lock is held by a `flock(1)` child (util-linux) whose
 * command waits on its standard input: when the server exits, however it exits (SIGKILL
 * included), the pipe closes, the child ends and the kernel drops the lock. A crashed server
 * therefore never leaves a stale lock behind, and no process id is ever guessed at.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WriterHeldError } from './errors.js';
import type { WriterLease } from './store.js';

/** Takes the lock on `dataDir` or throws WriterHeldError; released by `release()` or by exiting. */
export function lockDataDir(dataDir: string): Promise<WriterLease> {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'server.lock');
  const child = spawn('flock', ['--exclusive', '--nonblock', '--conflict-exit-code', '75', path, 'sh', '-c', 'echo locked && exec cat >/dev/null'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return new Promise<WriterLease>((resolve, reject) => {
    let output = '';
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    child.once('error', (err) => reject(new Error(`cannot lock ${path}: flock(1) (util-linux) is needed: ${err.message}`)));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const refusedOrFailed = (code: number | null) => {
      if (code === 75) {
        reject(
          new WriterHeldError(
            `Another server is running on DATA_DIR ${dataDir} (it holds ${path}). Two servers on one LMDB directory would overwrite each other's data: stop the other one first, or give this one its own DATA_DIR.`,
          ),
        );
      } else reject(new Error(`cannot lock ${path}: flock exited with ${code} ${output.trim()}`));
    };
    child.once('exit', refusedOrFailed);
    child.stdout!.once('data', () => {
      child.off('exit', refusedOrFailed);
      // The lock must not keep the process alive, nor end before it.
      child.unref();
      for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as { unref?: () => void }).unref?.();
      try {
        writeFileSync(path, `${process.pid}\n`);
      } catch {
        // The lock holds whatever the file says; the pid is only for people.
      }
      resolve({
        async release() {
          // Waiting for the lock to go must keep the process alive until it has.
          child.ref();
          child.stdin!.end();
          await exited;
        },
      });
    });
  });
}
