/**
 * The render host: a child process of the server that owns the Piscina pool of render workers.
 * A worker that outgrows its heap step by step is stopped by its `resourceLimits` and replaced
 * by Piscina; but one allocation far beyond the limit (a string or array of hundreds of MB at
 * once) makes V8 abort the whole process, which would take the server with it. Here it takes
 * only this process; the server starts another (render-pool.ts).
 *
 * It also renders and builds the emails the server sends (the raw MIME message, in
 * compose-worker.ts), so that an email costs the server one round trip.
 *
 * Protocol (IPC, host-protocol.ts): the server sends `{id, job}` (a render) or `{id, build}` (an
 * email); this process answers `{id, outcome}`, `{id, built}` or `{id, error}`.
 */
import { Piscina } from 'piscina';
import { RENDER_FAILURES, type RenderJob, type RenderOutcome } from './sandbox.js';
import type { BuiltEmail, EmailBuildJob, HostAnswer, HostTask } from './host-protocol.js';

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

/** Renders the tenant's template, else the built-in one, and builds the message. */
async function build(job: EmailBuildJob): Promise<BuiltEmail> {
  const custom = job.custom === null ? null : await run(job.custom);
  const customFailure = custom !== null && !custom.ok ? custom : null;
  const outcome = custom !== null && custom.ok ? custom : await run(job.builtIn);
  if (!outcome.ok) return { raw: null, subject: '', customFailure, builtInFailure: outcome };
  const mail = { from: job.from, to: job.to, messageId: job.messageId, headers: job.headers, subject: outcome.subject, html: outcome.html };
  const raw = (await pool.run(mail, { filename: COMPOSE_WORKER })) as Uint8Array;
  return { raw, subject: outcome.subject, customFailure, builtInFailure: null };
}

function answer(message: HostAnswer): void {
  process.send?.(message);
}

process.on('message', (message: { id: number } & HostTask) => {
  const { id } = message;
  const done = 'job' in message ? run(message.job).then((outcome) => answer({ id, outcome })) : build(message.build).then((built) => answer({ id, built }));
  done.catch((err: unknown) => answer({ id, error: String((err as Error)?.message ?? err) }));
});
// The server went away: nothing left to render for.
process.on('disconnect', () => process.exit(0));
