import { Actor, type Handlers } from '../../engine/actor.js';
import { clock } from '../../engine/clock.js';
import type { NotifyJobDoc } from './job-doc.js';
import { notifyJobActorId } from './job-doc.js';
import { type NotificationCountDoc, type NotificationDoc, type NotificationEmailDoc, NOTIFY_COLLECTIONS as C, recipientActorId } from './notification-doc.js';
import { NotificationsKind, type NotificationSweepProtocol, NotifyJobKind } from './protocol.js';

/** Documents looked at per kind per sweep; the rest wait for the next one. */
const SWEEP_LIMIT = 10_000;

/**
 * Finds the work that no running actor is holding, after a start and every minute: jobs not
 * finished (a crash, a failed step), recipients with emails due (their actors were passivated
 * or the process restarted), and notifications and counts a year old. It reads durable
 * documents and tells the owning actors, which decide; it changes nothing itself.
 */
export class NotificationSweepActor extends Actor<NotificationSweepProtocol> {
  override async onStart(): Promise<void> {}

  readonly handlers: Handlers<NotificationSweepProtocol> = {
    sweep: async () => {
      this.allowUnconfirmed();
      const now = clock.now();
      const jobs = await this.store.find<NotifyJobDoc>(C.jobs, {}, { sort: [['createdAt', 1]], limit: SWEEP_LIMIT });
      for (const job of jobs) this.system.tell(NotifyJobKind, notifyJobActorId(job.tenantId, job.commentId), 'run', { chain: null });

      const due = await this.store.find<NotificationEmailDoc>(C.emails, { dueAt: { $gte: 0, $lte: now } }, { limit: SWEEP_LIMIT });
      const owing = new Set(due.map((item) => recipientActorId(item.tenantId, item.recipient)));
      for (const id of owing) this.system.tell(NotificationsKind, id, 'flushEmails', null);

      const expired = await this.store.find<NotificationDoc>(C.notifications, { expireAt: { $gte: 0, $lte: now } }, { limit: SWEEP_LIMIT });
      const counts = await this.store.find<NotificationCountDoc>(C.counts, { expireAt: { $gte: 0, $lte: now } }, { limit: SWEEP_LIMIT });
      const byRecipient = new Map<string, string[]>();
      for (const doc of expired) {
        const id = recipientActorId(doc.tenantId, doc.recipient);
        byRecipient.set(id, [...(byRecipient.get(id) ?? []), doc._id]);
      }
      // An expired count alone: `expire` removes it whatever ids it is given.
      for (const doc of counts) {
        const id = recipientActorId(doc.tenantId, doc.recipient);
        if (!byRecipient.has(id)) byRecipient.set(id, []);
      }
      for (const [id, ids] of byRecipient) this.system.tell(NotificationsKind, id, 'expire', { ids });
      return { jobs: jobs.length, emails: owing.size, expired: expired.length };
    },
  };
}
