/**
 * Runs aggregations in a Piscina pool of worker threads, under the limits of the specification:
 * - memory: each worker's heap is capped (`resourceLimits`); a run that outgrows it ends its
 *   thread (Piscina starts a fresh one for the next run) and is answered `aggregation-memory-limit`;
 * - one at a time per tenant: a tenant's calls queue in arrival order behind its running one;
 * - queued calls wait at most `queueTimeoutMs` before `aggregation-queue-timeout`;
 * - a run lasts at most `runTimeoutMs`: an AbortSignal then ends its thread
 *   (`aggregation-run-timeout`).
 * Free threads go to waiting tenants in turn, so one tenant's queue never delays another
 * tenant's calls beyond the threads busy at the time. Workers run at a lower CPU priority than
 * the thread serving requests. The pool starts with the first call.
 */
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Piscina } from 'piscina';
import { ApiError, isErrorCode } from '../engine/errors.js';
import { log } from '../engine/log.js';
import type { WorkerAnswer, WorkerResult, WorkerTask } from './plan.js';
import type { WorkerSetup } from './worker.js';

/** Limits and placement of the pool. */
export interface AggregatorOptions {
  readonly setup: WorkerSetup;
  /** Heap of one worker (its long-lived part), in MB. */
  readonly memoryMb: number;
  readonly queueTimeoutMs: number;
  readonly runTimeoutMs: number;
  /** Worker threads: aggregations of different tenants running at once. */
  readonly threads: number;
}

/** What happened to a call, for logs and for anyone observing the pool. */
export interface AggregationEvent {
  readonly type: 'queued' | 'started' | 'finished';
  readonly tenantId: string;
  /** `performance.now()` when it happened. */
  readonly at: number;
  /** On `finished`: `ok`, or the error code answered. */
  readonly outcome?: string;
}

interface Call {
  readonly tenantId: string;
  readonly plan: WorkerTask;
  readonly resolve: (answer: WorkerAnswer) => void;
  readonly reject: (error: unknown) => void;
  timer: NodeJS.Timeout | undefined;
}

/** Young generation of a worker: small, so the cap stays close to the configured memory. */
const YOUNG_GENERATION_MB = 8;
/** Idle worker threads end after this long. */
const IDLE_MS = 30_000;
/** Added to workers' niceness: the thread serving requests comes first. */
const NICE_INCREMENT = 10;

function isOutOfMemory(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
}

/** The aggregation pool of one server. */
export class Aggregator {
  readonly #options: AggregatorOptions;
  #pool: Piscina | undefined;
  /** Waiting calls per tenant, oldest first. */
  readonly #queues = new Map<string, Call[]>();
  /** Tenants with waiting calls and none running, in the order they get free threads. */
  readonly #ready: string[] = [];
  readonly #running = new Set<string>();
  readonly #observers = new Set<(event: AggregationEvent) => void>();
  #closed = false;

  constructor(options: AggregatorOptions) {
    this.#options = options;
  }

  /** Runs a plan for a tenant, after the tenant's earlier calls; rejects with an ApiError on a limit. */
  run(tenantId: string, plan: WorkerTask): Promise<WorkerAnswer> {
    if (this.#closed) return Promise.reject(new ApiError('shutting-down'));
    return new Promise<WorkerAnswer>((resolve, reject) => {
      const call: Call = { tenantId, plan, resolve, reject, timer: undefined };
      let queue = this.#queues.get(tenantId);
      if (!queue) this.#queues.set(tenantId, (queue = []));
      queue.push(call);
      if (queue.length === 1 && !this.#running.has(tenantId)) this.#ready.push(tenantId);
      this.#pump();
      if (queue.includes(call)) {
        this.#emit({ type: 'queued', tenantId, at: performance.now() });
        call.timer = setTimeout(() => this.#expire(call), this.#options.queueTimeoutMs);
      }
    });
  }

  /** Calls `listener` with every queued, started and finished call; returns its removal. */
  observe(listener: (event: AggregationEvent) => void): () => void {
    this.#observers.add(listener);
    return () => this.#observers.delete(listener);
  }

  /** Refuses what waits, stops what runs, and ends the threads. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const queue of this.#queues.values()) {
      for (const call of queue) {
        clearTimeout(call.timer);
        call.reject(new ApiError('shutting-down'));
      }
    }
    this.#queues.clear();
    this.#ready.length = 0;
    const pool = this.#pool;
    this.#pool = undefined;
    await pool?.destroy();
  }

  #emit(event: AggregationEvent): void {
    for (const listener of this.#observers) listener(event);
  }

  #expire(call: Call): void {
    const queue = this.#queues.get(call.tenantId);
    const at = queue?.indexOf(call) ?? -1;
    if (!queue || at < 0) return;
    queue.splice(at, 1);
    if (queue.length === 0) {
      this.#queues.delete(call.tenantId);
      const ready = this.#ready.indexOf(call.tenantId);
      if (ready >= 0) this.#ready.splice(ready, 1);
    }
    this.#emit({ type: 'finished', tenantId: call.tenantId, at: performance.now(), outcome: 'aggregation-queue-timeout' });
    call.reject(new ApiError('aggregation-queue-timeout'));
  }

  /** Starts the oldest call of each ready tenant, in turn, while threads are free. */
  #pump(): void {
    while (this.#running.size < this.#options.threads && this.#ready.length > 0) {
      const tenantId = this.#ready.shift()!;
      const queue = this.#queues.get(tenantId)!;
      const call = queue.shift()!;
      if (queue.length === 0) this.#queues.delete(tenantId);
      clearTimeout(call.timer);
      void this.#start(call);
    }
  }

  async #start(call: Call): Promise<void> {
    const { tenantId } = call;
    this.#running.add(tenantId);
    this.#emit({ type: 'started', tenantId, at: performance.now() });
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new ApiError('aggregation-run-timeout')), this.#options.runTimeoutMs);
    let outcome = 'ok';
    try {
      const result = (await this.#poolOnce().run(call.plan, { signal: abort.signal })) as WorkerResult;
      if ('refused' in result) {
        const { code, reason } = result.refused;
        outcome = code;
        call.reject(isErrorCode(code) ? new ApiError(code, reason) : new Error(`worker refused with unknown code ${code}`));
      } else call.resolve(result);
    } catch (error) {
      let answer: unknown = error;
      if (abort.signal.aborted) answer = abort.signal.reason;
      else if (isOutOfMemory(error)) answer = new ApiError('aggregation-memory-limit');
      else if (this.#closed) answer = new ApiError('shutting-down');
      outcome = answer instanceof ApiError ? answer.code : 'internal-error';
      if (outcome === 'internal-error') log.error('aggregation-failed', { tenantId, err: error });
      call.reject(answer);
    } finally {
      clearTimeout(timer);
      this.#running.delete(tenantId);
      if (this.#queues.has(tenantId)) this.#ready.push(tenantId);
      this.#emit({ type: 'finished', tenantId, at: performance.now(), outcome });
      log.debug('aggregation', { tenantId, outcome });
      this.#pump();
    }
  }

  #poolOnce(): Piscina {
    if (this.#pool) return this.#pool;
    const { setup, memoryMb, threads } = this.#options;
    const pool = new Piscina({
      filename: fileURLToPath(new URL('./worker.js', import.meta.url)),
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: IDLE_MS,
      workerData: setup,
      niceIncrement: NICE_INCREMENT,
      // Workers wait for tasks on the event loop, not blocked in Atomics.wait, so that timers
      // (storage clients' own, lmdb-js's read renewal) keep running between tasks.
      atomics: 'disabled',
      resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: Math.min(YOUNG_GENERATION_MB, memoryMb) },
    });
    // A worker that fails between tasks is replaced by the pool; say so, never crash on it.
    pool.on('error', (err: unknown) => log.warn('aggregation-worker-error', { err }));
    this.#pool = pool;
    return pool;
  }
}
