import { Actor, type Handlers } from '../../engine/actor.js';
import { type PendingEventsProtocol, type PendingWebhookEventDoc, WEBHOOK_COLLECTIONS as C } from './protocol.js';
import { pendingFilter } from './webhook-model.js';

/**
 * A tenant's pending events as storage holds them: each answer one indexed query over durable
 * documents, released at once. It owns nothing and writes nothing; the webhooks actor, which
 * owns the events, goes on delivering while a list or count runs.
 */
export class PendingEventsActor extends Actor<PendingEventsProtocol> {
  override async onStart(): Promise<void> {}

  readonly handlers: Handlers<PendingEventsProtocol> = {
    list: ({ filter, skip, limit }) => {
      this.allowUnconfirmed();
      return this.store.find<PendingWebhookEventDoc>(C.pending, pendingFilter(this.id, filter), { sort: [['createdAt', -1], ['_id', -1]], skip, limit });
    },
    count: ({ filter }) => {
      this.allowUnconfirmed();
      return this.store.count(C.pending, pendingFilter(this.id, filter));
    },
  };
}
