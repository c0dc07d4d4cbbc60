import { Actor, type Handlers } from '../../engine/actor.js';
import { clock, isoTime } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { newId } from '../../engine/ids.js';
import { DuplicateKeyError } from '../../storage/errors.js';
import type { WriteOp } from '../../storage/store.js';
import { ERASE_ROUND, NOTIFY_COLLECTIONS as C, recipientOf, splitRecipientActorId } from './notification-doc.js';
import type { SubscriptionsProtocol } from './protocol.js';
import type { SubscriptionDoc } from './subscription-doc.js';

/**
 * One recipient's page subscriptions, at most one per page: a second for the same page is
 * refused with `subscription-exists` (here, one at a time, and by a unique index in storage
 * behind it).
 */
export class SubscriptionsActor extends Actor<SubscriptionsProtocol> {
  #tenantId = '';
  #recipient = '';
  /** By urlId. */
  readonly #byPage = new Map<string, SubscriptionDoc>();

  override async onStart(): Promise<void> {
    ({ tenantId: this.#tenantId, recipient: this.#recipient } = splitRecipientActorId(this.id));
    for (const doc of await this.store.find<SubscriptionDoc>(C.subscriptions, { tenantId: this.#tenantId, recipient: this.#recipient })) this.#byPage.set(doc.urlId, doc);
  }

  readonly handlers: Handlers<SubscriptionsProtocol> = {
    create: async ({ urlId, url, pageTitle, notificationFrequency }) => {
      const exists = () => new ApiError('subscription-exists', `This user is already subscribed to ${JSON.stringify(urlId)}.`);
      if (this.#byPage.has(urlId)) throw exists();
      const now = clock.now();
      const { userId, anonUserId } = recipientOf(this.#recipient);
      const doc: SubscriptionDoc = {
        _id: newId(now),
        tenantId: this.#tenantId,
        recipient: this.#recipient,
        userId,
        anonUserId,
        urlId,
        url,
        pageTitle,
        notificationFrequency,
        createdAt: isoTime(now),
      };
      try {
        await this.commitNow([{ op: 'insert', collection: C.subscriptions, doc }]);
      } catch (err) {
        if (err instanceof DuplicateKeyError) throw exists();
        throw err;
      }
      this.#byPage.set(urlId, doc);
      return doc;
    },

    update: ({ id, notificationFrequency }) => {
      const current = this.#find(id);
      const next = { ...current, notificationFrequency };
      this.put(C.subscriptions, next);
      this.#byPage.set(next.urlId, next);
      return next;
    },

    remove: ({ id }) => {
      const current = this.#find(id);
      this.remove(C.subscriptions, id);
      this.#byPage.delete(current.urlId);
      return null;
    },

    erase: async () => {
      const round = [...this.#byPage.values()].slice(0, ERASE_ROUND);
      await this.commitNow(round.map((doc): WriteOp => ({ op: 'delete', collection: C.subscriptions, id: doc._id })));
      for (const doc of round) this.#byPage.delete(doc.urlId);
      return { more: this.#byPage.size > 0 };
    },
  };

  #find(id: string): SubscriptionDoc {
    for (const doc of this.#byPage.values()) if (doc._id === id) return doc;
    throw new ApiError('not-found', `No subscription ${id}.`);
  }
}
