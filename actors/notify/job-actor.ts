import { Actor, type ActorContext, type Handlers } from '../../engine/actor.js';
import { clock, isoTime } from '../../engine/clock.js';
import { log } from '../../engine/log.js';
import type { Filter } from '../../storage/store.js';
import { COMMENTS, type CommentDoc, isVisible } from '../page/comment-doc.js';
import { type UserDoc, USERS } from '../user/protocol.js';
import { getMany } from './get-many.js';
import type { NotifyJobDoc } from './job-doc.js';
import { addressFor } from './notification-emails.js';
import {
  CONTEXT_CHARS,
  EMAIL_KINDS,
  type EmailKind,
  NOTIFICATION_TTL_MS,
  NOTIFICATION_TYPES,
  notificationId,
  type NotificationDoc,
  NOTIFY_COLLECTIONS as C,
  OBJECT_TYPES,
  optOutId,
  recipientActorId,
  recipientKey,
  recipientOf,
} from './notification-doc.js';
import { type Delivery, NotificationsKind, NotifyJobKind, type NotifyJobProtocol } from './protocol.js';
import { type SubscriptionDoc, subscriptionEmailKind } from './subscription-doc.js';
import { countFanoutStep } from '../../engine/metrics/work-meters.js';

/** What the job actors are told by the server. */
export interface JobOptions {
  /** Subscribers notified per step (`NOTIFICATION_FANOUT_BATCH`). */
  readonly batchSize: number;
  readonly closed: () => boolean;
}

/** After a failed step (storage away, a timeout), when it is tried again. */
const RETRY_MS = 5000;

/** The notification `comment` makes for one recipient. */
function notificationOf(comment: CommentDoc, recipient: string, type: number, relatedObjectId: string, nowMs: number): NotificationDoc {
  const { userId, anonUserId } = recipientOf(recipient);
  return {
    _id: notificationId(comment.tenantId, comment._id, type, recipient),
    tenantId: comment.tenantId,
    recipient,
    userId,
    anonUserId,
    urlId: comment.urlId,
    url: comment.url,
    pageTitle: comment.pageTitle,
    relatedObjectType: OBJECT_TYPES.comment,
    relatedObjectId,
    viewed: false,
    sent: false,
    createdAt: isoTime(nowMs),
    type,
    fromCommentId: comment._id,
    fromVoteId: null,
    fromUserName: comment.commenterName,
    fromUserId: comment.userId,
    fromUserAvatarSrc: comment.avatarSrc,
    optedOut: false,
    contextText: comment.comment.slice(0, CONTEXT_CHARS),
    locale: comment.locale,
    expireAt: nowMs + NOTIFICATION_TTL_MS,
  };
}

/**
 * Makes the notifications of one new comment, off the request path and in steps, each a
 * message of its own: first the direct ones (the parent's author for a reply, the mentioned
 * users), then, for a top-level comment, the page's subscribers a batch at a time in
 * subscription order, the position recorded after each batch. Every notification has an id
 * fixed by comment, type and recipient, and a step only sends those not yet stored, so a job
 * resumed after a crash (or a failed step tried again) never notifies anyone twice. The page
 * actor is not involved once the job is written: the job reads the durable comment.
 */
export class NotifyJobActor extends Actor<NotifyJobProtocol> {
  readonly #options: JobOptions;
  #job: NotifyJobDoc | null = null;
  #comment: CommentDoc | null | undefined;
  /** Recipients of the direct notifications (or the author), whom the subscriber batches skip. */
  #direct: Set<string> | undefined;
  /** The number of the step told last; older tells are stale. */
  #chain = 0;
  /** A step is told or a retry is set: kicks from outside are not needed. */
  #alive = false;
  /**
   * Whether the next step may find some of its notifications made already: a job resumed (after
   * a crash, or kicked by the sweep) or a step tried again after a failure. Such a step looks
   * each one up first, and has each recipient's actor check storage too (an `add` that timed out
   * here may still be under way there). Only a job's first run, kicked as its comment is made,
   * skips that. Each step starts once the previous step's position is durable, so a replay is
   * never more than one step.
   */
  #verify = true;
  /** Steps run in this activation. */
  #steps = 0;

  constructor(ctx: ActorContext, options: JobOptions) {
    super(ctx);
    this.#options = options;
  }

  override async onStart(): Promise<void> {
    const commentId = this.id.slice(this.id.indexOf(':') + 1);
    this.#job = (await this.store.get<NotifyJobDoc>(C.jobs, commentId)) ?? null;
  }

  readonly handlers: Handlers<NotifyJobProtocol> = {
    run: async ({ chain, fresh }) => {
      if (this.#job === null || (chain === null ? this.#alive : chain !== this.#chain)) return null;
      if (fresh === true && this.#steps === 0 && this.#job.stage === 'direct') this.#verify = false;
      this.#alive = true;
      this.#steps++;
      let more: boolean;
      try {
        // The previous step's position must be durable before this one notifies anyone.
        await this.commitNow([]);
        more = await this.#step(this.#job);
        countFanoutStep('done');
      } catch (err) {
        countFanoutStep('retried');
        log.warn('notification-job-retry', { key: this.key, err });
        this.#verify = true;
        this.#retryLater();
        return null;
      }
      this.#verify = false;
      if (!more) {
        this.#alive = false;
        return null;
      }
      this.#chain++;
      this.system.tell(NotifyJobKind, this.id, 'run', { chain: this.#chain });
      return null;
    },
  };

  #retryLater(): void {
    const { system, id } = this;
    const chain = this.#chain;
    const options = this.#options;
    setTimeout(() => {
      if (!options.closed()) system.tell(NotifyJobKind, id, 'run', { chain });
    }, RETRY_MS).unref();
  }

  /** One step; true when another follows. */
  async #step(job: NotifyJobDoc): Promise<boolean> {
    const comment = await this.#loadComment(job);
    if (comment === null) return this.#finish(job);
    if (job.stage === 'direct') {
      await this.#deliver(await this.#directDeliveries(comment));
      if (comment.parentId !== null) return this.#finish(job);
      this.#save({ ...job, stage: 'subscribers', cursor: null });
      return true;
    }
    const filter: Filter = job.cursor === null ? { tenantId: job.tenantId, urlId: job.urlId } : { tenantId: job.tenantId, urlId: job.urlId, _id: { $gt: job.cursor } };
    const subscriptions = await this.store.find<SubscriptionDoc>(C.subscriptions, filter, { sort: [['_id', 1]], limit: this.#options.batchSize });
    if (subscriptions.length === 0) return this.#finish(job);
    await this.#deliver(await this.#subscriberDeliveries(comment, job, subscriptions));
    if (subscriptions.length < this.#options.batchSize) return this.#finish(job);
    this.#save({ ...job, cursor: subscriptions.at(-1)!._id });
    return true;
  }

  #save(job: NotifyJobDoc): void {
    this.#job = job;
    this.put(C.jobs, job);
  }

  #finish(job: NotifyJobDoc): false {
    this.remove(C.jobs, job._id);
    this.#job = null;
    return false;
  }

  /** The comment, while it is still there and visible (a deleted or hidden one notifies no one). */
  async #loadComment(job: NotifyJobDoc): Promise<CommentDoc | null> {
    if (this.#comment === undefined) {
      const stored = await this.store.get<CommentDoc>(COMMENTS, job.commentId);
      this.#comment = stored !== undefined && stored.tenantId === job.tenantId && isVisible(stored) ? stored : null;
    }
    return this.#comment;
  }

  /** Users of this tenant among `ids`, by id. */
  async #users(ids: readonly string[]): Promise<Map<string, UserDoc>> {
    if (ids.length === 0) return new Map();
    const found = await getMany<UserDoc>(this.store, USERS, ids);
    return new Map([...found].filter(([, u]) => u.tenantId === this.#job!.tenantId));
  }

  /**
   * The parent's author of a reply (`repliedToMe`, emailed in the hourly digest) and the
   * mentioned users of this tenant (`mentioned`), never the comment's own author, each once.
   */
  async #directDeliveries(comment: CommentDoc): Promise<Delivery[]> {
    const now = clock.now();
    const author = comment.userId === null ? null : recipientKey({ userId: comment.userId, anonUserId: null });
    const direct = new Set<string>(author === null ? [] : [author]);
    const deliveries: Delivery[] = [];
    const add = (userId: string, type: number, related: string, email: EmailKind | null) => {
      const recipient = recipientKey({ userId, anonUserId: null });
      if (direct.has(recipient)) return;
      direct.add(recipient);
      deliveries.push({ doc: notificationOf(comment, recipient, type, related, now), email });
    };
    // Only known users (a record of this tenant) are notified directly. The reply digest is
    // owed whatever the parent's author's settings: the email, an hour later, is sent only if
    // the user then has an address and the opt-in.
    const parentUserId = this.#job!.parentUserId ?? null;
    const mentions = comment.mentions ?? [];
    const users = await this.#users([...(parentUserId === null ? [] : [parentUserId]), ...mentions.map((m) => m.id)]);
    if (comment.parentId !== null && parentUserId !== null && users.has(parentUserId)) add(parentUserId, NOTIFICATION_TYPES.repliedToMe, comment.parentId, EMAIL_KINDS.replyDigest);
    for (const mention of mentions) {
      const user = users.get(mention.id);
      if (user !== undefined) add(user._id, NOTIFICATION_TYPES.mentioned, comment._id, addressFor(user, EMAIL_KINDS.mention) === null ? null : EMAIL_KINDS.mention);
    }
    this.#direct = direct;
    return deliveries;
  }

  /** `subscriptionReplyRoot` for each subscriber of the batch, but the author, those notified directly, and later subscribers. */
  async #subscriberDeliveries(comment: CommentDoc, job: NotifyJobDoc, subscriptions: readonly SubscriptionDoc[]): Promise<Delivery[]> {
    if (this.#direct === undefined) await this.#directDeliveries(comment);
    const now = clock.now();
    const wanted = subscriptions.filter((s) => !this.#direct!.has(s.recipient) && Date.parse(s.createdAt) <= job.createdAt);
    const users = await this.#users(wanted.flatMap((s) => (s.userId === null ? [] : [s.userId])));
    return wanted.map((s) => {
      const kind = subscriptionEmailKind(s.notificationFrequency);
      const email = kind !== null && addressFor(s.userId === null ? null : (users.get(s.userId) ?? null), kind) !== null ? kind : null;
      return { doc: notificationOf(comment, s.recipient, NOTIFICATION_TYPES.subscriptionReplyRoot, comment._id, now), email };
    });
  }

  /**
   * Sends each recipient its notifications that are not stored yet (looked up when verifying)
   * and that it has not opted out of (only notifications about an older object, a reply's
   * parent, can be opted out of); resolves once every one is durable, or throws and the step is
   * tried again.
   */
  async #deliver(deliveries: readonly Delivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    const { tenantId, commentId } = this.#job!;
    const verify = this.#verify;
    const [done, opted] = await Promise.all([
      verify ? getMany(this.store, C.notifications, deliveries.map((d) => d.doc._id)) : new Map(),
      getMany(this.store, C.optOuts, deliveries.flatMap((d) => (d.doc.relatedObjectId === commentId ? [] : [optOutId(tenantId, d.doc.recipient, d.doc.relatedObjectId)]))),
    ]);
    const byRecipient = new Map<string, Delivery[]>();
    for (const delivery of deliveries) {
      const { doc } = delivery;
      if (done.has(doc._id) || opted.has(optOutId(tenantId, doc.recipient, doc.relatedObjectId))) continue;
      const list = byRecipient.get(doc.recipient);
      if (list === undefined) byRecipient.set(doc.recipient, [delivery]);
      else list.push(delivery);
    }
    const asks = [...byRecipient].map(([recipient, list]) => this.system.ask(NotificationsKind, recipientActorId(tenantId, recipient), 'add', { deliveries: list, check: verify }));
    const results = await Promise.allSettled(asks);
    const failed = results.find((r) => r.status === 'rejected');
    if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
  }
}
