import { TenantKind } from '../actors/tenant/tenant-actor.js';
import { USAGE_COUNTERS, type UsageCounts } from '../actors/tenant/usage.js';
import type { ActorSystem } from '../engine/actor-system.js';
import { log } from '../engine/log.js';

interface PendingCharge {
  credits: number;
  counts: UsageCounts | undefined;
  /** When the first call of the batch was made: the batch lands on that call's day. */
  at: number;
  done: Promise<boolean> | undefined;
  settle: ((recorded: boolean) => void) | undefined;
}

const DAY_MS = 86_400_000;

/** How long charges nobody waits for (reads) gather before they are sent. */
const READ_BATCH_MS = 10;

/**
 * Gathers charges into one ledger message per tenant: those of one event-loop turn when a
 * write waits for its charge, those of up to `READ_BATCH_MS` when only reads were charged. A
 * busy tenant otherwise sends its ledger actor one message, and one storage write, per call.
 */
export class ChargeBatcher {
  readonly #system: ActorSystem;
  #pending = new Map<string, PendingCharge>();
  /**
   * Credits sent to each tenant's ledger whose message has not come back yet. The ledger's
   * published admission may not show them yet (its message waits in the mailbox, or the
   * commit is on its way), so admission counts them here until the answer arrives.
   */
  readonly #inflight = new Map<string, number>();
  #scheduled: 'turn' | 'timer' | undefined;
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();

  constructor(system: ActorSystem) {
    this.#system = system;
  }

  /**
   * Adds to the tenant's next charge. With `wait`, returns a promise that resolves once the
   * charge is recorded and durable (true) or could not be (false, logged); never rejects.
   */
  add(tenantId: string, credits: number, counts: UsageCounts | undefined, at: number, wait: boolean): Promise<boolean> | undefined {
    let pending = this.#pending.get(tenantId);
    // A batch lands on one day: a charge of another (UTC) day sends what is gathered first.
    if (pending !== undefined && Math.floor(pending.at / DAY_MS) !== Math.floor(at / DAY_MS)) {
      void this.flush();
      pending = undefined;
    }
    if (pending === undefined) {
      pending = { credits: 0, counts: undefined, at, done: undefined, settle: undefined };
      this.#pending.set(tenantId, pending);
    }
    pending.credits += credits;
    if (counts !== undefined) {
      const sum: UsageCounts = (pending.counts ??= {});
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
    pending.done ??= new Promise<boolean>((resolve) => {
      pending.settle = resolve;
    });
    return pending.done;
  }

  /**
   * Credits of the tenant not yet known durable by its ledger's answer: gathered and not sent,
   * or sent and not answered. Admission counts them, so that a client that waits for each
   * answer gets exactly its allowance, however slow storage is. (The ledger may show a charge
   * before its answer: counted twice then, a call near the end of the allowance goes to the
   * ledger itself, which decides exactly.)
   */
  pending(tenantId: string): number {
    return (this.#pending.get(tenantId)?.credits ?? 0) + (this.#inflight.get(tenantId) ?? 0);
  }

  /** Sends every gathered charge now; resolves once each is recorded or has failed. */
  flush(): Promise<void> {
    this.#scheduled = undefined;
    clearTimeout(this.#timer);
    const batch = this.#pending;
    if (batch.size === 0) return this.#flushing;
    this.#pending = new Map();
    const sent = [...batch].map(async ([tenantId, charge]) => {
      let recorded = true;
      this.#inflight.set(tenantId, (this.#inflight.get(tenantId) ?? 0) + charge.credits);
      try {
        const payload = charge.counts ? { credits: charge.credits, counts: charge.counts, at: charge.at } : { credits: charge.credits, at: charge.at };
        await this.#system.ask(TenantKind, tenantId, 'charge', payload);
      } catch (err) {
        recorded = false;
        log.error('charge-not-recorded', { tenantId, credits: charge.credits, err });
      } finally {
        const left = (this.#inflight.get(tenantId) ?? 0) - charge.credits;
        if (left === 0) this.#inflight.delete(tenantId);
        else this.#inflight.set(tenantId, left);
      }
      charge.settle?.(recorded);
    });
    this.#flushing = Promise.all(sent).then(() => undefined);
    return this.#flushing;
  }
}
