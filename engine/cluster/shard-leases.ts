/**
 * Shard leases in a NATS JetStream key-value bucket (`<cluster>-leases`).
 *
 * Key `s.<shard>` holds `{node, epoch}`: the node leasing the shard. A node claims a free shard
 * with `create`, renews its lease every third of `leaseMs` with an update checked against the
 * revision it last wrote, and takes over a lease nobody renewed for `leaseMs` (plus a margin)
 * with the same revision-checked update, so of several claimants exactly one wins. The
 * revision at which a lease was won is the shard's fencing epoch (`Fence`); storage refuses
 * commits from older epochs. Key `n.<node>` is each node's heartbeat, renewed on the same beat;
 * it tells who is alive, and rendezvous hashing over the live nodes tells where each shard
 * belongs. A node hands over a shard that belongs elsewhere only after its actors passivated.
 *
 * Time is measured on each node's monotonic clock. The holder stops serving a margin before
 * `renewal sent + leaseMs`; others consider the lease expired a margin after they saw the
 * renewal arrive, which is later. Expired leases are never trusted, merely refused.
 */
import type { KV, KvWatchEntry } from '@nats-io/kv';
import type { QueuedIterator } from '@nats-io/nats-core';
import type { Fence } from '../../storage/store.js';
import { log } from '../log.js';
import { countLeaseLoss, RENEWALS } from '../metrics/cluster-meters.js';
import type { NatsLink } from './nats-link.js';
import { placement } from './shards.js';
import { ShardMoved } from './shard-moved.js';

/** What the leases need from the rest of the node. */
export interface LeaseHost {
  /** Raises the shard's epoch in storage and applies what earlier owners left (storage). */
  claimShard(fence: Fence): Promise<void>;
  /** Tidies storage for a shard being handed over. */
  releaseShard(fence: Fence): Promise<void>;
  /** Drops the actors of the lease `fence` (or older) at once; their unstarted messages are refused with `failure`. */
  evict(fence: Fence, failure: unknown): void;
  /** Passivates the shard's actors; resolves with how many are still active after `timeoutMs`. */
  passivate(shard: number, timeoutMs: number): Promise<number>;
  /** The shard changed hands (anywhere in the cluster). */
  ownerChanged(shard: number): void;
}

/** Where an ask for a shard goes now. */
export type ShardRoute =
  | { readonly kind: 'here'; readonly fence: Fence }
  | { readonly kind: 'draining'; readonly fence: Fence; readonly since: number }
  | { readonly kind: 'node'; readonly node: string }
  | { readonly kind: 'none' };

type HeldState = 'claiming' | 'serving' | 'draining' | 'releasing' | 'lost';

interface Held {
  readonly shard: number;
  readonly epoch: number;
  revision: number;
  /** Monotonic ms after which this node must not serve the shard. */
  deadline: number;
  state: HeldState;
  since: number;
  renewing: Promise<void> | undefined;
  readonly fence: Fence;
  readonly route: ShardRoute;
}

interface Observed {
  owner: string | undefined;
  revision: number;
  /** Monotonic ms when this revision was seen. */
  seenAt: number;
}

const NONE: ShardRoute = { kind: 'none' };
const encoder = new TextEncoder();

/**
 * How long ago NATS stored an entry, by the wall clocks of NATS and this node (never negative).
 * Clocks of the nodes and NATS must agree within the lease margin.
 */
function ageOf(entry: KvWatchEntry): number {
  const created = entry.created?.getTime();
  return created === undefined || Number.isNaN(created) ? 0 : Math.max(0, Date.now() - created);
}

function isWrongRevision(err: unknown): boolean {
  return (err as { code?: unknown })?.code === 10071 || /wrong last sequence/i.test(String((err as Error)?.message));
}

export class ShardLeases {
  readonly nodeId: string;
  readonly shards: number;
  readonly #kv: KV;
  readonly #link: NatsLink;
  readonly #leaseMs: number;
  readonly #margin: number;
  readonly #host: LeaseHost;
  readonly #held: (Held | undefined)[];
  readonly #observed: Observed[];
  readonly #routes: ShardRoute[];
  readonly #nodes = new Map<string, number>();
  #waiters: (() => void)[] = [];
  #timer: NodeJS.Timeout | undefined;
  #watcher: QueuedIterator<KvWatchEntry> | undefined;
  #stopping = false;
  #ticking = false;

  constructor(kv: KV, link: NatsLink, nodeId: string, shards: number, leaseMs: number, host: LeaseHost) {
    this.#kv = kv;
    this.#link = link;
    this.nodeId = nodeId;
    this.shards = shards;
    this.#leaseMs = leaseMs;
    this.#margin = Math.max(200, Math.floor(leaseMs / 10));
    this.#host = host;
    this.#held = new Array<Held | undefined>(shards).fill(undefined);
    this.#observed = Array.from({ length: shards }, () => ({ owner: undefined, revision: 0, seenAt: 0 }));
    this.#routes = new Array<ShardRoute>(shards).fill(NONE);
  }

  /** Joins: heartbeat, watch, and a first round of claims. */
  async start(): Promise<void> {
    await this.#beat();
    await this.#watch();
    this.#link.listen((event) => {
      if (event === 'up') void this.#watch();
    });
    this.#timer = setInterval(() => void this.#tick(), Math.max(50, Math.floor(this.#leaseMs / 3)));
    this.#timer.unref();
    await this.#tick();
  }

  /** The nodes seen alive (this one included), by id. */
  liveNodes(): string[] {
    return this.#liveNodes(performance.now());
  }

  /** Where an ask for `shard` goes now. */
  route(shard: number): ShardRoute {
    const held = this.#held[shard];
    if (held !== undefined && (held.state === 'serving' || held.state === 'draining')) {
      if (performance.now() < held.deadline) return held.route;
      this.#lose(held, 'expired');
    }
    return this.#routes[shard]!;
  }

  /** Resolves at the next change of the lease table, or after `maxWaitMs`. */
  changed(maxWaitMs: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(1, maxWaitMs));
      this.#waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Shards no node is known to hold now (asks for them wait): 0 once the cluster is settled. */
  unleasedCount(): number {
    let n = 0;
    for (let shard = 0; shard < this.shards; shard++) if (this.route(shard).kind === 'none') n++;
    return n;
  }

  /**
   * True when every shard has a live owner and every shard placed on this node is served by it:
   * an ask for any key finds its actor without waiting for a lease.
   */
  ready(): boolean {
    const now = performance.now();
    const live = this.#liveNodes(now);
    for (let shard = 0; shard < this.shards; shard++) {
      if (this.#held[shard]?.state === 'serving') continue;
      if (placement(shard, live) === this.nodeId) return false;
      const owner = this.#observed[shard]!.owner;
      if (owner === undefined || owner === this.nodeId || !live.includes(owner)) return false;
    }
    return true;
  }

  /** Resolves true once `ready()`, or false after `timeoutMs`. */
  async whenReady(timeoutMs: number): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      if (this.ready()) return true;
      const left = deadline - performance.now();
      if (left <= 0) return false;
      await this.changed(Math.min(250, left));
    }
  }

  /** Shards this node serves now. */
  get servedCount(): number {
    let n = 0;
    for (const held of this.#held) if (held?.state === 'serving') n++;
    return n;
  }

  /** Hands every shard over (actors passivated first), leaves, and stops. */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#timer);
    await Promise.all(this.#held.map((held) => (held !== undefined && held.state !== 'lost' ? this.#release(held) : undefined)));
    await this.#kv.delete(`n.${this.nodeId}`).catch(() => undefined);
    this.#watcher?.stop();
  }

  #notify(): void {
    const waiters = this.#waiters;
    if (waiters.length === 0) return;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  async #watch(): Promise<void> {
    this.#watcher?.stop();
    const watcher = await this.#kv.watch({ key: '>' });
    this.#watcher = watcher;
    void (async () => {
      try {
        for await (const entry of watcher) this.#observe(entry);
      } catch (err) {
        if (!this.#stopping) log.warn('cluster-watch-ended', { err });
      }
    })();
  }

  #observe(entry: KvWatchEntry): void {
    const now = performance.now();
    if (entry.key.startsWith('n.')) {
      const node = entry.key.slice(2);
      // A heartbeat is as old as NATS says: one left by a node gone before this one started
      // (seen in the watch's first snapshot) must not count that node alive for a lease time.
      if (entry.operation === 'PUT') this.#nodes.set(node, now - ageOf(entry));
      else this.#nodes.delete(node);
      this.#notify();
      return;
    }
    if (!entry.key.startsWith('s.')) return;
    const shard = Number(entry.key.slice(2));
    if (!Number.isInteger(shard) || shard < 0 || shard >= this.shards) return;
    const observed = this.#observed[shard]!;
    if (entry.revision < observed.revision) return;
    let owner: string | undefined;
    if (entry.operation === 'PUT') {
      try {
        owner = (entry.json<{ node?: string }>().node ?? undefined) || undefined;
      } catch {
        owner = undefined;
      }
    }
    const moved = owner !== observed.owner;
    observed.owner = owner;
    observed.revision = entry.revision;
    // Likewise a lease last renewed before this node started is judged by its age.
    observed.seenAt = now - ageOf(entry);
    this.#routes[shard] = owner === undefined || owner === this.nodeId ? NONE : { kind: 'node', node: owner };
    const held = this.#held[shard];
    if (held !== undefined && (held.state === 'claiming' || held.state === 'serving' || held.state === 'draining') && entry.revision > held.revision && owner !== this.nodeId) {
      this.#lose(held, 'taken over');
    }
    if (moved) this.#host.ownerChanged(shard);
    this.#notify();
  }

  #liveNodes(now: number): string[] {
    const live: string[] = [];
    for (const [node, seenAt] of this.#nodes) {
      if (node === this.nodeId || now - seenAt <= this.#leaseMs + this.#margin) live.push(node);
    }
    if (!this.#stopping && !live.includes(this.nodeId)) live.push(this.nodeId);
    return live.sort();
  }

  async #beat(): Promise<void> {
    await this.#kv.put(`n.${this.nodeId}`, encoder.encode(JSON.stringify({ at: Date.now() })));
  }

  async #tick(): Promise<void> {
    if (this.#ticking || this.#stopping) return;
    this.#ticking = true;
    try {
      const now = performance.now();
      for (const held of this.#held) {
        if (held === undefined || held.state === 'lost' || held.state === 'releasing') continue;
        if (now >= held.deadline) this.#lose(held, 'expired');
        else this.#renew(held);
      }
      if (!this.#link.connected) return;
      await this.#beat().catch((err: unknown) => log.warn('cluster-heartbeat-failed', { err }));
      this.#rebalance(now);
    } finally {
      this.#ticking = false;
    }
  }

  #renew(held: Held): void {
    if (held.renewing !== undefined || !this.#link.connected) return;
    const sentAt = performance.now();
    held.renewing = this.#kv
      .update(`s.${held.shard}`, this.#value(held.epoch), held.revision)
      .then(
        (revision) => {
          if (held.state === 'lost') return;
          RENEWALS.n++;
          held.revision = revision;
          held.deadline = sentAt + this.#leaseMs - this.#margin;
        },
        (err: unknown) => {
          if (isWrongRevision(err)) this.#lose(held, 'renewal refused');
          else log.warn('cluster-renew-failed', { shard: held.shard, err });
        },
      )
      .finally(() => (held.renewing = undefined));
  }

  #value(epoch: number): Uint8Array {
    return encoder.encode(JSON.stringify({ node: this.nodeId, epoch }));
  }

  #rebalance(now: number): void {
    const live = this.#liveNodes(now);
    for (let shard = 0; shard < this.shards; shard++) {
      const target = placement(shard, live);
      const held = this.#held[shard];
      if (held !== undefined && held.state !== 'lost') {
        // Hand over only to a node seen alive, and not a shard just won (no ping-pong).
        if (held.state === 'serving' && target !== this.nodeId && now - held.since > this.#leaseMs / 3) void this.#release(held);
        continue;
      }
      if (target !== this.nodeId) continue;
      const observed = this.#observed[shard]!;
      if (observed.owner === undefined) void this.#claim(shard, null);
      // A lease in this node's name that it does not hold: lost here, or left by an earlier
      // process under the same NODE_ID (a restart). Taken back at once; the fence keeps out
      // whatever that process might still send.
      else if (observed.owner === this.nodeId) void this.#claim(shard, observed.revision);
      else if (now - observed.seenAt > this.#leaseMs + this.#margin) void this.#claim(shard, observed.revision);
    }
  }

  async #claim(shard: number, revision: number | null): Promise<void> {
    const key = `s.${shard}`;
    const sentAt = performance.now();
    let won: number;
    try {
      // Create also succeeds over a deleted key; an update only over the revision seen.
      won = revision === null ? await this.#kv.create(key, this.#value(0)) : await this.#kv.update(key, this.#value(0), revision);
    } catch (err) {
      if (!isWrongRevision(err)) log.warn('cluster-claim-failed', { shard, err });
      return;
    }
    const held: Held = {
      shard,
      epoch: won,
      revision: won,
      deadline: sentAt + this.#leaseMs - this.#margin,
      state: 'claiming',
      since: performance.now(),
      renewing: undefined,
      fence: undefined as unknown as Fence,
      route: NONE,
    };
    const fence: Fence = { shard, epoch: won, valid: () => held.state !== 'lost' && performance.now() < held.deadline };
    Object.assign(held, { fence, route: { kind: 'here', fence } });
    const previous = this.#held[shard];
    if (previous !== undefined && previous.state !== 'lost') this.#lose(previous, 'replaced');
    this.#held[shard] = held;
    try {
      await this.#host.claimShard(fence);
    } catch (err) {
      log.warn('cluster-claim-storage-failed', { shard, epoch: won, err });
      this.#lose(held, 'storage refused the claim');
      return;
    }
    if (held.state !== 'claiming') return;
    held.state = 'serving';
    held.since = performance.now();
    log.debug('shard-claimed', { shard, epoch: won });
    this.#notify();
  }

  async #release(held: Held): Promise<void> {
    if (held.state !== 'serving' && held.state !== 'claiming') return;
    held.state = 'draining';
    const since = performance.now();
    Object.assign(held, { route: { kind: 'draining', fence: held.fence, since } });
    this.#notify();
    const left = await this.#host.passivate(held.shard, Math.floor(this.#leaseMs / 3));
    if (left > 0) this.#host.evict(held.fence, new ShardMoved(held.shard));
    await this.#host.releaseShard(held.fence);
    held.state = 'releasing';
    await held.renewing;
    await this.#kv.delete(`s.${held.shard}`, { previousSeq: held.revision }).catch((err: unknown) => log.warn('cluster-release-failed', { shard: held.shard, err }));
    held.state = 'lost';
    if (this.#held[held.shard] === held) this.#held[held.shard] = undefined;
    log.debug('shard-released', { shard: held.shard, epoch: held.epoch, left });
    this.#notify();
  }

  #lose(held: Held, reason: string): void {
    if (held.state === 'lost') return;
    held.state = 'lost';
    countLeaseLoss(reason);
    log.warn('shard-lost', { shard: held.shard, epoch: held.epoch, reason });
    this.#host.evict(held.fence, new ShardMoved(held.shard));
    this.#notify();
  }
}
