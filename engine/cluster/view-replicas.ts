/**
 * Read views replicated to the nodes that do not hold the actor.
 *
 * Some views are read on every request without a message (the tenant's admission and its
 * effective settings): on a node that does not hold the tenant, asking for them would add a
 * NATS round trip to every call. The node holding the actor publishes each change of such a
 * view on `<cluster>.view` at the moment it applies it locally, so under the same output-gate
 * rule (a gated view changes only once the writes before it are durable). Other nodes keep
 * what they hear, by key, and fill a missing entry by asking the owner for it once.
 *
 * A replica is only as good as the stream behind it, so it is dropped whenever it may have
 * missed a change: the actor's shard changed hands, NATS disconnected or dropped messages, or
 * it is older than REPLICA_TTL_MS. A dropped replica costs one ask, never a wrong answer for
 * longer than one NATS hop. The other views (a page's serialised answers, large and changed on
 * every write) are not replicated: nodes ask the owner, which answers from the same cache.
 */
import { LRUCache } from 'lru-cache';
import type { ActorCell } from '../actor-cell.js';
import { log } from '../log.js';
import { pack, REPLY, unpack } from './frames.js';
import type { NatsLink } from './nats-link.js';
import type { ShardRoute } from './shard-leases.js';

/** Views replicated across nodes, by actor kind. Every other view is read by asking. */
export const REPLICATED_VIEWS: Readonly<Record<string, ReadonlySet<string>>> = {
  tenant: new Set(['admission', 'settings']),
};

/** A replica older than this is fetched again before use. */
const REPLICA_TTL_MS = 30_000;
/** A view the owner did not have is asked for again at most this often. */
const REFETCH_MS = 100;
const MAX_REPLICAS = 50_000;

interface Replica {
  readonly shard: number;
  epoch: number;
  readonly views: Map<string, Map<string, unknown>>;
  fetchedAt: number;
}

/** A change as published: `[origin, shard, epoch, key, name, entry, value]`; name null drops all, entry null clears one view. */
type ChangeFrame = readonly [string, number, number, string, string | null, string | null, unknown];

/** Asks the owner of a shard for a view (the router's request). */
export type ViewFetch = (node: string, kindName: string, id: string, name: string, entry: string) => Promise<readonly [number, unknown] | readonly [number] | undefined>;

export class ViewReplicas {
  readonly #link: NatsLink;
  readonly #subject: string;
  readonly #nodeId: string;
  readonly #replicas = new LRUCache<string, Replica>({ max: MAX_REPLICAS });
  readonly #byShard = new Map<number, Set<string>>();
  readonly #asked = new Map<string, number>();
  #fetch: ViewFetch | undefined;

  constructor(link: NatsLink, prefix: string, nodeId: string) {
    this.#link = link;
    this.#subject = `${prefix}.view`;
    this.#nodeId = nodeId;
  }

  /** Starts hearing changes; `fetch` asks an owner for a whole view. */
  start(fetch: ViewFetch): void {
    this.#fetch = fetch;
    this.#link.nc.subscribe(this.#subject, { callback: (err, msg) => (err ? log.warn('cluster-view-failed', { err }) : this.#heard(unpack(msg.data) as ChangeFrame)) });
    this.#link.listen(() => this.dropAll());
  }

  /** An actor here changed a view: tell the other nodes, if it is replicated. */
  changed(cell: ActorCell, name: string | null, entry: string | null, value: unknown): void {
    const names = REPLICATED_VIEWS[cell.kindName];
    if (names === undefined || (name !== null && !names.has(name)) || cell.fence === undefined || !this.#link.connected) return;
    const frame: ChangeFrame = [this.#nodeId, cell.fence.shard, cell.fence.epoch, cell.key, name, entry, value];
    this.#link.nc.publish(this.#subject, pack(frame));
  }

  /** A replicated view entry of an actor held elsewhere, or undefined (and a fetch under way). */
  read(kindName: string, id: string, key: string, shard: number, name: string, entry: string, route: ShardRoute): unknown {
    if (REPLICATED_VIEWS[kindName]?.has(name) !== true) return undefined;
    const replica = this.#replicas.get(key);
    const view = replica?.views.get(name);
    if (replica !== undefined && view !== undefined && Date.now() - replica.fetchedAt < REPLICA_TTL_MS) {
      const value = view.get(entry);
      if (value !== undefined) return value;
    }
    if (route.kind === 'node') this.#refresh(route.node, kindName, id, key, shard, name, entry);
    return undefined;
  }

  /** The shard changed hands: what was heard from its previous owner is no longer followed. */
  dropShard(shard: number): void {
    const keys = this.#byShard.get(shard);
    if (keys === undefined) return;
    this.#byShard.delete(shard);
    for (const key of keys) this.#replicas.delete(key);
  }

  dropAll(): void {
    this.#replicas.clear();
    this.#byShard.clear();
    this.#asked.clear();
  }

  #replica(key: string, shard: number, epoch: number, create: boolean): Replica | undefined {
    let replica = this.#replicas.get(key);
    if (replica !== undefined && replica.epoch > epoch) return undefined;
    if (replica !== undefined && replica.epoch < epoch) replica.views.clear();
    if (replica === undefined) {
      if (!create) return undefined;
      replica = { shard, epoch, views: new Map(), fetchedAt: Date.now() };
      this.#replicas.set(key, replica);
      let keys = this.#byShard.get(shard);
      if (keys === undefined) this.#byShard.set(shard, (keys = new Set()));
      keys.add(key);
    }
    replica.epoch = epoch;
    return replica;
  }

  #heard([origin, shard, epoch, key, name, entry, value]: ChangeFrame): void {
    if (origin === this.#nodeId) return;
    const replica = this.#replica(key, shard, epoch, name !== null && entry !== null && value !== undefined);
    if (replica === undefined) return;
    if (name === null) replica.views.clear();
    else if (entry === null) replica.views.delete(name);
    else {
      let view = replica.views.get(name);
      if (value === undefined) view?.delete(entry);
      else {
        if (view === undefined) replica.views.set(name, (view = new Map()));
        view.set(entry, value);
      }
    }
  }

  #refresh(node: string, kindName: string, id: string, key: string, shard: number, name: string, entry: string): void {
    const asked = `${key}\n${name}\n${entry}`;
    const now = Date.now();
    if (now - (this.#asked.get(asked) ?? 0) < REFETCH_MS || this.#fetch === undefined || !this.#link.connected) return;
    this.#asked.set(asked, now);
    if (this.#asked.size > MAX_REPLICAS) this.#asked.clear();
    this.#fetch(node, kindName, id, name, entry).then(
      (reply) => {
        if (reply === undefined || reply[0] !== REPLY.ok) return;
        const { epoch, value } = reply[1] as { epoch: number; value: unknown };
        if (value === undefined) return;
        const replica = this.#replica(key, shard, epoch, true);
        if (replica === undefined) return;
        let view = replica.views.get(name);
        if (view === undefined) replica.views.set(name, (view = new Map()));
        view.set(entry, value);
        replica.fetchedAt = Date.now();
      },
      (err: unknown) => log.debug('cluster-view-fetch-failed', { key, name, err }),
    );
  }
}
