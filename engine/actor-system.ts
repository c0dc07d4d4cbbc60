import { LRUCache } from 'lru-cache';
import type { Fence, Store } from '../storage/store.js';
import type { ActorFactory, ActorKind, Protocol } from './actor.js';
import { ActorCell, type CellHost, type Envelope } from './actor-cell.js';
import { ApiError } from './errors.js';
import { Deadlines, type Expiring } from './deadlines.js';
import { EventBus } from './event-bus.js';
import { log } from './log.js';
import { ASK_TIMEOUTS } from './metrics/actor-meters.js';

export interface ActorSystemOptions {
  store: Store;
  bus?: EventBus;
  /** Active actors kept before idle ones are passivated, least recently used first. */
  maxActive?: number;
  /** An actor unused this long is passivated. */
  idleMs?: number;
  /**
   * Heap the active actors may hold together, by their own estimates (`Actor.memoryBytes`, taken at
   * each use); beyond it the least recently used are passivated. Undefined or 0: no bound.
   */
  maxMemoryBytes?: number;
  /** Default time an `ask` waits for its reply. */
  askTimeoutMs?: number;
  /** Messages queued per actor before `ask` is refused with `overloaded`. */
  mailboxLimit?: number;
}

export interface AskOptions {
  timeoutMs?: number;
}

/**
 * What cluster mode plugs into the system (see `engine/cluster/`): it decides where each `ask`
 * and `peek` goes, and hears of activations and view changes. Without one, the system is the
 * single process it always was, on the same code path.
 */
export interface ActorRouter {
  ask(kind: ActorKind<Protocol>, id: string, type: string, payload: unknown, timeoutMs: number): Promise<unknown>;
  /** `passivateTenant` on every node of the cluster; resolves with the actors left in all. */
  passivateTenant(tenantId: string, exceptKind: string, timeoutMs: number): Promise<number>;
  peek(kind: ActorKind<Protocol>, id: string, name: string, entry: string): unknown;
  onActivate(cell: ActorCell): void;
  onView(cell: ActorCell, name: string | null, key: string | null, value: unknown): void;
}

/** Counters for benchmarks and health. */
export interface SystemStats {
  batches: number;
  ops: number;
  activations: number;
  passivations: number;
  failedFlushes: number;
}

/** Whether an actor key (`<kind>:<id>`) is a tenant's: its id is the tenant id, or starts with it and a colon. */
export function keyOfTenant(key: string, tenantId: string): boolean {
  const colon = key.indexOf(':');
  if (colon < 0) return false;
  const id = key.slice(colon + 1);
  return id === tenantId || id.startsWith(`${tenantId}:`);
}

/** One `ask` on its way: an envelope in a mailbox, settled once, with a deadline. */
class PendingAsk implements Envelope, Expiring {
  started = false;
  settled = false;
  bucket = 0;
  readonly #resolve: (value: unknown) => void;
  readonly #reject: (err: unknown) => void;
  readonly #deadlines: Deadlines<PendingAsk>;

  constructor(
    readonly type: string,
    readonly payload: unknown,
    resolve: (value: unknown) => void,
    reject: (err: unknown) => void,
    deadlines: Deadlines<PendingAsk>,
  ) {
    this.#resolve = resolve;
    this.#reject = reject;
    this.#deadlines = deadlines;
  }

  resolve(value: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.#deadlines.remove(this, this.bucket);
    this.#resolve(value);
  }

  reject(err: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.#deadlines.remove(this, this.bucket);
    this.#reject(err);
  }

  expire(): void {
    if (this.settled) return;
    this.settled = true;
    ASK_TIMEOUTS.n++;
    this.#reject(
      this.started ? new ApiError('timeout') : new ApiError('timeout', 'The request timed out before it was processed; nothing was changed.'),
    );
  }
}

/**
 * Addresses actors by key (`<kind>:<id>`), activates them on first use, passivates idle ones,
 * and delivers `ask`s with a timeout. Callers never hold actor references, only keys, so
 * actors can later live in other processes without changing callers.
 */
export class ActorSystem {
  readonly store: Store;
  readonly bus: EventBus;
  readonly stats: SystemStats = { batches: 0, ops: 0, activations: 0, passivations: 0, failedFlushes: 0 };

  readonly #kinds = new Map<string, ActorFactory<Protocol>>();
  readonly #cells = new Map<string, ActorCell>();
  readonly #lru: LRUCache<string, ActorCell>;
  readonly #sweep: NodeJS.Timeout;
  readonly #askTimeoutMs: number;
  readonly #deadlines = new Deadlines<PendingAsk>();
  readonly #host: CellHost;
  #closing = false;
  readonly #maxBytes: number;

  /**
   * Marks a cell used. Under a memory bound its size is taken again: the cache keeps the size of
   * an entry set again with the same value, so a changed one is removed first (in the same turn,
   * which does not passivate it: see `dispose`).
   */
  #use(key: string, cell: ActorCell): void {
    if (this.#maxBytes > 0) {
      // One actor larger than the whole bound counts as the bound: it stays, and every other goes.
      const size = Math.max(1, Math.min(this.#maxBytes, Math.round(cell.memoryBytes())));
      if (size !== cell.countedBytes) {
        this.#lru.delete(key);
        cell.countedBytes = size;
      }
    }
    this.#lru.set(key, cell);
  }
  #router: ActorRouter | undefined;

  constructor(options: ActorSystemOptions) {
    this.store = options.store;
    this.bus = options.bus ?? new EventBus();
    this.#askTimeoutMs = options.askTimeoutMs ?? 10_000;
    const idleMs = options.idleMs ?? 300_000;
    const maxBytes = options.maxMemoryBytes ?? 0;
    this.#maxBytes = maxBytes;
    this.#lru = new LRUCache<string, ActorCell>({
      max: options.maxActive ?? 50_000,
      ...(maxBytes > 0 ? { maxSize: maxBytes, sizeCalculation: (cell: ActorCell) => cell.countedBytes } : {}),
      ttl: idleMs,
      updateAgeOnGet: false,
      // Eviction only marks the cell: a busy cell is passivated once its writes are durable.
      // Deferred so that a touch in the same turn (set of the same key) can cancel it.
      dispose: (cell, key) => queueMicrotask(() => {
        if (!this.#lru.has(key) && this.#cells.get(key) === cell) cell.requestPassivation();
      }),
    });
    this.#sweep = setInterval(() => this.#lru.purgeStale(), Math.max(250, Math.min(idleMs / 4, 30_000)));
    this.#sweep.unref();
    const system = this;
    this.#host = {
      store: this.store,
      bus: this.bus,
      system: this,
      mailboxLimit: options.mailboxLimit ?? 20_000,
      stats: this.stats,
      onView: undefined,
      onActivate: undefined,
      onIdle(cell) {
        if (cell.passivationRequested && system.#cells.get(cell.key) === cell) {
          system.#cells.delete(cell.key);
          cell.stop();
          system.stats.passivations++;
          cell.meter.passivations.n++;
        }
      },
    };
  }

  /** Binds a kind of actor to its implementation, making it addressable. */
  register<P extends Protocol>(kind: ActorKind<P>, create: ActorFactory<P>): void {
    if (this.#kinds.has(kind.name)) throw new Error(`actor kind ${kind.name} registered twice`);
    this.#kinds.set(kind.name, create as unknown as ActorFactory<Protocol>);
  }

  /** Cluster mode: routes every ask and peek through `router` from now on. */
  attachRouter(router: ActorRouter): void {
    this.#router = router;
    const host = this.#host as { onView: CellHost['onView']; onActivate: CellHost['onActivate'] };
    host.onView = (cell, name, key, value) => router.onView(cell, name, key, value);
    host.onActivate = (cell) => router.onActivate(cell);
  }

  /** Actors in memory now. */
  get activeCount(): number {
    return this.#cells.size;
  }

  /** Per kind: actors in memory and the deepest mailbox (for metrics, read at scrape). */
  census(): [kind: string, active: number, deepestMailbox: number][] {
    const byKind = new Map<string, [string, number, number]>();
    for (const cell of this.#cells.values()) {
      let entry = byKind.get(cell.kindName);
      if (entry === undefined) byKind.set(cell.kindName, (entry = [cell.kindName, 0, 0]));
      entry[1]++;
      const depth = cell.mailboxDepth;
      if (depth > entry[2]) entry[2] = depth;
    }
    return [...byKind.values()];
  }

  /**
   * Sends a message and waits for the reply, which arrives only after the writes it depends
   * on are durable. Rejects with `timeout` if no reply comes in time; a message that had not
   * started by then is dropped and never runs.
   */
  ask<P extends Protocol, K extends keyof P & string>(
    kind: ActorKind<P>,
    id: string,
    type: K,
    payload: P[K]['in'],
    options?: AskOptions,
  ): Promise<P[K]['out']> {
    if (this.#router !== undefined) return this.#router.ask(kind, id, type, payload, options?.timeoutMs ?? this.#askTimeoutMs) as Promise<P[K]['out']>;
    if (this.#closing) return Promise.reject(new ApiError('shutting-down'));
    const cell = this.#cell(kind, id);
    return new Promise<P[K]['out']>((resolve, reject) => {
      const env = new PendingAsk(type, payload, resolve as (value: unknown) => void, reject, this.#deadlines);
      env.bucket = this.#deadlines.add(env, options?.timeoutMs ?? this.#askTimeoutMs);
      cell.enqueue(env);
    });
  }

  /**
   * Cluster mode, for the router: delivers an ask here, to an actor of a shard this node holds
   * under `fence`. `keep` false delivers only to an actor already active, without cancelling its
   * passivation (a shard being handed over); undefined then means "not active here".
   */
  askHere(kind: ActorKind<Protocol>, id: string, type: string, payload: unknown, timeoutMs: number, fence: Fence, keep = true): Promise<unknown> | undefined {
    if (this.#closing) return Promise.reject(new ApiError('shutting-down'));
    const key = `${kind.name}:${id}`;
    let cell = this.#cells.get(key);
    if (cell !== undefined && cell.fence !== fence) {
      // Left from an earlier lease on the shard: it must not serve this one.
      cell.evict(new ApiError('cluster-unavailable'));
      this.#forget(cell);
      cell = undefined;
    }
    if (cell === undefined) {
      if (!keep) return undefined;
      const create = this.#kinds.get(kind.name);
      if (create === undefined) return Promise.reject(new ApiError('internal-error', `actor kind ${kind.name} is not registered`));
      cell = new ActorCell(key, id, kind.name, create, this.#host, fence);
      this.#cells.set(key, cell);
    }
    if (keep) {
      cell.keep();
      this.#use(key, cell);
    }
    const target = cell;
    return new Promise<unknown>((resolve, reject) => {
      const env = new PendingAsk(type, payload, resolve, reject, this.#deadlines);
      env.bucket = this.#deadlines.add(env, timeoutMs);
      target.enqueue(env);
    });
  }

  /** Cluster mode, for the router: a view of an actor active here, as `peek` reads it alone. */
  peekHere(kind: ActorKind<Protocol>, id: string, name: string, entry: string): unknown {
    return this.#peekCell(`${kind.name}:${id}`, name, entry);
  }

  /** Cluster mode: the active actor under `key`, if any. */
  cellOf(key: string): ActorCell | undefined {
    return this.#cells.get(key);
  }

  /**
   * Cluster mode: a shard left this node. Its actors are dropped at once; messages they had not
   * started are refused with `failure`.
   */
  evictWhere(belongs: (cell: ActorCell) => boolean, failure: unknown): number {
    let evicted = 0;
    for (const cell of [...this.#cells.values()]) {
      if (!belongs(cell)) continue;
      cell.evict(failure);
      this.#forget(cell);
      evicted++;
    }
    return evicted;
  }

  /**
   * Cluster mode: asks every actor `belongs` picks to passivate once idle (all writes durable),
   * and resolves with how many are still active after `timeoutMs`.
   */
  async passivateWhere(belongs: (cell: ActorCell) => boolean, timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      let left = 0;
      for (const cell of this.#cells.values()) {
        if (!belongs(cell)) continue;
        left++;
        if (!cell.passivationRequested) cell.requestPassivation();
      }
      if (left === 0 || Date.now() >= deadline) return left;
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  #forget(cell: ActorCell): void {
    if (this.#cells.get(cell.key) !== cell) return;
    this.#cells.delete(cell.key);
    this.#lru.delete(cell.key);
  }

  /**
   * A published view of an active actor, read without a message; undefined when the actor is
   * not active or has not published it. Counts as a use of the actor for passivation.
   */
  peek<P extends Protocol>(kind: ActorKind<P>, id: string, name: string, entry = ''): unknown {
    if (this.#router !== undefined) return this.#router.peek(kind, id, name, entry);
    return this.#peekCell(`${kind.name}:${id}`, name, entry);
  }

  #peekCell(key: string, name: string, entry: string): unknown {
    const cell = this.#cells.get(key);
    if (cell === undefined) return undefined;
    const value = cell.view(name, entry);
    // Reads by view are uses too, but refreshing recency on every one would cost more than the
    // read: once a second is plenty against an idle time of minutes.
    if (value !== undefined) {
      const now = Date.now();
      if (now - cell.touchedAt >= 1000) {
        cell.touchedAt = now;
        this.#lru.get(key, { updateAgeOnGet: true });
      }
    }
    return value;
  }

  /**
   * Passivates every actor of a tenant (whose key's id is the tenant id or starts with it and a
   * colon), except those of kind `exceptKind`, wherever they live: once idle (their writes
   * durable), and those still busy after `timeoutMs` are dropped, their queued messages
   * refused. Resolves with how many were dropped. Deleting a tenant uses it, after the tenant
   * refuses new work, so that nothing it held in memory is written back afterwards.
   */
  passivateTenant(tenantId: string, exceptKind: string, timeoutMs: number): Promise<number> {
    if (this.#router !== undefined) return this.#router.passivateTenant(tenantId, exceptKind, timeoutMs);
    return this.passivateTenantHere(tenantId, exceptKind, timeoutMs);
  }

  /** `passivateTenant` for the actors of this process only. */
  async passivateTenantHere(tenantId: string, exceptKind: string, timeoutMs: number): Promise<number> {
    const belongs = (cell: ActorCell) => cell.kindName !== exceptKind && keyOfTenant(cell.key, tenantId);
    if ((await this.passivateWhere(belongs, timeoutMs)) === 0) return 0;
    return this.evictWhere(belongs, new ApiError('tenant-deleted'));
  }

  /** Sends a message without waiting; a failure is logged. */
  tell<P extends Protocol, K extends keyof P & string>(kind: ActorKind<P>, id: string, type: K, payload: P[K]['in']): void {
    this.ask(kind, id, type, payload).catch((err: unknown) => log.warn('tell-failed', { kind: kind.name, type, err }));
  }

  /** Resolves once every actor is idle (all mailboxes empty, all writes durable), or false on timeout. */
  async drain(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      let busy = false;
      for (const cell of this.#cells.values()) {
        if (!cell.idle) {
          busy = true;
          break;
        }
      }
      if (!busy) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  /** Refuses new messages, drains every mailbox, and passivates every actor. */
  async shutdown(graceMs = 15_000): Promise<boolean> {
    this.#closing = true;
    clearInterval(this.#sweep);
    const drained = await this.drain(graceMs);
    for (const cell of this.#cells.values()) if (cell.idle) cell.stop();
    this.#cells.clear();
    this.#lru.clear();
    return drained;
  }

  #cell(kind: ActorKind<Protocol>, id: string): ActorCell {
    const key = `${kind.name}:${id}`;
    let cell = this.#cells.get(key);
    if (cell === undefined) {
      const create = this.#kinds.get(kind.name);
      if (create === undefined) throw new Error(`actor kind ${kind.name} is not registered`);
      cell = new ActorCell(key, id, kind.name, create, this.#host);
      this.#cells.set(key, cell);
    }
    cell.keep();
    this.#use(key, cell);
    return cell;
  }
}
