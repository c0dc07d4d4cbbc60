import { randomBytes } from 'node:crypto';
import { TenantKind } from '../actors/tenant/tenant-actor.js';
import { USAGE_COUNTERS, type UsageCounts } from '../actors/tenant/usage.js';
import type { ActorSystem } from '../engine/actor-system.js';
import { ApiError } from '../engine/errors.js';
import { log } from '../engine/log.js';

/** Charges of one tenant gathered into one ledger message. */
interface Batch {
  credits: number;
  counts: UsageCounts | undefined;
  /** When the first call of the batch was made: the batch lands on that call's day. */
  readonly at: number;
  /** Callers waiting for the batch to be recorded (or handed to the retries). */
  waiters: ((charged: boolean) => void)[];
  /** Resolves once the batch is recorded, handed to the retries, or refused for good. */
  readonly sent: Promise<void>;
  markSent: () => void;
}

/** A tenant's charges from this process: gathered batches, sent one at a time, in order. */
interface Lane {
  readonly queue: Batch[];
  /** Credits of the batch sent and not yet answered. */
  inflight: number;
  busy: boolean;
  /** The batch under way could not be recorded yet and is being sent again. */
  retrying: boolean;
}

const DAY_MS = 86_400_000;

/** How long charges nobody waits for (reads) gather before they are sent. */
const READ_BATCH_MS = 10;

/**
 * How long a charge whose ledger cannot be reached is sent again. Past it the charge is given
 * up (logged as `charge-not-recorded`); a failover takes the lease time plus a few seconds.
 */
export const CHARGE_RETRY_WINDOW_MS = 120_000;
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 2000;

/** Whether a failed charge may succeed when sent again: anything but a refusal of the charge itself. */
function retryable(err: unknown): boolean {
  return !(err instanceof ApiError) || err.status >= 500 || err.status === 408 || err.status === 429;
}

function newBatch(at: number): Batch {
  let markSent!: () => void;
  const sent = new Promise<void>((resolve) => (markSent = resolve));
  return { credits: 0, counts: undefined, at, waiters: [], sent, markSent };
}

/**
 * Gathers charges into one ledger message per tenant: those of one event-loop turn when a
 * write waits for its charge, those of up to `READ_BATCH_MS` when only reads were charged. A
 * busy tenant otherwise sends its ledger actor one message, and one storage write, per call.
 *
 * Every message carries a mark, this process's id and a number increasing per message, and a
 * tenant's messages are sent one at a time: what gathers meanwhile becomes the next message.
 * A message that fails for a reason that may pass (a timeout, the ledger's node lost, storage
 * away) is sent again, with the same mark, until it is recorded or `CHARGE_RETRY_WINDOW_MS`
 * passed; the ledger recognises a mark it already holds, so a charge whose answer was lost is
 * applied once (actors/tenant/ledger.ts). A failover of the ledger's node therefore delays
 * charges but does not lose them.
 */
export class ChargeBatcher {
  readonly #system: ActorSystem;
  /** This process's charges are told apart from every other process's by it. */
  readonly #sender = randomBytes(8).toString('hex');
  #seq = 0;
  readonly #lanes = new Map<string, Lane>();
  #scheduled: 'turn' | 'timer' | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** Batches being sent (first attempt or retries): what `settled` waits for. */
  readonly #running = new Set<Promise<void>>();

  constructor(system: ActorSystem) {
    this.#system = system;
  }

  /**
   * Adds to the tenant's next charge. With `wait`, returns a promise that resolves once the
   * charge is recorded and durable, or is being sent again after a failure (true), or was
   * refused for good (false, logged); never rejects.
   */
  add(tenantId: string, credits: number, counts: UsageCounts | undefined, at: number, wait: boolean): Promise<boolean> | undefined {
    let lane = this.#lanes.get(tenantId);
    if (lane === undefined) {
      lane = { queue: [], inflight: 0, busy: false, retrying: false };
      this.#lanes.set(tenantId, lane);
    }
    let batch = lane.queue.at(-1);
    // A batch lands on one day: a charge of another (UTC) day starts the next batch.
    if (batch === undefined || Math.floor(batch.at / DAY_MS) !== Math.floor(at / DAY_MS)) {
      batch = newBatch(at);
      lane.queue.push(batch);
    }
    batch.credits += credits;
    if (counts !== undefined) {
      const sum: UsageCounts = (batch.counts ??= {});
      for (const counter of USAGE_COUNTERS) {
        const n = counts[counter];
        if (n) sum[counter] = (sum[counter] ?? 0) + n;
      }
    }
    if (wait) {
      if (this.#scheduled !== 'turn') {
        clearTimeout(this.#timer);
        this.#scheduled = 'turn';
        setImmediate(() => void this.flush());
      }
    } else if (this.#scheduled === undefined) {
      this.#scheduled = 'timer';
      this.#timer = setTimeout(() => void this.flush(), READ_BATCH_MS);
    }
    if (!wait) return undefined;
    // Behind a charge being sent again, a call does not wait: its charge will follow it.
    if (lane.retrying) return Promise.resolve(true);
    const target = batch;
    return new Promise<boolean>((resolve) => target.waiters.push(resolve));
  }

  /**
   * Credits of the tenant not yet known durable by its ledger's answer: gathered and not sent,
   * or sent and not answered. Admission counts them, so that a client that waits for each
   * answer gets exactly its allowance, however slow storage is. (The ledger may show a charge
   * before its answer: counted twice then, a call near the end of the allowance goes to the
   * ledger itself, which decides exactly.)
   */
  pending(tenantId: string): number {
    const lane = this.#lanes.get(tenantId);
    if (lane === undefined) return 0;
    let credits = lane.inflight;
    for (const batch of lane.queue) credits += batch.credits;
    return credits;
  }

  /**
   * Sends every gathered charge (of `tenantId` only, if given) as soon as its tenant has no
   * other under way; resolves once each is recorded, handed to the retries, or refused.
   */
  flush(tenantId?: string): Promise<void> {
    if (tenantId === undefined) {
      this.#scheduled = undefined;
      clearTimeout(this.#timer);
    }
    const waits: Promise<void>[] = [];
    const lanes = tenantId === undefined ? this.#lanes : new Map([[tenantId, this.#lanes.get(tenantId)]]);
    for (const [id, lane] of lanes) {
      if (lane === undefined) continue;
      for (const batch of lane.queue) waits.push(batch.sent);
      if (!lane.busy) this.#sendNext(id, lane);
    }
    return Promise.all(waits).then(() => undefined);
  }

  /** Resolves once no charge is under way, retries included, or after `timeoutMs` (false then). */
  async settled(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.flush();
      if (this.#running.size === 0) return true;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(this.#running), new Promise((resolve) => (timer = setTimeout(resolve, left)))]);
      clearTimeout(timer);
    }
  }

  #sendNext(tenantId: string, lane: Lane): void {
    const batch = lane.queue.shift();
    if (batch === undefined) {
      this.#lanes.delete(tenantId);
      return;
    }
    lane.busy = true;
    lane.inflight = batch.credits;
    const running = this.#send(tenantId, lane, batch).finally(() => {
      this.#running.delete(running);
      lane.busy = false;
      lane.retrying = false;
      lane.inflight = 0;
      // What gathered meanwhile goes at once: its callers may be waiting.
      if (lane.queue.length > 0) this.#sendNext(tenantId, lane);
      else if (this.#lanes.get(tenantId) === lane) this.#lanes.delete(tenantId);
    });
    this.#running.add(running);
  }

  async #send(tenantId: string, lane: Lane, batch: Batch): Promise<void> {
    const mark = { sender: this.#sender, seq: ++this.#seq };
    const payload = { credits: batch.credits, ...(batch.counts ? { counts: batch.counts } : {}), at: batch.at, mark };
    const started = Date.now();
    let delay = RETRY_FIRST_MS;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.#system.ask(TenantKind, tenantId, 'charge', payload);
        if (attempt > 1) log.info('charge-recorded-after-retry', { tenantId, seq: mark.seq, credits: batch.credits, attempts: attempt });
        this.#release(batch, true);
        return;
      } catch (err) {
        if (!retryable(err) || Date.now() - started >= CHARGE_RETRY_WINDOW_MS) {
          log.error('charge-not-recorded', { tenantId, seq: mark.seq, credits: batch.credits, attempts: attempt, err });
          this.#release(batch, false);
          return;
        }
        if (attempt === 1) {
          log.warn('charge-retrying', { tenantId, seq: mark.seq, credits: batch.credits, err });
          // The calls answer now; their charges are recorded when the ledger is back.
          lane.retrying = true;
          this.#release(batch, true);
          for (const queued of lane.queue) this.#release(queued, true);
        }
      }
      // A retry never keeps a stopping process alive (a charge sent as the server shuts down is retried in vain).
      await new Promise((resolve) => setTimeout(resolve, delay).unref());
      delay = Math.min(RETRY_MAX_MS, delay * 2);
    }
  }

  #release(batch: Batch, charged: boolean): void {
    const waiters = batch.waiters;
    batch.waiters = [];
    for (const wake of waiters) wake(charged);
    batch.markSent();
  }
}
