/**
 * Page subscriptions: one per recipient per page, owned by the recipient's subscriptions actor
 * (`subscriptions:<tenantId>:<recipient>`). A new top-level comment on the page notifies every
 * subscriber but its author; the fan-out reads subscriptions from storage by page.
 */
import type { Doc } from '../../storage/store.js';
import { EMAIL_KINDS, type EmailKind } from './notification-doc.js';

/** A subscription as stored (`APIUserSubscription` plus owner fields). */
export interface SubscriptionDoc extends Doc {
  tenantId: string;
  /** `recipientKey` of the subscriber. */
  recipient: string;
  userId: string | null;
  anonUserId: string | null;
  urlId: string;
  url: string | null;
  pageTitle: string | null;
  /** How its emails are sent (see `SUBSCRIPTION_FREQUENCIES`); null: at once. */
  notificationFrequency: number | null;
  createdAt: string;
}

/**
 * `notificationFrequency` values (the API types it as a number and names no values; the
 * FastComments documentation says subscription emails go every minute, hourly or daily): this
 * server's reading, documented in docs/notifications.md.
 */
export const SUBSCRIPTION_FREQUENCIES = { never: -1, immediately: 0, hourly: 1, daily: 2 } as const;

/** The email kind of a subscription's notifications, or null when it sends none. */
export function subscriptionEmailKind(frequency: number | null): EmailKind | null {
  switch (frequency) {
    case SUBSCRIPTION_FREQUENCIES.never:
      return null;
    case SUBSCRIPTION_FREQUENCIES.hourly:
      return EMAIL_KINDS.subscriptionHourly;
    case SUBSCRIPTION_FREQUENCIES.daily:
      return EMAIL_KINDS.subscriptionDaily;
    default:
      return EMAIL_KINDS.subscription;
  }
}

/** The API shape (`APIUserSubscription`): optional fields left out while unset (they are not nullable). */
export function subscriptionView(doc: SubscriptionDoc): Record<string, unknown> {
  const view: Record<string, unknown> = { id: doc._id };
  if (doc.userId !== null) view['userId'] = doc.userId;
  if (doc.anonUserId !== null) view['anonUserId'] = doc.anonUserId;
  view['urlId'] = doc.urlId;
  if (doc.url !== null) view['url'] = doc.url;
  if (doc.pageTitle !== null) view['pageTitle'] = doc.pageTitle;
  if (doc.notificationFrequency !== null) view['notificationFrequency'] = doc.notificationFrequency;
  view['createdAt'] = doc.createdAt;
  return view;
}
