/**
 * Gathers the audit entries of reads into one `recordMany` message per tenant, sent off the
 * request path: those of up to `BATCH_MS`, or fewer once a batch reaches `MAX_BATCH_ENTRIES`
 * or `MAX_BATCH_BYTES`. The audit actor writes a batch in one commit, so an audited read costs
 * no storage round trip of its own, and its answer never waits for one.
 *
 * Memory is bounded per tenant: once a tenant's entries gathered and on their way reach
 * `MAX_BACKLOG` (its audit actor cannot keep up), its further reads wait to be answered until
 * the backlog is under that again, instead of piling up entries.
 *
 * A read's entry is durable shortly after its answer: a crash, or a failed commit (logged as
 * `audit-not-recorded`), can lose the entries of its last few milliseconds.
 */
import { AuditKind } from '../actors/audit/audit-actor.js';
import type { TimedAuditEntry } from '../actors/audit/audit-model.js';
import type { ActorSystem } from '../engine/actor-system.js';
import { log } from '../engine/log.js';

/** How long entries gather before they are sent. */
const BATCH_MS = 10;
/** Entries sent in one message at most. */
const MAX_BATCH_ENTRIES = 500;
/** Rough bytes of one message at most (a cluster sends it as one NATS message). */
const MAX_BATCH_BYTES = 256 * 1024;
/** Entries of one tenant gathered or on their way before its reads wait. */
const MAX_BACKLOG = 10_000;
/** What an entry weighs besides its URL and label. */
const ENTRY_BYTES = 300;

interface Batch {
  entries: TimedAuditEntry[];
  bytes: number;
}

/** See the module comment. */
export class AuditBatcher {
  readonly #system: ActorSystem;
  #pending = new Map<string, Batch>();
  /** Entries sent per tenant whose message has not come back. */
  readonly #inflight = new Map<string, number>();
  /** Reads waiting for their tenant's backlog to shrink. */
  readonly #waiting = new Map<string, Array<() => void>>();
  readonly #sending = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | undefined;

  constructor(system: ActorSystem) {
    this.#system = system;
  }

  /**
   * Adds a read's entry to its tenant's next batch. Returns undefined, or, when the tenant's
   * backlog is full, a promise the read waits for before it is answered (it never rejects).
   */
  add(entry: TimedAuditEntry): Promise<void> | undefined {
    const tenantId = entry.tenantId;
    let batch = this.#pending.get(tenantId);
    if (batch === undefined) this.#pending.set(tenantId, (batch = { entries: [], bytes: 0 }));
    batch.entries.push(entry);
    batch.bytes += ENTRY_BYTES + entry.url.length + (entry.targetLabel?.length ?? 0);
    if (batch.entries.length >= MAX_BATCH_ENTRIES || batch.bytes >= MAX_BATCH_BYTES) this.#send(tenantId);
    else this.#timer ??= setTimeout(() => this.#sendAll(), BATCH_MS);
    if (this.#backlog(tenantId) < MAX_BACKLOG) return undefined;
    return new Promise<void>((resolve) => {
      let queue = this.#waiting.get(tenantId);
      if (queue === undefined) this.#waiting.set(tenantId, (queue = []));
      queue.push(resolve);
    });
  }

  /** Sends every gathered entry now; resolves once every batch sent so far is recorded or has failed. */
  async flush(): Promise<void> {
    this.#sendAll();
    while (this.#sending.size > 0) await Promise.all([...this.#sending]);
  }

  #backlog(tenantId: string): number {
    return (this.#pending.get(tenantId)?.entries.length ?? 0) + (this.#inflight.get(tenantId) ?? 0);
  }

  #sendAll(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const tenantId of [...this.#pending.keys()]) this.#send(tenantId);
  }

  #send(tenantId: string): void {
    const batch = this.#pending.get(tenantId);
    if (batch === undefined) return;
    this.#pending.delete(tenantId);
    const n = batch.entries.length;
    this.#inflight.set(tenantId, (this.#inflight.get(tenantId) ?? 0) + n);
    const sending = (async () => {
      try {
        await this.#system.ask(AuditKind, tenantId, 'recordMany', { entries: batch.entries });
      } catch (err) {
        log.error('audit-not-recorded', { tenantId, entries: n, err });
      } finally {
        const left = (this.#inflight.get(tenantId) ?? 0) - n;
        if (left === 0) this.#inflight.delete(tenantId);
        else this.#inflight.set(tenantId, left);
        this.#release(tenantId);
      }
    })();
    this.#sending.add(sending);
    void sending.finally(() => this.#sending.delete(sending));
  }

  /** Lets a tenant's waiting reads go once its backlog has room again. */
  #release(tenantId: string): void {
    const queue = this.#waiting.get(tenantId);
    if (queue === undefined || this.#backlog(tenantId) >= MAX_BACKLOG) return;
    this.#waiting.delete(tenantId);
    for (const resolve of queue) resolve();
  }
}
