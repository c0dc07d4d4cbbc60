/**
 * Readiness, as load balancers and orchestrators probe it (`GET /readyz`): whether this process
 * should be sent traffic now. Liveness (`/healthz`) says only that it runs and storage answers;
 * readiness adds that, in cluster mode, NATS is connected and every shard is leased by some
 * node, and it turns false as soon as the process starts draining (SIGTERM), while requests
 * under way still finish.
 */
import type { Store } from '../storage/store.js';

/** What a cluster node tells of itself (`ClusterNode.status`). */
export type ClusterProbe = () => { shardsOwned: number; shardsUnleased: number; natsConnected: boolean };

/** One probe's answer: ready or not, and each check by name. */
export interface ReadinessReport {
  readonly ready: boolean;
  readonly checks: Record<string, boolean | number | string>;
}

export class Readiness {
  readonly #store: Store;
  readonly #cluster: ClusterProbe | undefined;
  #draining = false;

  constructor(store: Store, cluster?: ClusterProbe) {
    this.#store = store;
    this.#cluster = cluster;
  }

  /** From now on not ready: the process is stopping. */
  drain(): void {
    this.#draining = true;
  }

  get draining(): boolean {
    return this.#draining;
  }

  async check(): Promise<ReadinessReport> {
    const checks: Record<string, boolean | number | string> = { draining: this.#draining, storage: this.#store.kind };
    let ready = !this.#draining;
    try {
      await this.#store.ping();
      checks['storageReachable'] = true;
    } catch {
      checks['storageReachable'] = false;
      ready = false;
    }
    if (this.#cluster !== undefined) {
      const status = this.#cluster();
      checks['natsConnected'] = status.natsConnected;
      checks['shardsOwned'] = status.shardsOwned;
      checks['shardsUnleased'] = status.shardsUnleased;
      if (!status.natsConnected || status.shardsUnleased > 0) ready = false;
    }
    return { ready, checks };
  }
}
