/**
 * Notifications, unread counts and page subscriptions (docs/notifications.md): the actors, and
 * the sweep that finds their unfinished work after a start and every minute.
 */
import type { ActorSystem } from '../../engine/actor-system.js';
import type { Config } from '../../engine/config.js';
import { log } from '../../engine/log.js';
import { NotifyJobActor } from './job-actor.js';
import { notifyJobActorId } from './job-doc.js';
import { MentionsActor } from './mentions.js';
import { NotificationsActor } from './notifications-actor.js';
import {
  MentionsKind,
  NotificationReadsKind,
  NotificationsKind,
  NotificationSweepKind,
  NotifyJobKind,
  SubscriptionsKind,
  VoteNotifyKind,
} from './protocol.js';
import { NotificationReadsActor } from './reads-actor.js';
import { SubscriptionsActor } from './subscriptions-actor.js';
import { NotificationSweepActor } from './sweep-actor.js';
import { VoteNotifyActor } from './vote-notify-actor.js';

/** How often the sweep looks for unfinished jobs, owed emails and expired notifications. */
const SWEEP_EVERY_MS = 60_000;

/** The running notification service. */
export interface NotifyService {
  /** Sweeps now and every minute from now on (call once the server serves). */
  start(): void;
  /** Stops the sweep and the actors' timers. */
  close(): void;
}

/** Registers the notification actors with the system. */
export function createNotify(system: ActorSystem, config: Pick<Config, 'notificationBatchMs' | 'notificationFanoutBatch'>): NotifyService {
  let closed = false;
  const isClosed = () => closed;
  system.register(NotificationsKind, (ctx) => new NotificationsActor(ctx, { batchMs: Math.max(1, config.notificationBatchMs), closed: isClosed }));
  system.register(SubscriptionsKind, (ctx) => new SubscriptionsActor(ctx));
  system.register(NotifyJobKind, (ctx) => new NotifyJobActor(ctx, { batchSize: Math.max(1, config.notificationFanoutBatch), closed: isClosed }));
  system.register(VoteNotifyKind, (ctx) => new VoteNotifyActor(ctx));
  system.register(MentionsKind, (ctx) => new MentionsActor(ctx));
  system.register(NotificationReadsKind, (ctx) => new NotificationReadsActor(ctx));
  system.register(NotificationSweepKind, (ctx) => new NotificationSweepActor(ctx));
  let timer: NodeJS.Timeout | undefined;
  const sweep = () => system.ask(NotificationSweepKind, '', 'sweep', null).catch((err: unknown) => log.warn('notification-sweep-failed', { err }));
  return {
    start() {
      void sweep();
      timer = setInterval(() => void sweep(), SWEEP_EVERY_MS);
      timer.unref();
    },
    close() {
      closed = true;
      clearInterval(timer);
    },
  };
}

/** Starts the notification job a page wrote with a new comment (it is durable once the comment is acknowledged). */
export function startNotifyJob(system: ActorSystem, tenantId: string, commentId: string): void {
  system.tell(NotifyJobKind, notifyJobActorId(tenantId, commentId), 'run', { chain: null, fresh: true });
}

/** Has the author of a comment hear of an up-vote (durable already) in the background. */
export function notifyUpvote(system: ActorSystem, tenantId: string, commentId: string, voteId: string, userId: string | null): void {
  system.tell(VoteNotifyKind, `${tenantId}:${commentId}`, 'upvoted', { voteId, userId });
}
