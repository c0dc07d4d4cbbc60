import type { Doc, Filter, FindOptions, ScanOptions, WriteOp } from '../storage/store.js';
import type { ActorSystem } from './actor-system.js';

/** An actor's messages: for each message type, what it takes and what it answers. */
export type Protocol = Record<string, { in: unknown; out: unknown }>;

/** One handler per message type of the protocol. */
export type Handlers<P extends Protocol> = {
  [K in keyof P]: (payload: P[K]['in']) => P[K]['out'] | Promise<P[K]['out']>;
};

/** The read side of storage, as an actor sees it while loading. */
export interface StoreReader {
  get<T extends Doc = Doc>(collection: string, id: string): Promise<T | undefined>;
  find<T extends Doc = Doc>(collection: string, filter: Filter, options?: FindOptions): Promise<T[]>;
  count(collection: string, filter: Filter): Promise<number>;
  /** Streams matching documents in batches (see `Store.scan`): for loading large states without one long read. */
  scan<T extends Doc = Doc>(collection: string, filter: Filter, options?: ScanOptions): AsyncIterable<T[]>;
}

/** What the runtime gives one activation of an actor. Handed to the constructor. */
export interface ActorContext {
  readonly key: string;
  /** The key without its kind prefix: for `page:t1:/a`, `t1:/a`. */
  readonly id: string;
  readonly store: StoreReader;
  readonly system: ActorSystem;
  /** Buffers a write into the actor's next storage batch. */
  write(op: WriteOp): void;
  /** Queues a live event; it is published only once the message's writes are durable. */
  publish(topic: string, event: unknown): void;
  /**
   * Changes a read view under the same rule as events (applied once everything before it is
   * durable): sets `key` to `value`, deletes it when `value` is undefined, clears the whole view
   * when `key` is null.
   */
  changeView(name: string, key: string | null, value: unknown, unconfirmed: boolean): void;
  /** Releases this message's reply without waiting for earlier writes (only if it wrote nothing). */
  allowUnconfirmed(): void;
  /** Makes everything buffered so far durable, then `ops` alone; throws DuplicateKeyError cleanly. */
  commitNow(ops: readonly WriteOp[]): Promise<void>;
}

/**
 * Base class of every actor. Subclasses load their state in `onStart` and answer messages
 * through `handlers`. Messages arrive one at a time; a handler may await, and no other
 * message of this actor runs until it finishes. State changes apply to memory at once, and
 * the runtime holds replies and events until the writes behind them are durable.
 *
 * A handler should validate before it mutates: if it throws after buffering writes, those
 * writes are dropped and the actor is reloaded from storage before its next message.
 */
export abstract class Actor<P extends Protocol> {
  readonly #ctx: ActorContext;

  constructor(ctx: ActorContext) {
    this.#ctx = ctx;
  }

  /** Loads the actor's state. Runs once per activation; if it throws, the next message retries it. */
  abstract onStart(): Promise<void>;

  /** The message handlers, one per message type. */
  abstract readonly handlers: Handlers<P>;

  /** Called when the actor is passivated (idle, all writes durable). */
  onStop(): void {}

  /** About how many bytes of heap the actor's state holds (for the system's memory bound); small by default. */
  memoryBytes(): number {
    return 1024;
  }

  protected get key(): string {
    return this.#ctx.key;
  }

  protected get id(): string {
    return this.#ctx.id;
  }

  protected get store(): StoreReader {
    return this.#ctx.store;
  }

  protected get system(): ActorSystem {
    return this.#ctx.system;
  }

  /** Queues any write (the methods below are shorthands for one kind each). */
  protected write(op: WriteOp): void {
    this.#ctx.write(op);
  }

  protected put(collection: string, doc: Doc): void {
    this.#ctx.write({ op: 'put', collection, doc });
  }

  protected insert(collection: string, doc: Doc): void {
    this.#ctx.write({ op: 'insert', collection, doc });
  }

  protected patch(collection: string, id: string, set?: Record<string, unknown>, unset?: string[]): void {
    this.#ctx.write(unset === undefined ? { op: 'patch', collection, id, set: set ?? {} } : { op: 'patch', collection, id, set: set ?? {}, unset });
  }

  protected remove(collection: string, id: string): void {
    this.#ctx.write({ op: 'delete', collection, id });
  }

  protected publish(topic: string, event: unknown): void {
    this.#ctx.publish(topic, event);
  }

  /**
   * Publishes `value` (immutable: never change it afterwards) as entry `key` of the view `name`,
   * readable by anyone in the process with `system.peek` without sending a message. Like an
   * event, it becomes visible only once every write made before it is durable, so a view never
   * shows what could still be lost. Views vanish when the actor is passivated or reset: readers
   * then fall back to asking.
   */
  protected setView(name: string, value: unknown, key = ''): void {
    this.#ctx.changeView(name, key, value, false);
  }

  /**
   * Like `setView`, but visible at once, before earlier writes are durable: for views whose
   * readers may act on unconfirmed state, as a reply may after `allowUnconfirmed`.
   */
  protected setViewNow(name: string, value: unknown, key = ''): void {
    this.#ctx.changeView(name, key, value, true);
  }

  /** Removes entry `key` of the view `name` (in order with other changes). */
  protected deleteView(name: string, key = ''): void {
    this.#ctx.changeView(name, key, undefined, false);
  }

  /** Removes every entry of the view `name` (in order with other changes). */
  protected clearView(name: string): void {
    this.#ctx.changeView(name, null, undefined, false);
  }

  protected allowUnconfirmed(): void {
    this.#ctx.allowUnconfirmed();
  }

  protected commitNow(ops: readonly WriteOp[]): Promise<void> {
    return this.#ctx.commitNow(ops);
  }
}

/**
 * A kind of actor as callers know it: its key prefix and its protocol. Declared apart from the
 * implementation (bound by `ActorSystem.register`), so one actor can message another without
 * importing its code, and an implementation can later live in another process.
 */
export interface ActorKind<P extends Protocol> {
  readonly name: string;
  /** Phantom field carrying the protocol type; never set. */
  readonly protocol?: P;
}

/** Makes a new activation of an actor of some kind. */
export type ActorFactory<P extends Protocol> = (ctx: ActorContext) => Actor<P>;

/** Declares an actor kind; `name` is the key prefix (`page` for `page:<tenant>:<urlId>`). */
export function defineKind<P extends Protocol>(name: string): ActorKind<P> {
  if (name.includes(':')) throw new Error(`actor kind name must not contain ':' (${name})`);
  return { name };
}
