/**
 * One node of a cluster: what `startServer` adds to a process when `NATS_URL` is set. It joins
 * NATS, claims the MongoDB database for the cluster, and plugs the router (asks and views), the
 * shard leases and the live relay into the actor system and the bus.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Kvm, type KV } from '@nats-io/kv';
import type { ActorSystem } from '../actor-system.js';
import type { EventBus } from '../event-bus.js';
import { log } from '../log.js';
import type { MongoStore } from '../../storage/mongo-store.js';
import type { WriterLease } from '../../storage/store.js';
import { LiveRelay } from './live-relay.js';
import { NatsLink } from './nats-link.js';
import { ClusterRouter } from './router.js';
import { ShardLeases } from './shard-leases.js';
import { ViewReplicas } from './view-replicas.js';

/** What a node needs to know. */
export interface ClusterOptions {
  readonly natsUrl: string;
  readonly clusterName: string;
  readonly nodeId: string | undefined;
  readonly shards: number;
  readonly leaseMs: number;
  /** Called if the database claim is taken away (the node was stalled past it): the node must stop. */
  readonly onLost: () => void;
}

/** A node once joined. */
export interface ClusterNode {
  readonly nodeId: string;
  readonly relay: LiveRelay;
  readonly router: ClusterRouter;
  /**
   * Whether every shard has had a live owner, and every shard placed here has been served here,
   * at least once since the node joined. It stays true afterwards: a node lost later makes its
   * shards wait for a lease time on every node alike, which no single node's health can fix.
   */
  readonly ready: boolean;
  /** Resolves true once `ready`, or false after `timeoutMs`. */
  whenReady(timeoutMs: number): Promise<boolean>;
  /** True for exactly one node of the cluster, ever, per `name` (e.g. who creates the demo tenant). */
  once(name: string): Promise<boolean>;
  /** Hands every shard over to the other nodes, its actors passivated first. */
  leave(): Promise<void>;
  /** Disconnects (after `leave`). */
  close(): Promise<void>;
  /** Shards served here now, and whether NATS is connected (for readiness and metrics). */
  status(): { shardsOwned: number; shardsUnleased: number; natsConnected: boolean };
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

function defaultNodeId(): string {
  return `${hostname().replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 32)}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

async function clusterId(kv: KV): Promise<string> {
  try {
    await kv.create('meta.cluster-id', randomBytes(12).toString('hex'));
  } catch {
    // Made by an earlier node.
  }
  const entry = await kv.get('meta.cluster-id');
  if (entry === null) throw new Error('the cluster id vanished from NATS');
  return entry.string();
}

/** Joins the cluster: NATS, the database claim, then the shards. */
export async function joinCluster(options: ClusterOptions, store: MongoStore, system: ActorSystem, bus: EventBus): Promise<ClusterNode> {
  if (!NAME.test(options.clusterName)) throw new Error(`CLUSTER_NAME must be 1 to 64 letters, digits, '-' or '_', got "${options.clusterName}"`);
  const nodeId = options.nodeId ?? defaultNodeId();
  if (!NAME.test(nodeId)) throw new Error(`NODE_ID must be 1 to 64 letters, digits, '-' or '_', got "${nodeId}"`);
  if (options.shards < 1 || options.shards > 65_536) throw new Error('CLUSTER_SHARDS must be between 1 and 65536');
  if (options.leaseMs < 300) throw new Error('CLUSTER_LEASE_MS must be at least 300');
  const link = await NatsLink.open(options.natsUrl, `${options.clusterName}/${nodeId}`);
  let writer: WriterLease | undefined;
  try {
    const kv = await new Kvm(link.nc).create(`${options.clusterName}-leases`, { history: 1 });
    writer = await store.claimWriter({ mode: 'cluster', clusterId: await clusterId(kv) }, options.onLost);
    const views = new ViewReplicas(link, options.clusterName, nodeId);
    const relay = new LiveRelay(link, bus, options.clusterName, nodeId);
    const leases = new ShardLeases(kv, link, nodeId, options.shards, options.leaseMs, {
      claimShard: (fence) => store.claimShard(fence),
      releaseShard: (fence) => store.releaseShard(fence),
      evict: (fence, failure) => {
        system.evictWhere((cell) => cell.fence !== undefined && cell.fence.shard === fence.shard && cell.fence.epoch <= fence.epoch, failure);
      },
      passivate: (shard, timeoutMs) => system.passivateWhere((cell) => cell.fence?.shard === shard, timeoutMs),
      ownerChanged: (shard) => views.dropShard(shard),
    });
    const router = new ClusterRouter(system, leases, link, views, options.clusterName);
    system.attachRouter(router);
    router.start();
    views.start((node, kindName, id, name, entry) => router.requestView(node, kindName, id, name, entry, 2000));
    await leases.start();
    log.info('cluster-joined', { nodeId, cluster: options.clusterName, shards: options.shards, leaseMs: options.leaseMs });
    const claimedWriter = writer;
    let ready = false;
    const isReady = (): boolean => {
      if (!ready && leases.ready()) {
        ready = true;
        log.info('cluster-ready', { nodeId, served: leases.servedCount });
      }
      return ready;
    };
    return {
      nodeId,
      relay,
      router,
      get ready() {
        return isReady();
      },
      async whenReady(timeoutMs) {
        if (!isReady()) await leases.whenReady(timeoutMs);
        return isReady();
      },
      async once(name) {
        try {
          await kv.create(`meta.once-${name}`, nodeId);
          return true;
        } catch {
          return false;
        }
      },
      async leave() {
        await leases.stop();
      },
      status: () => ({ shardsOwned: leases.servedCount, shardsUnleased: leases.unleasedCount(), natsConnected: link.connected }),
      async close() {
        relay.stop();
        await claimedWriter.release();
        await link.close();
      },
    };
  } catch (err) {
    await writer?.release();
    await link.close();
    throw err;
  }
}
