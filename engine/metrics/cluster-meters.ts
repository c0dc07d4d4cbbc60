/**
 * Cluster families: owned shards and NATS connection state (read at scrape from the node),
 * lease renewals and losses, forwarded asks and their latency.
 */
import { CountFamily, TimingFamily, WORK_BUCKETS } from './families.js';
import { addSource, PREFIX, register } from './registry.js';

const shards = register(new CountFamily('gauge', `${PREFIX}cluster_shards_owned`, 'Shards this node serves now.'));
const nats = register(new CountFamily('gauge', `${PREFIX}cluster_nats_connected`, '1 while the node is connected to NATS, else 0.'));
const renewals = register(new CountFamily('counter', `${PREFIX}cluster_lease_renewals_total`, 'Shard lease renewals that succeeded.'));
const losses = register(new CountFamily('counter', `${PREFIX}cluster_lease_losses_total`, 'Shard leases lost (renewal refused, expired, replaced), by reason.', ['reason'], 20));
const forwarded = register(new CountFamily('counter', `${PREFIX}cluster_forwarded_asks_total`, 'Asks sent to the node owning the shard, by outcome (ok; error: the actor refused; moved: the shard had moved, sent again; unreachable).', ['outcome']));
const forwardSeconds = register(new TimingFamily(`${PREFIX}cluster_forwarded_ask_duration_seconds`, 'Time a forwarded ask took, request to reply.', WORK_BUCKETS));

/** Lease renewals that succeeded. */
export const RENEWALS = renewals.child();
const FORWARD = { ok: forwarded.child('ok'), error: forwarded.child('error'), moved: forwarded.child('moved'), unreachable: forwarded.child('unreachable') };
const FORWARD_SECONDS = forwardSeconds.child();

/** Counts a lease lost, by reason. */
export function countLeaseLoss(reason: string): void {
  losses.child(reason).n++;
}

/** Counts a forwarded ask and its time. */
export function countForwarded(outcome: 'ok' | 'error' | 'moved' | 'unreachable', seconds: number): void {
  FORWARD[outcome].n++;
  FORWARD_SECONDS.observe(seconds);
}

/** What a cluster node tells at scrape. */
export interface ClusterStatus {
  readonly shardsOwned: number;
  readonly natsConnected: boolean;
}

const nodes = new Set<() => ClusterStatus>();
addSource(() => {
  // Outside cluster mode the gauges are left out, so that no alert on them fires there.
  if (nodes.size === 0) return;
  const owned = shards.child();
  const connected = nats.child();
  owned.n = 0;
  connected.n = 1;
  for (const status of nodes) {
    const s = status();
    owned.n += s.shardsOwned;
    if (!s.natsConnected) connected.n = 0;
  }
});

/** Publishes a node's status at every scrape; returns its removal. */
export function watchCluster(status: () => ClusterStatus): () => void {
  nodes.add(status);
  return () => nodes.delete(status);
}
