import { Actor, type Handlers } from '../../engine/actor.js';
import type { Filter } from '../../storage/store.js';
import { type NotificationDoc, NOTIFY_COLLECTIONS as C } from './notification-doc.js';
import type { NotificationQuery, NotificationReadsProtocol } from './protocol.js';
import type { SubscriptionDoc } from './subscription-doc.js';

/**
 * A tenant's reads of notifications and subscriptions across recipients. It owns nothing and
 * writes nothing: each answer is one indexed query over durable documents (every acknowledged
 * change is durable, so the answers show every one), released at once.
 */
export class NotificationReadsActor extends Actor<NotificationReadsProtocol> {
  override async onStart(): Promise<void> {}

  #filter(query: NotificationQuery): Filter {
    const filter: Record<string, Filter[string]> = { tenantId: this.id };
    if (query.recipient !== undefined) filter['recipient'] = query.recipient;
    if (query.urlId !== undefined) filter['urlId'] = query.urlId;
    if (query.fromCommentId !== undefined) filter['fromCommentId'] = query.fromCommentId;
    if (query.viewed !== undefined) filter['viewed'] = query.viewed;
    if (query.type !== undefined) filter['type'] = query.type;
    return filter;
  }

  readonly handlers: Handlers<NotificationReadsProtocol> = {
    listNotifications: async ({ query, skip, limit }) => {
      this.allowUnconfirmed();
      return this.store.find<NotificationDoc>(C.notifications, this.#filter(query), { sort: [['createdAt', -1], ['_id', -1]], skip, limit });
    },
    countNotifications: async ({ query }) => {
      this.allowUnconfirmed();
      return this.store.count(C.notifications, this.#filter(query));
    },
    locateNotification: async ({ id }) => {
      this.allowUnconfirmed();
      const doc = await this.store.get<NotificationDoc>(C.notifications, id);
      return doc !== undefined && doc.tenantId === this.id ? doc.recipient : null;
    },
    listSubscriptions: async ({ recipient, skip, limit }) => {
      this.allowUnconfirmed();
      const filter: Filter = recipient === null ? { tenantId: this.id } : { tenantId: this.id, recipient };
      return this.store.find<SubscriptionDoc>(C.subscriptions, filter, { sort: [['createdAt', -1], ['_id', -1]], skip, limit });
    },
    getSubscription: async ({ id }) => {
      this.allowUnconfirmed();
      const doc = await this.store.get<SubscriptionDoc>(C.subscriptions, id);
      return doc !== undefined && doc.tenantId === this.id ? doc : null;
    },
  };
}
