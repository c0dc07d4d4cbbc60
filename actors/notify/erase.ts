/**
 * A deleted user's notification data (docs/notifications.md): what the user received (its
 * notifications, count, owed emails, opt-outs and subscriptions) goes with the user; what it
 * caused in other users' notifications follows its comments, removed or left without its name.
 * Each call is one bounded round through the actors that own the documents, so a deletion job
 * can step through any amount and resume after a crash.
 */
import type { ActorSystem } from '../../engine/actor-system.js';
import type { StoreReader } from '../../engine/actor.js';
import { ERASE_ROUND, type NotificationDoc, NOTIFY_COLLECTIONS as C, recipientActorId, recipientKey } from './notification-doc.js';
import { NotificationsKind, SubscriptionsKind } from './protocol.js';

/** Recipients asked at once within a round. */
const RECIPIENTS_AT_ONCE = 8;

/** Removes a round of what the user received; true while more is left. */
export async function eraseRecipientRound(system: ActorSystem, tenantId: string, userId: string): Promise<boolean> {
  const id = recipientActorId(tenantId, recipientKey({ userId, anonUserId: null }));
  const [notifications, subscriptions] = await Promise.all([system.ask(NotificationsKind, id, 'erase', null), system.ask(SubscriptionsKind, id, 'erase', null)]);
  return notifications.more || subscriptions.more;
}

/** Removes everything the user received, round after round. */
export async function eraseRecipient(system: ActorSystem, tenantId: string, userId: string): Promise<void> {
  while (await eraseRecipientRound(system, tenantId, userId));
}

/**
 * One round over the notifications the user caused: those about its comments are removed when
 * its comments were (`remove`), the others lose its name, id and avatar. Answers how many were
 * found (0: none is left; each one found no longer matches afterwards).
 */
export async function forgetSenderRound(system: ActorSystem, store: StoreReader, tenantId: string, userId: string, remove: boolean): Promise<number> {
  const docs = await store.find<NotificationDoc>(C.notifications, { tenantId, fromUserId: userId }, { limit: ERASE_ROUND });
  const byRecipient = new Map<string, string[]>();
  for (const doc of docs) byRecipient.set(doc.recipient, [...(byRecipient.get(doc.recipient) ?? []), doc._id]);
  const rounds = [...byRecipient];
  for (let i = 0; i < rounds.length; i += RECIPIENTS_AT_ONCE) {
    await Promise.all(rounds.slice(i, i + RECIPIENTS_AT_ONCE).map(([recipient, ids]) => system.ask(NotificationsKind, recipientActorId(tenantId, recipient), 'forgetSender', { userId, ids, remove })));
  }
  return docs.length;
}
