import type { Fence, Store, WriteOp } from '../storage/store.js';
import type { Actor, ActorContext, ActorFactory, Protocol } from './actor.js';
import type { ActorSystem } from './actor-system.js';
import type { EventBus } from './event-bus.js';
import { ApiError } from './errors.js';
import { toApiError } from './storage-errors.js';
import { log } from './log.js';
import { kindMeter, type KindMeter } from './metrics/actor-meters.js';

/**
 * Drops writes made obsolete by a later `put` of the same document in the same batch: a hot
 * document rewritten by a hundred messages is stored once. Inserts stay, for their duplicate
 * check. Order of what remains is kept.
 */
export function coalesce(ops: WriteOp[]): WriteOp[] {
  if (ops.length < 2) return ops;
  const replaced = new Set<string>();
  const kept: WriteOp[] = [];
  for (let i = ops.length - 1; i >= 0; i--) {
    const op = ops[i]!;
    const key = `${op.collection}\u0000${op.op === 'put' || op.op === 'insert' ? op.doc._id : op.id}`;
    if (op.op !== 'insert' && replaced.has(key)) continue;
    if (op.op === 'put') replaced.add(key);
    kept.push(op);
  }
  return kept.length === ops.length ? ops : kept.reverse();
}

/** A change to a view: set `key` to `value`, delete it (`value` undefined), or clear the view (`key` null). */
type ViewChange = readonly [name: string, key: string | null, value: unknown];

/** One queued message with its caller's settle functions. */
export interface Envelope {
  readonly type: string;
  readonly payload: unknown;
  /** Set once the handler has begun: from then on a timeout cannot cancel it. */
  started: boolean;
  /** Set once the caller has an answer (or gave up). */
  settled: boolean;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

/** What a cell needs from its system. */
export interface CellHost {
  readonly store: Store;
  readonly bus: EventBus;
  readonly system: ActorSystem;
  readonly mailboxLimit: number;
  readonly stats: { batches: number; ops: number; activations: number; failedFlushes: number };
  onIdle(cell: ActorCell): void;
  /** Cluster mode: told of every view change this cell applies (null name: all its views dropped). */
  readonly onView: ((cell: ActorCell, name: string | null, key: string | null, value: unknown) => void) | undefined;
  /** Cluster mode: told of every activation. */
  readonly onActivate: ((cell: ActorCell) => void) | undefined;
}

/**
 * A reply held by the output gate until the writes it depends on are durable: the answer (or
 * refusal) with the events and view changes to release with it. A plain record, not closures:
 * every message makes one.
 */
interface Held {
  readonly env: Envelope;
  readonly failed: boolean;
  /** The result, or the error when `failed`. */
  readonly outcome: unknown;
  readonly events: [string, unknown][] | undefined;
  readonly views: ViewChange[] | undefined;
}

/** One activation's view of the cell; dead once the cell resets, so stale handlers cannot write. */
interface Activation extends ActorContext {
  alive: boolean;
  starting: boolean;
}

/**
 * The runtime half of an actor: its mailbox and its output gate.
 *
 * Messages run strictly one at a time in arrival order. Writes go into an open batch; while one
 * batch is being committed, later messages keep running and their writes coalesce into the
 * next batch, so a hot actor does many mutations per storage round trip. Every reply and event
 * is held until all writes made before it are durable. If a commit fails, every held reply
 * fails, the in-memory state is dropped, and the next message reloads it from storage.
 */
export class ActorCell {
  readonly key: string;
  readonly #id: string;
  readonly #kindName: string;
  readonly #create: ActorFactory<Protocol>;
  readonly #host: CellHost;

  #actor: Actor<Protocol> | undefined;

  /** The size the system's memory bound last counted for this cell. */
  countedBytes = 0;

  /** The actor's estimate of its heap (`Actor.memoryBytes`); 1 KB before it is loaded. */
  memoryBytes(): number {
    return this.#actor?.memoryBytes() ?? 1024;
  }

  #activation: Activation | undefined;
  #stale = false;

  #queue: (Envelope | undefined)[] = [];
  #head = 0;
  #running = false;

  #openOps: WriteOp[] = [];
  #openHeld: Held[] = [];
  #inflight: Promise<void> | undefined;
  #inflightHeld: Held[] = [];

  /** Per-message bookkeeping of the handler now running. */
  #msgWrites = 0;
  #msgOpenWrites = 0;
  #msgEvents: [string, unknown][] | undefined;
  #msgViews: ViewChange[] | undefined;

  /** Published read views (name → key → value): snapshots of durable state, read without a message. */
  readonly #views = new Map<string, Map<string, unknown>>();
  #msgUnconfirmed = false;

  #passivationRequested = false;
  /** When a view read last refreshed this cell's recency (milliseconds). */
  touchedAt = 0;
  /** Cluster mode: the lease on the cell's shard its commits are made under (undefined alone). */
  readonly fence: Fence | undefined;
  /** Cluster mode: set once the shard left this node; the cell then takes no more messages. */
  evicted = false;
  /** The metrics of its kind. */
  readonly meter: KindMeter;

  constructor(key: string, id: string, kindName: string, create: ActorFactory<Protocol>, host: CellHost, fence?: Fence) {
    this.key = key;
    this.#id = id;
    this.#kindName = kindName;
    this.#create = create;
    this.#host = host;
    this.fence = fence;
    this.meter = kindMeter(kindName);
  }

  /** Messages waiting in the mailbox. */
  get mailboxDepth(): number {
    return this.#queue.length - this.#head;
  }

  get kindName(): string {
    return this.#kindName;
  }

  /**
   * Cluster mode: the cell's shard is no longer this node's. Messages not started yet are
   * refused with `failure` (they never ran, so the caller may send them to the new owner); the
   * one running finishes, and its commit is refused by the fence unless it landed in time.
   */
  evict(failure: unknown): void {
    this.evicted = true;
    this.#stale = true;
    for (let i = this.#head; i < this.#queue.length; i++) {
      const env = this.#queue[i];
      if (env !== undefined && !env.settled) env.reject(failure);
    }
    this.#queue = [];
    this.#head = 0;
    this.#dropViews();
  }

  /** Every entry of a view, for a node that replicates it. */
  viewEntries(name: string): ReadonlyMap<string, unknown> | undefined {
    return this.#views.get(name);
  }

  #dropViews(): void {
    if (this.#views.size === 0) return;
    this.#views.clear();
    this.#host.onView?.(this, null, null, undefined);
  }

  /** True when nothing is queued, running or waiting to become durable. */
  get idle(): boolean {
    return !this.#running && this.#inflight === undefined && this.#openOps.length === 0 && this.#head >= this.#queue.length;
  }

  get passivationRequested(): boolean {
    return this.#passivationRequested;
  }

  /** Asks for passivation as soon as the cell is idle. */
  requestPassivation(): void {
    this.#passivationRequested = true;
    this.#checkIdle();
  }

  /** Cancels a pending passivation request: the cell is in use again. */
  keep(): void {
    this.#passivationRequested = false;
  }

  /** Ends the activation. Only called on an idle cell. */
  stop(): void {
    const actor = this.#actor;
    this.#retire();
    if (actor) {
      try {
        actor.onStop();
      } catch (err) {
        log.error('actor-stop-failed', { key: this.key, err });
      }
    }
  }

  enqueue(env: Envelope): void {
    if (this.#queue.length - this.#head >= this.#host.mailboxLimit) {
      env.reject(new ApiError('overloaded', `The mailbox of ${this.#kindName} is full; nothing was changed.`));
      return;
    }
    this.#queue.push(env);
    if (!this.#running) void this.#run();
  }

  async #run(): Promise<void> {
    this.#running = true;
    try {
      while (this.#head < this.#queue.length) {
        const env = this.#queue[this.#head]!;
        this.#queue[this.#head++] = undefined;
        if (this.#head >= 1024 && this.#head * 2 >= this.#queue.length) {
          this.#queue = this.#queue.slice(this.#head);
          this.#head = 0;
        }
        if (env.settled) continue;
        env.started = true;
        if (this.#actor === undefined || this.#stale) {
          try {
            await this.#start();
          } catch (err) {
            log.warn('actor-start-failed', { key: this.key, err });
            env.reject(toApiError(err, 'storage-unavailable'));
            continue;
          }
        }
        // Earlier writes go out before this handler runs, so a handler that awaits cannot hold
        // back their replies; while that commit is in flight, later writes coalesce behind it.
        this.#startFlush();
        await this.#handle(env);
      }
    } finally {
      this.#running = false;
      // The queue is drained (skipped messages included): whatever was written goes out now.
      this.#startFlush();
      this.#checkIdle();
    }
  }

  /** Activates (or re-activates after a reset) once everything written before is durable. */
  async #start(): Promise<void> {
    await this.#settleWrites();
    this.#retire();
    const activation = this.#newActivation();
    activation.starting = true;
    const actor = this.#create(activation);
    try {
      await actor.onStart();
    } catch (err) {
      activation.alive = false;
      this.#dropViews();
      throw err;
    }
    activation.starting = false;
    this.#activation = activation;
    this.#actor = actor;
    this.#stale = false;
    this.#host.stats.activations++;
    this.meter.activations.n++;
    this.#host.onActivate?.(this);
  }

  /** An entry of a published view of this activation, or undefined. */
  view(name: string, key: string): unknown {
    return this.#views.get(name)?.get(key);
  }

  #applyView([name, key, value]: ViewChange): void {
    if (this.evicted) return;
    const onView = this.#host.onView;
    if (onView !== undefined) onView(this, name, key, value);
    if (key === null) {
      this.#views.delete(name);
      return;
    }
    let entries = this.#views.get(name);
    if (entries === undefined) this.#views.set(name, (entries = new Map()));
    if (value === undefined) entries.delete(key);
    else entries.set(key, value);
  }

  #retire(): void {
    this.#dropViews();
    if (this.#activation) this.#activation.alive = false;
    this.#activation = undefined;
    this.#actor = undefined;
  }

  async #handle(env: Envelope): Promise<void> {
    const activation = this.#activation!;
    this.#msgWrites = 0;
    this.#msgOpenWrites = 0;
    this.#msgEvents = undefined;
    this.#msgViews = undefined;
    this.#msgUnconfirmed = false;
    let result: unknown;
    let error: unknown;
    let failed = false;
    const started = this.meter.start();
    try {
      const handler = (this.#actor!.handlers as Record<string, ((payload: unknown) => unknown) | undefined>)[env.type];
      if (typeof handler !== 'function') throw new ApiError('internal-error', `${this.#kindName} has no handler for ${env.type}`);
      result = handler.call(this.#actor, env.payload);
      if (result instanceof Promise) result = await result;
    } catch (err) {
      failed = true;
      error = err;
    }
    if (started !== 0) this.meter.handler.observe((performance.now() - started) / 1000);
    // Read back what the handler published (narrowing cannot see writes made through the activation).
    const events = this.#msgEvents as [string, unknown][] | undefined;
    const views = this.#msgViews as ViewChange[] | undefined;
    this.#msgEvents = undefined;
    this.#msgViews = undefined;
    if (!activation.alive) {
      // A commit failed while this handler awaited: the state it worked on is gone.
      env.reject(new ApiError('storage-unavailable'));
      return;
    }
    if (failed) {
      if (this.#msgWrites > 0) {
        this.#openOps.length -= this.#msgOpenWrites;
        this.#stale = true;
      }
      // A refusal can depend on unconfirmed state as much as a reply can, so it waits too.
      this.#hold({ env, failed: true, outcome: error, events: undefined, views: undefined }, this.#msgUnconfirmed && this.#msgWrites === 0);
      return;
    }
    const unconfirmed = this.#msgUnconfirmed && this.#msgWrites === 0 && events === undefined;
    this.#hold({ env, failed: false, outcome: result, events, views }, unconfirmed);
  }

  #hold(held: Held, unconfirmed: boolean): void {
    if (unconfirmed) this.#deliver(held);
    else if (this.#openOps.length > 0) this.#openHeld.push(held);
    else if (this.#inflight !== undefined) this.#inflightHeld.push(held);
    else this.#deliver(held);
  }

  /** Releases a held reply: its view changes, then its events, then the answer. */
  #deliver(held: Held): void {
    if (held.failed) {
      held.env.reject(held.outcome);
      return;
    }
    if (held.views) for (const change of held.views) this.#applyView(change);
    if (held.events) {
      const bus = this.#host.bus;
      for (const [topic, event] of held.events) bus.publish(topic, event);
    }
    held.env.resolve(held.outcome);
  }

  #flush(): void {
    const ops = this.#openOps;
    this.#inflightHeld = this.#openHeld;
    this.#openOps = [];
    this.#openHeld = [];
    this.#msgOpenWrites = 0;
    this.#host.stats.batches++;
    this.#host.stats.ops += ops.length;
    this.#inflight = this.#host.store.commit(coalesce(ops), this.fence).then(
      () => {
        const done = this.#inflightHeld;
        this.#inflightHeld = [];
        this.#inflight = undefined;
        for (const held of done) this.#deliver(held);
        // Writes made while this batch was in flight go out at once as the next batch.
        if (this.#openOps.length > 0) this.#flush();
        else this.#checkIdle();
      },
      (err: unknown) => {
        const failure = toApiError(err, 'storage-unavailable');
        const lost = this.#inflightHeld.concat(this.#openHeld);
        this.#inflightHeld = [];
        this.#openHeld = [];
        this.#openOps = [];
        this.#msgOpenWrites = 0;
        this.#inflight = undefined;
        this.#retire();
        this.#host.stats.failedFlushes++;
        log.warn('actor-flush-failed', { key: this.key, lostReplies: lost.length, err });
        for (const held of lost) held.env.reject(failure);
        this.#checkIdle();
      },
    );
  }

  /** Starts a commit of the open batch unless one is already in flight (it then follows). */
  #startFlush(): void {
    if (this.#inflight === undefined && this.#openOps.length > 0) this.#flush();
  }

  /** Flushes everything buffered and waits until no commit is in flight. Never throws. */
  async #settleWrites(): Promise<void> {
    while (this.#inflight !== undefined || this.#openOps.length > 0) {
      if (this.#inflight === undefined) this.#flush();
      await this.#inflight;
    }
  }

  #checkIdle(): void {
    if (this.idle) this.#host.onIdle(this);
  }

  #newActivation(): Activation {
    const cell = this;
    const activation: Activation = {
      alive: true,
      starting: false,
      key: this.key,
      id: this.#id,
      store: this.#host.store,
      system: this.#host.system,
      write(op: WriteOp): void {
        cell.#assertWritable(activation);
        cell.#openOps.push(op);
        cell.#msgWrites++;
        cell.#msgOpenWrites++;
      },
      changeView(name: string, key: string | null, value: unknown, unconfirmed: boolean): void {
        if (!activation.alive) throw new ApiError('storage-unavailable', 'The actor was reset after a storage failure.');
        // While loading, state is what storage holds: durable, so it may be shown at once.
        if (activation.starting || unconfirmed) cell.#applyView([name, key, value]);
        else (cell.#msgViews ??= []).push([name, key, value]);
      },
      publish(topic: string, event: unknown): void {
        cell.#assertWritable(activation);
        (cell.#msgEvents ??= []).push([topic, event]);
      },
      allowUnconfirmed(): void {
        cell.#msgUnconfirmed = true;
      },
      async commitNow(ops: readonly WriteOp[]): Promise<void> {
        cell.#assertWritable(activation);
        await cell.#settleWrites();
        if (!activation.alive) throw new ApiError('storage-unavailable');
        await cell.#host.store.commit(ops, cell.fence);
        cell.#msgWrites += ops.length;
      },
    };
    return activation;
  }

  #assertWritable(activation: Activation): void {
    if (!activation.alive) throw new ApiError('storage-unavailable', 'The actor was reset after a storage failure; nothing was changed.');
    if (activation.starting) throw new Error(`${this.key}: onStart must not write or publish`);
  }
}
