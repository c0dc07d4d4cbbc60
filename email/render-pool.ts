/**
 * Renders email templates away from the server's main thread and process: in the Piscina
 * worker pool of a child process (render-host.ts), each render in a fresh `vm` context
 * (sandbox.ts) under a 500 ms limit, each worker under a heap limit.
 *
 * Bounds: renders one tenant has in flight, and renders waiting in total; beyond them a render
 * is refused (`rate-limited`, `overloaded`) rather than queued without end.
 *
 * If the render host dies (a template allocated far past its limit in one step, and V8 aborted
 * the process), a new one is started. Renders that were in flight become suspects and are
 * tried again one at a time, alone among suspects; a suspect whose host dies too is the cause
 * and is refused with `memory-limit`, so a render that merely shared a host with it still
 * gets its answer.
 */
import { TEMPLATE_POOL } from '../engine/metrics/work-meters.js';
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ApiError } from '../engine/errors.js';
import { log } from '../engine/log.js';
import { RENDER_FAILURES, type RenderJob, type RenderOutcome } from './sandbox.js';
import type { BuiltEmail, EmailBuildJob, HostAnswer, HostTask } from './host-protocol.js';

export interface RenderPoolOptions {
  /** Worker threads of the render host (at most). */
  readonly threads: number;
  /** Old-generation heap limit of each worker, MB. */
  readonly memoryMb: number;
  /** Time limit of one render (the specification's 500 ms). */
  readonly timeoutMs?: number;
  /** Renders one tenant may ask for at once through the API (create, update, preview). */
  readonly perTenant?: number;
  /** Renders (and messages being built) in flight in total before new ones are refused with `overloaded`. */
  readonly maxInFlight?: number;
}

/** What to render: the template, its subject (EJS) and its locals. */
export interface RenderRequest {
  readonly tenantId: string;
  readonly ejs: string;
  readonly subject: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** The specification's render time limit. */
export const RENDER_TIMEOUT_MS = 500;

/** How long past its own limit a render may run before the host terminates its worker. */
const BACKSTOP_MS = 5_000;

/** The API refusal for a failed render: `does-not-render`, with the kind as `secondaryCode`. */
export function renderRefusal(outcome: Extract<RenderOutcome, { ok: false }>): ApiError {
  const where = outcome.line === null ? '' : ` (line ${outcome.line}${outcome.part === 'subject' ? ' of the subject' : ''})`;
  return new ApiError('does-not-render', `The template does not render${where}: ${outcome.message}`, { secondaryCode: outcome.failure });
}

interface Pending {
  readonly id: number;
  readonly task: HostTask;
  readonly settle: (answer: HostAnswer) => void;
  readonly reject: (err: unknown) => void;
}

export class RenderPool {
  readonly #options: RenderPoolOptions;
  readonly #timeoutMs: number;
  readonly #perTenant: number;
  readonly #maxInFlight: number;
  readonly #byTenant = new Map<string, number>();
  readonly #pending = new Map<number, Pending>();
  /** Renders in flight when a host died, retried one at a time. */
  readonly #suspects: Pending[] = [];
  #suspectRunning: Pending | undefined;
  #host: ChildProcess | undefined;
  #nextId = 1;
  #closed = false;

  constructor(options: RenderPoolOptions) {
    this.#options = options;
    this.#timeoutMs = options.timeoutMs ?? RENDER_TIMEOUT_MS;
    this.#perTenant = options.perTenant ?? 4;
    this.#maxInFlight = options.maxInFlight ?? 256;
  }

  /**
   * Renders; every failure of the template is an outcome, never a throw. `perTenant` false: a
   * render of the sender, which bounds its own (EMAIL_TENANT_CONCURRENCY), not counted against
   * the tenant's API renders.
   */
  async render(request: RenderRequest, perTenant = true): Promise<RenderOutcome> {
    if (!perTenant) return this.#render(request);
    const { tenantId } = request;
    const mine = this.#byTenant.get(tenantId) ?? 0;
    if (mine >= this.#perTenant) throw new ApiError('rate-limited', `At most ${this.#perTenant} template renders of one tenant run at once; retry shortly.`);
    this.#byTenant.set(tenantId, mine + 1);
    try {
      return await this.#render(request);
    } finally {
      const left = (this.#byTenant.get(tenantId) ?? 1) - 1;
      if (left === 0) this.#byTenant.delete(tenantId);
      else this.#byTenant.set(tenantId, left);
    }
  }

  async #render(request: RenderRequest): Promise<RenderOutcome> {
    const answer = await this.#submit({ job: this.#job(request) });
    if (answer.outcome === undefined) throw new Error(`The render host could not render: ${answer.error ?? 'no answer'}`);
    return answer.outcome;
  }

  /**
   * Renders an email (the tenant's template, else the built-in one) and builds its raw message,
   * in one round trip to the render host. A tenant template that ended the render host twice
   * comes back as its failure, with nothing built.
   */
  async buildEmail(job: Omit<EmailBuildJob, 'custom' | 'builtIn'> & { custom: RenderRequest | null; builtIn: RenderRequest }): Promise<BuiltEmail> {
    const answer = await this.#submit({ build: { ...job, custom: job.custom === null ? null : this.#job(job.custom), builtIn: this.#job(job.builtIn) } });
    if (answer.built !== undefined) return answer.built;
    if (answer.outcome !== undefined && !answer.outcome.ok) return { raw: null, subject: '', customFailure: answer.outcome, builtInFailure: null };
    throw new Error(`The render host could not build the email: ${answer.error ?? 'no answer'}`);
  }

  #job(request: RenderRequest): RenderJob {
    return { ejs: request.ejs, subject: request.subject, data: JSON.stringify(request.data), timeoutMs: this.#timeoutMs };
  }

  #submit(task: HostTask): Promise<HostAnswer> {
    if (this.#closed) return Promise.reject(new ApiError('shutting-down'));
    if (this.#pending.size >= this.#maxInFlight) return Promise.reject(new ApiError('overloaded', 'Too many template renders are under way; retry shortly.'));
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    return new Promise<HostAnswer>((settle, reject) => {
      const pending: Pending = {
        id: this.#nextId++,
        task,
        settle: (answer) => {
          TEMPLATE_POOL.ran(seconds(), answer.outcome?.ok === false ? 'does-not-render' : answer.error !== undefined ? 'error' : 'ok');
          settle(answer);
        },
        reject: (err) => {
          TEMPLATE_POOL.ran(seconds(), 'error');
          reject(err);
        },
      };
      this.#pending.set(pending.id, pending);
      this.#send(pending);
    });
  }

  /** Renders, or throws the API refusal. */
  async renderOrRefuse(request: RenderRequest): Promise<{ html: string; subject: string }> {
    const outcome = await this.render(request);
    if (!outcome.ok) throw renderRefusal(outcome);
    return outcome;
  }

  /** Renders waiting for an answer (for tests and health). */
  get inFlight(): number {
    return this.#pending.size;
  }

  /** Stops the render host; renders under way are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    const host = this.#host;
    this.#host = undefined;
    for (const pending of this.#pending.values()) pending.reject(new ApiError('shutting-down'));
    this.#pending.clear();
    this.#suspects.length = 0;
    if (host !== undefined && host.exitCode === null && host.signalCode === null) {
      const exited = new Promise<void>((resolve) => host.once('exit', () => resolve()));
      // Waiting for it must keep this process alive.
      host.ref();
      host.kill('SIGTERM');
      await exited;
    }
  }

  #send(pending: Pending): void {
    const host = this.#host ?? this.#start();
    host.ref();
    host.channel?.ref();
    host.send({ id: pending.id, ...pending.task }, (err) => {
      // The host died before taking it: the exit handler retries it.
      if (err) log.debug('render-send-failed', { err });
    });
  }

  #start(): ChildProcess {
    const { threads, memoryMb } = this.#options;
    const host = fork(fileURLToPath(new URL('./render-host.js', import.meta.url)), [], {
      env: { ...process.env, RENDER_HOST_OPTIONS: JSON.stringify({ threads, memoryMb, backstopMs: BACKSTOP_MS }) },
      // V8 reports an abort on stderr; everything else the host has to say comes over IPC.
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    let stderr = '';
    host.stderr!.on('data', (d: Buffer) => {
      if (stderr.length < 4096) stderr += d.toString();
    });
    host.on('message', (message: HostAnswer) => {
      const pending = this.#pending.get(message.id);
      if (pending === undefined) return;
      this.#pending.delete(message.id);
      pending.settle(message);
      if (this.#suspectRunning === pending) {
        this.#suspectRunning = undefined;
        this.#nextSuspect();
      }
      // Idle: the IPC channel must not keep the process alive.
      if (this.#pending.size === 0) {
        host.unref();
        host.channel?.unref();
      }
    });
    host.on('exit', (code, signal) => {
      if (this.#host === host) this.#host = undefined;
      if (this.#closed) return;
      const reason = /FATAL ERROR[^\n]*/.exec(stderr)?.[0] ?? stderr.trim().slice(0, 300);
      log.warn('render-host-exited', { code, signal, inFlight: this.#pending.size, reason });
      this.#recover();
    });
    // Never keeps the server alive by itself.
    host.unref();
    host.channel?.unref();
    this.#host = host;
    return host;
  }

  /** After the host died: the suspect that was running is the cause; the others become suspects. */
  #recover(): void {
    const culprit = this.#suspectRunning;
    this.#suspectRunning = undefined;
    if (culprit !== undefined) {
      this.#pending.delete(culprit.id);
      culprit.settle({ id: culprit.id, outcome: { ok: false, failure: RENDER_FAILURES.memory, message: 'The template used more memory than a render may.', line: null, part: 'body' } });
    }
    const queued = new Set(this.#suspects);
    for (const pending of this.#pending.values()) {
      if (!queued.has(pending)) this.#suspects.push(pending);
    }
    this.#nextSuspect();
  }

  #nextSuspect(): void {
    if (this.#suspectRunning !== undefined || this.#closed) return;
    const next = this.#suspects.shift();
    if (next === undefined) return;
    this.#suspectRunning = next;
    this.#send(next);
  }
}
