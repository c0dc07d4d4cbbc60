import type { LiveIds } from '../actors/live/live-ids.js';
import type { TokenStore } from '../actors/oauth/token-store.js';
import type { Aggregator } from '../aggregate/aggregator.js';
import type { ChargeBatcher } from './charge-batcher.js';
import type { AuditBatcher } from './audit-batcher.js';
import type { PublicLimits } from './rate-limit.js';
import type { ActorSystem } from '../engine/actor-system.js';
import type { Config } from '../engine/config.js';
import type { EventBus } from '../engine/event-bus.js';
import type { Store } from '../storage/store.js';
import type { EmailServices } from '../email/index.js';
import type { Readiness } from './readiness.js';
import type { Presence } from './live/presence.js';

/** What route handlers may use. Data an actor owns is reached through `system`, never `store`. */
export interface AppServices {
  readonly config: Config;
  readonly store: Store;
  readonly system: ActorSystem;
  readonly bus: EventBus;
  readonly tokens: TokenStore;
  /** Makes and checks the opaque ids widgets subscribe to live events with. */
  readonly liveIds: LiveIds;
  /** Gathers credit charges into one ledger message per tenant per turn. */
  readonly charges: ChargeBatcher;
  /** Per-client limits of the public routes. */
  readonly limits: PublicLimits;
  /** Runs aggregations in worker threads under their limits. */
  readonly aggregator: Aggregator;
  /** Template rendering, the links in emails, and the outbox's sender. */
  readonly email: EmailServices;
  /** Gathers the audit entries of reads into one audit-log message per tenant per batch. */
  readonly audits: AuditBatcher;
  /** Whether this process should take traffic (`GET /readyz`). */
  readonly readiness?: Readiness;
  /** Cluster mode: whether this node has been ready to serve every shard (see `ClusterNode.ready`). */
  readonly clusterReady?: () => boolean;
  /** Who is on each page's live channel, on every node. */
  readonly presence: Presence;
}
