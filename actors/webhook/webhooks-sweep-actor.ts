import { Actor, type Handlers } from '../../engine/actor.js';
import { clock } from '../../engine/clock.js';
import type { Filter } from '../../storage/store.js';
import { PENDING_STATES, type PendingWebhookEventDoc, WEBHOOK_COLLECTIONS as C, WebhooksKind, type WebhooksSweepProtocol } from './protocol.js';

/** Events read per round of a sweep, and rounds per sweep. */
const ROUND = 200;
const ROUNDS = 50;

/**
 * Finds, through the due-time and age indexes, the tenants whose webhooks actors have work they
 * may not know of (after a start, a lost announcement, a shard that moved to this node), and
 * tells each. It owns nothing and writes nothing: expired events are removed by their tenant's
 * actor, which owns them.
 */
export class WebhooksSweepActor extends Actor<WebhooksSweepProtocol> {
  override async onStart(): Promise<void> {}

  readonly handlers: Handlers<WebhooksSweepProtocol> = {
    wake: async () => {
      this.allowUnconfirmed();
      const tenants = await this.#tenantsWith({ state: PENDING_STATES.pending, nextAttemptAt: { $lte: clock.now() } });
      for (const tenantId of tenants) this.system.tell(WebhooksKind, tenantId, 'pump', null);
      return { tenants: tenants.size };
    },

    expire: async ({ cutoff }) => {
      this.allowUnconfirmed();
      const tenants = await this.#tenantsWith({ createdAt: { $lt: cutoff } });
      // One tenant at a time: each removes a batch; what remains is found by the next sweep.
      for (const tenantId of tenants) await this.system.ask(WebhooksKind, tenantId, 'expire', { cutoff });
      return { tenants: tenants.size };
    },
  };

  /** Distinct tenants with an event matching `filter`: rounds that leave out the tenants found. */
  async #tenantsWith(filter: Filter): Promise<Set<string>> {
    const tenants = new Set<string>();
    for (let round = 0; round < ROUNDS; round++) {
      const docs = await this.store.find<PendingWebhookEventDoc>(C.pending, { ...filter, ...(tenants.size > 0 ? { tenantId: { $nin: [...tenants] } } : {}) }, { limit: ROUND });
      for (const doc of docs) tenants.add(doc.tenantId);
      if (docs.length < ROUND) break;
    }
    return tenants;
  }
}
