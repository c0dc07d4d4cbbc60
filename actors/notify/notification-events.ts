/**
 * The live events of a recipient's notifications, published on the user's own topic
 * (`userTopic`, the `userIdWS` channel) once the change is durable: `notification` for a new
 * (or newly unread) notification, `notification-update` for a changed one or a changed unread
 * count. The count travels as `changes.count` (the `LiveEvent` schema's map of numbers).
 */
import { clock } from '../../engine/clock.js';
import { LIVE_EVENT_TYPES, type LiveEvent } from '../live/live-events.js';
import { publicNotification } from '../live/public-projection.js';
import { type NotificationDoc, notificationView } from './notification-doc.js';

/** A notification arrived (or became unread again). */
export function notificationEvent(doc: NotificationDoc): LiveEvent {
  return { type: LIVE_EVENT_TYPES.notification, timestamp: clock.now(), notification: publicNotification(notificationView(doc)) };
}

/** The unread count is now `count`; `doc` is the notification whose change caused it, if one did. */
export function countEvent(count: number, doc?: NotificationDoc): LiveEvent {
  const event: LiveEvent = { type: LIVE_EVENT_TYPES.notificationUpdate, timestamp: clock.now(), changes: { count } };
  return doc === undefined ? event : { ...event, notification: publicNotification(notificationView(doc)) };
}
