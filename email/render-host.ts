/**
 * The render host: a child process of the server that owns the Piscina pool of render workers.
 * A worker that outgrows its heap step by step is stopped by its `resourceLimits` and replaced
 * by Piscina; but one allocation far beyond the limit (a string or array of hundreds of MB at
 * once) makes V8 abort the whole process, which would take the server with it. Here it takes
 * only this process; the server starts another (render-pool.ts).
 *
 * It also builds the raw MIME messages of emails (compose-worker.ts), off the server's thread.
 *
 * Protocol (IPC): the server sends `{id, job}` (a render) or `{id, mail}` (a message to build);
 * this process answers `{id, outcome}`, `{id, raw}` or `{id, error}`.
 */
import { Piscina } from 'piscina';
import { RENDER_FAILURES, type RenderJob, type RenderOutcome } from './sandbox.js';
import type { OutgoingEmail } from './transport.js';

interface HostOptions {
  readonly threads: number;
  readonly memoryMb: number;
  /** How long past a render's own limit before its worker is terminated. */
  readonly backstopMs: number;
}

const options = JSON.parse(process.env['RENDER_HOST_OPTIONS'] ?? '{}') as HostOptions;

const COMPOSE_WORKER = new URL('./compose-worker.js', import.meta.url).href;

const pool = new Piscina({
  filename: new URL('./render-worker.js', import.meta.url).href,
  minThreads: 1,
  maxThreads: Math.max(1, options.threads),
  idleTimeout: 60_000,
  resourceLimits: { maxOldGenerationSizeMb: options.memoryMb, maxYoungGenerationSizeMb: Math.max(4, Math.ceil(options.memoryMb / 8)), stackSizeMb: 4 },
});
// A worker that died is replaced by Piscina; its task is answered below.
pool.on('error', () => {});

async function run(job: RenderJob): Promise<RenderOutcome> {
  const abort = new AbortController();
  const backstop = setTimeout(() => abort.abort(), job.timeoutMs + options.backstopMs);
  try {
    return (await pool.run(job, { signal: abort.signal })) as RenderOutcome;
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
      return { ok: false, failure: RENDER_FAILURES.memory, message: 'The template used more memory than a render may.', line: null, part: 'body' };
    }
    if (abort.signal.aborted) {
      return { ok: false, failure: RENDER_FAILURES.timeout, message: `The template did not finish within ${job.timeoutMs} ms.`, line: null, part: 'body' };
    }
    return { ok: false, failure: RENDER_FAILURES.runtime, message: `The renderer failed: ${(err as Error).message}`, line: null, part: 'body' };
  } finally {
    clearTimeout(backstop);
  }
}

process.on('message', (message: { id: number; job?: RenderJob; mail?: OutgoingEmail }) => {
  if (message.job !== undefined) {
    void run(message.job).then((outcome) => process.send?.({ id: message.id, outcome }));
    return;
  }
  (pool.run(message.mail, { filename: COMPOSE_WORKER }) as Promise<Uint8Array>).then(
    (raw) => process.send?.({ id: message.id, raw: Buffer.from(raw) }),
    (err: unknown) => process.send?.({ id: message.id, error: String((err as Error)?.message ?? err) }),
  );
});
// The server went away: nothing left to render for.
process.on('disconnect', () => process.exit(0));
