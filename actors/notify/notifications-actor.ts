import { Actor, type ActorContext, type Handlers } from '../../engine/actor.js';
import { clock, isoTime } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { log } from '../../engine/log.js';
import type { WriteOp } from '../../storage/store.js';
import { enqueueEmail } from '../../email/index.js';
import { pageLocator } from '../page/locator.js';
import { PageKind, pageActorId } from '../page/protocol.js';
import { userTopic } from '../live/live-events.js';
import { type UserDoc, UserKind, userActorId } from '../user/protocol.js';
import { addressFor, emailDelay, emailFor, isDigest } from './notification-emails.js';
import { countEvent, notificationEvent } from './notification-events.js';
import {
  countId,
  EMAIL_KINDS,
  type EmailKind,
  emailLine,
  ERASE_ROUND,
  MAX_FROM,
  NOTIFICATION_TTL_MS,
  NOTIFICATION_TYPES,
  notificationId,
  type NotificationCountDoc,
  type NotificationDoc,
  type NotificationEmailDoc,
  NOTIFY_COLLECTIONS as C,
  OBJECT_TYPES,
  optOutId,
  recipientOf,
  splitRecipientActorId,
} from './notification-doc.js';
import { NotificationsKind, type NotificationsProtocol, type VoteMerge } from './protocol.js';

/** What the notifications actors share with the server. */
export interface NotifyOptions {
  /** The batch window of digests (`NOTIFICATION_BATCH_MS`). */
  readonly batchMs: number;
  /** Set once the server stops: timers then tell no one. */
  readonly closed: () => boolean;
}

/** Ids written in one activation before they are all made durable and forgotten. */
const MAX_WRITTEN = 10_000;
/** Recent documents kept in memory (for changes that follow soon, as votes do). */
const MAX_DOCS = 256;
/** Emails worked per flush; more wait for the next one. */
const FLUSH_LIMIT = 5000;
/** After a failed email (outbox full, storage away), when it is tried again. */
const RETRY_MS = 60_000;

/**
 * One recipient's notifications: stores them (each id once, however often a job replays),
 * keeps the unread count, owes and sends their emails, and pushes every change live to the
 * user's own channel once it is durable.
 *
 * The count is the number of unread notifications since it was last cleared: a new unread
 * notification adds one, marking one viewed takes one off (never below zero), marking one
 * unread again adds one, and `DELETE` clears it (the notifications keep their `viewed`). It
 * exists only while above zero, so never without unread notifications.
 */
export class NotificationsActor extends Actor<NotificationsProtocol> {
  readonly #options: NotifyOptions;
  readonly #tenantId: string;
  readonly #recipient: string;
  readonly #userId: string | null;
  #count: NotificationCountDoc | null = null;
  /** Ids written this activation, while some may not be durable yet. */
  readonly #written = new Set<string>();
  readonly #docs = new Map<string, NotificationDoc>();
  /** When each digest kind's open window closes (loaded on first need). */
  #digestDue: Map<EmailKind, number> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Infinity;
  /** Set once the recipient's user was erased in this activation. */
  #erased = false;

  constructor(ctx: ActorContext, options: NotifyOptions) {
    super(ctx);
    this.#options = options;
    const { tenantId, recipient } = splitRecipientActorId(ctx.id);
    this.#tenantId = tenantId;
    this.#recipient = recipient;
    this.#userId = recipientOf(recipient).userId;
  }

  override async onStart(): Promise<void> {
    this.#count = (await this.store.get<NotificationCountDoc>(C.counts, countId(this.#tenantId, this.#recipient))) ?? null;
  }

  readonly handlers: Handlers<NotificationsProtocol> = {
    add: async ({ deliveries, check }) => {
      let added = 0;
      if (await this.#gone()) return { added };
      for (const { doc, email } of deliveries) {
        if (doc.tenantId !== this.#tenantId || doc.recipient !== this.#recipient) throw new ApiError('internal-error', 'notification sent to the wrong recipient');
        if (this.#written.has(doc._id)) continue;
        if (check && (await this.store.get(C.notifications, doc._id)) !== undefined) continue;
        await this.#store(doc);
        if (!doc.viewed) this.#changeCount(1);
        if (email !== null) await this.#owe(doc, email);
        this.#announce(notificationEvent(doc));
        added++;
      }
      return { added };
    },

    mergeVote: async (merge) => ((await this.#gone()) ? null : this.#mergeVote(merge)),

    getCount: () => this.#count,

    clearCount: () => {
      if (this.#count === null) return null;
      this.remove(C.counts, this.#count._id);
      this.#count = null;
      this.#announce(countEvent(0));
      return null;
    },

    patch: async ({ id, viewed, optedOut }) => {
      const doc = await this.#doc(id);
      if (doc === undefined) throw new ApiError('not-found', `No notification ${id}.`);
      let next = doc;
      if (viewed !== undefined && viewed !== doc.viewed) {
        next = { ...next, viewed };
        this.#changeCount(viewed ? -1 : 1);
      }
      if (optedOut !== undefined && optedOut !== doc.optedOut) {
        next = { ...next, optedOut };
        const opt = optOutId(this.#tenantId, this.#recipient, doc.relatedObjectId);
        if (optedOut) this.put(C.optOuts, { _id: opt, tenantId: this.#tenantId, recipient: this.#recipient, createdAt: isoTime(clock.now()) });
        else this.remove(C.optOuts, opt);
      }
      if (next === doc) return doc;
      await this.#store(next);
      this.#announce(countEvent(this.#count?.count ?? 0, next));
      return next;
    },

    flushEmails: async () => {
      this.#timerAt = Infinity;
      await this.#flushEmails();
      return null;
    },

    expire: async ({ ids }) => {
      const now = clock.now();
      for (const id of ids) {
        const doc = await this.#doc(id);
        if (doc === undefined || doc.expireAt > now) continue;
        this.remove(C.notifications, id);
        this.remove(C.emails, id);
        this.#docs.delete(id);
        if (!doc.viewed) this.#changeCount(-1);
      }
      if (this.#count !== null && this.#count.expireAt <= now) {
        this.remove(C.counts, this.#count._id);
        this.#count = null;
      }
      return null;
    },

    erase: async () => {
      this.#erased = true;
      await this.commitNow([]);
      const filter = { tenantId: this.#tenantId, recipient: this.#recipient };
      const ops: WriteOp[] = [];
      let more = false;
      for (const collection of [C.notifications, C.emails, C.optOuts]) {
        const docs = await this.store.find(collection, filter, { limit: ERASE_ROUND });
        more ||= docs.length === ERASE_ROUND;
        for (const doc of docs) ops.push({ op: 'delete', collection, id: doc._id });
      }
      if (this.#count !== null) ops.push({ op: 'delete', collection: C.counts, id: this.#count._id });
      await this.commitNow(ops);
      this.#count = null;
      this.#docs.clear();
      this.#digestDue = undefined;
      return { more };
    },

    forgetSender: async ({ userId, ids, remove }) => {
      for (const id of ids) {
        const doc = await this.#doc(id);
        if (doc === undefined || doc.fromUserId !== userId) continue;
        if (remove && doc.fromCommentId !== null) {
          this.remove(C.notifications, id);
          this.remove(C.emails, id);
          this.#docs.delete(id);
          if (!doc.viewed) this.#changeCount(-1);
          continue;
        }
        const fromUserIds = doc.fromUserIds?.filter((u) => u !== userId);
        await this.#store({ ...doc, fromUserId: null, fromUserName: null, fromUserAvatarSrc: null, ...(fromUserIds !== undefined ? { fromUserIds } : {}) });
      }
      return null;
    },

    markAllViewed: async () => {
      await this.commitNow([]);
      const unread = await this.store.find<NotificationDoc>(C.notifications, { tenantId: this.#tenantId, recipient: this.#recipient, viewed: false }, { limit: ERASE_ROUND });
      for (const stored of unread) {
        const doc = this.#docs.get(stored._id) ?? stored;
        if (!doc.viewed) await this.#store({ ...doc, viewed: true });
      }
      const more = unread.length === ERASE_ROUND;
      if (!more && this.#count !== null) {
        this.remove(C.counts, this.#count._id);
        this.#count = null;
      } else if (more) this.#changeCount(-unread.length);
      if (unread.length > 0 || !more) this.#announce(countEvent(this.#count?.count ?? 0));
      return { modified: unread.length, more };
    },
  };

  override onStop(): void {
    // An email still owed must wake a later activation: the timer outlives this one then.
    if (this.#timerAt === Infinity && this.#timer !== undefined) clearTimeout(this.#timer);
  }

  /**
   * Whether the recipient's user was erased in this activation and has no record now: a job or
   * a vote that read the user before its deletion then adds nothing. (A later activation needs
   * no check: what reads users after the deletion finds none.)
   */
  async #gone(): Promise<boolean> {
    if (!this.#erased) return false;
    return this.#userId === null || (await this.system.ask(UserKind, userActorId(this.#tenantId, this.#userId), 'get', null)) === null;
  }

  /** Writes a notification, remembering it until it is surely durable. */
  async #store(doc: NotificationDoc): Promise<void> {
    if (this.#written.size >= MAX_WRITTEN) {
      // Everything written so far becomes durable: storage answers for those ids from now on.
      await this.commitNow([]);
      this.#written.clear();
    }
    this.put(C.notifications, doc);
    this.#written.add(doc._id);
    this.#docs.delete(doc._id);
    this.#docs.set(doc._id, doc);
    if (this.#docs.size > MAX_DOCS) this.#docs.delete(this.#docs.keys().next().value!);
  }

  /** The recipient's notification `id` as it is now, or undefined. */
  async #doc(id: string): Promise<NotificationDoc | undefined> {
    const held = this.#docs.get(id);
    if (held !== undefined) return held;
    // What this actor wrote must be in storage before storage is asked.
    await this.commitNow([]);
    const stored = await this.store.get<NotificationDoc>(C.notifications, id);
    return stored !== undefined && stored.tenantId === this.#tenantId && stored.recipient === this.#recipient ? stored : undefined;
  }

  #changeCount(delta: number): void {
    const now = clock.now();
    const current = this.#count;
    if (current === null && delta <= 0) return;
    const count = Math.max(0, (current?.count ?? 0) + delta);
    if (count === 0) {
      this.remove(C.counts, current!._id);
      this.#count = null;
      return;
    }
    const next: NotificationCountDoc = current === null
      ? { _id: countId(this.#tenantId, this.#recipient), tenantId: this.#tenantId, recipient: this.#recipient, count, createdAt: isoTime(now), expireAt: now + NOTIFICATION_TTL_MS }
      : { ...current, count, expireAt: now + NOTIFICATION_TTL_MS };
    this.put(C.counts, next);
    this.#count = next;
  }

  /**
   * Publishes an event and the count on the recipient's channel: a user's, or an anonymous
   * session's (its `userIdWS` is made from the session's public id, and only a read carrying
   * that session is handed it).
   */
  #announce(event: ReturnType<typeof countEvent>): void {
    const recipient = recipientOf(this.#recipient);
    const channel = recipient.userId ?? recipient.anonUserId;
    if (channel === null) return;
    const topic = userTopic(this.#tenantId, channel);
    this.publish(topic, event);
    if (event.type !== 'notification-update') this.publish(topic, countEvent(this.#count?.count ?? 0));
  }

  async #mergeVote({ commentId, urlId, url, pageTitle, contextText, locale, voters }: VoteMerge): Promise<null> {
    const last = voters.at(-1);
    if (last === undefined) return null;
    const id = notificationId(this.#tenantId, commentId, NOTIFICATION_TYPES.votedMyComment, this.#recipient);
    const current = await this.#doc(id);
    const now = clock.now();
    const recipient = recipientOf(this.#recipient);
    const keep = (list: readonly string[]) => [...new Set(list)].slice(-MAX_FROM);
    const next: NotificationDoc = {
      _id: id,
      tenantId: this.#tenantId,
      recipient: this.#recipient,
      userId: recipient.userId,
      anonUserId: recipient.anonUserId,
      urlId,
      url,
      pageTitle,
      relatedObjectType: OBJECT_TYPES.comment,
      relatedObjectId: commentId,
      viewed: false,
      sent: false,
      createdAt: isoTime(now),
      type: NOTIFICATION_TYPES.votedMyComment,
      fromCommentId: null,
      fromVoteId: last.voteId,
      fromUserName: last.name,
      fromUserId: last.userId,
      fromUserAvatarSrc: last.avatarSrc,
      optedOut: current?.optedOut ?? false,
      count: (current?.count ?? 0) + voters.length,
      fromUserIds: keep([...(current?.fromUserIds ?? []), ...voters.flatMap((v) => (v.userId === null ? [] : [v.userId]))]),
      fromUserNames: keep([...(current?.fromUserNames ?? []), ...voters.flatMap((v) => (v.name === null ? [] : [v.name]))]),
      relatedIds: keep([...(current?.relatedIds ?? []), ...voters.map((v) => v.voteId)]),
      contextText,
      locale,
      expireAt: now + NOTIFICATION_TTL_MS,
    };
    const wasUnread = current !== undefined && !current.viewed;
    await this.#store(next);
    if (!wasUnread) this.#changeCount(1);
    this.#announce(wasUnread ? countEvent(this.#count?.count ?? 0, next) : notificationEvent(next));
    return null;
  }

  /** Owes the email of a notification: at once, or at the end of its kind's open window. */
  async #owe(doc: NotificationDoc, kind: EmailKind): Promise<void> {
    const now = clock.now();
    let dueAt = now + emailDelay(kind, this.#options.batchMs);
    if (isDigest(kind)) {
      const open = await this.#digests();
      dueAt = open.get(kind) ?? dueAt;
      open.set(kind, dueAt);
    }
    const item: NotificationEmailDoc = { _id: doc._id, tenantId: this.#tenantId, recipient: this.#recipient, kind, dueAt, line: emailLine(doc) };
    this.put(C.emails, item);
    this.#wakeAt(dueAt);
  }

  /** When the open window of each digest kind closes, from the emails owed in storage (and since). */
  async #digests(): Promise<Map<EmailKind, number>> {
    if (this.#digestDue !== undefined) return this.#digestDue;
    const owed = await this.store.find<NotificationEmailDoc>(C.emails, { tenantId: this.#tenantId, recipient: this.#recipient });
    const open = new Map<EmailKind, number>();
    for (const item of owed) if (isDigest(item.kind)) open.set(item.kind, Math.min(open.get(item.kind) ?? Infinity, item.dueAt));
    return (this.#digestDue ??= open);
  }

  /**
   * Sends the emails that are due: one per notification, or one per digest kind listing its
   * notifications. Each is durable in the outbox before its notifications are marked `sent`;
   * one that cannot be queued now (outbox full, storage away) is tried again later. Emails for
   * a recipient without an address, or opted out, are dropped (the notifications stay).
   */
  async #flushEmails(): Promise<void> {
    await this.commitNow([]);
    const now = clock.now();
    const owed = await this.store.find<NotificationEmailDoc>(C.emails, { tenantId: this.#tenantId, recipient: this.#recipient }, { sort: [['dueAt', 1]], limit: FLUSH_LIMIT });
    const due = owed.filter((item) => item.dueAt <= now);
    let next = owed.find((item) => item.dueAt > now)?.dueAt ?? Infinity;
    if (owed.length === FLUSH_LIMIT) next = Math.min(next, now + 1000);
    if (due.length > 0) {
      const user = this.#userId === null ? null : await this.system.ask(UserKind, userActorId(this.#tenantId, this.#userId), 'get', null);
      const groups = new Map<string, { kind: EmailKind; items: NotificationEmailDoc[] }>();
      for (const item of due) {
        const key = isDigest(item.kind) ? item.kind : item._id;
        const group = groups.get(key);
        if (group === undefined) groups.set(key, { kind: item.kind, items: [item] });
        else group.items.push(item);
      }
      for (const { kind, items } of groups.values()) {
        if (!(await this.#send(kind, user, items))) next = Math.min(next, now + RETRY_MS);
      }
    }
    this.#digestDue = undefined;
    if (next !== Infinity) this.#wakeAt(next);
  }

  /** Sends one email (or drops it); false when it must be tried again later. */
  async #send(kind: EmailKind, user: UserDoc | null, owed: readonly NotificationEmailDoc[]): Promise<boolean> {
    const to = addressFor(user, kind);
    let items = [...owed].sort((a, b) => (a.line.createdAt < b.line.createdAt ? -1 : a.line.createdAt > b.line.createdAt ? 1 : 0));
    if (to !== null && items.length > 0) {
      try {
        if (kind === EMAIL_KINDS.replyDigest) items = await this.#repliesStillOwed(items);
        if (items.length > 0) await enqueueEmail(this.system, this.#tenantId, emailFor(kind, user!, to, items[0]!._id, items.map((item) => item.line)));
      } catch (err) {
        log.warn('notification-email-deferred', { tenantId: this.#tenantId, recipient: this.#recipient, kind, err });
        return false;
      }
      for (const item of items) {
        this.patch(C.notifications, item._id, { sent: true });
        const held = this.#docs.get(item._id);
        if (held !== undefined) this.#docs.set(item._id, { ...held, sent: true });
      }
    }
    for (const item of owed) this.remove(C.emails, item._id);
    if (to !== null && items.length > 0 && kind === EMAIL_KINDS.replyDigest) {
      // Sent before marked: a reply marked is one whose email is recorded.
      await this.commitNow([]);
      await this.#markRepliesIncluded(items);
    }
    return true;
  }

  /** The replies of a digest that are still there and not yet in an email (`notificationSentForParent`). */
  async #repliesStillOwed(items: NotificationEmailDoc[]): Promise<NotificationEmailDoc[]> {
    const open = new Set<string>();
    await this.#onReplyPages(items, async (page, commentIds) => {
      const { owed, missing } = await this.system.ask(PageKind, page, 'unnotifiedReplies', { commentIds });
      for (const id of owed) open.add(id);
      return missing;
    });
    return items.filter((item) => item.line.fromCommentId !== null && open.has(item.line.fromCommentId));
  }

  /** Has the page of each reply mark it `notificationSentForParent` (its page actor owns it). */
  async #markRepliesIncluded(items: readonly NotificationEmailDoc[]): Promise<void> {
    try {
      await this.#onReplyPages(items, async (page, commentIds) => (await this.system.ask(PageKind, page, 'markParentNotified', { commentIds })).missing);
    } catch (err) {
      // The email is queued; a reply left unmarked could only be listed again in a later digest.
      log.warn('notification-mark-parent-failed', { tenantId: this.#tenantId, recipient: this.#recipient, err });
    }
  }

  /**
   * Runs `work` on the page of each digest reply, with that page's replies; `work` answers the
   * ones the page does not hold, which moved to another page since and are worked there.
   */
  async #onReplyPages(items: readonly NotificationEmailDoc[], work: (page: string, commentIds: string[]) => Promise<readonly string[]>): Promise<void> {
    const byPage = new Map<string, string[]>();
    for (const { line } of items) if (line.fromCommentId !== null) byPage.set(line.urlId, [...(byPage.get(line.urlId) ?? []), line.fromCommentId]);
    for (const [urlId, commentIds] of byPage) {
      for (const id of await work(pageActorId(this.#tenantId, urlId), commentIds)) {
        const now = await pageLocator(this.system).lookup('comment', this.#tenantId, id);
        if (now !== undefined && now !== urlId) await work(pageActorId(this.#tenantId, now), [id]);
      }
    }
  }

  /** Has the actor flush its emails at `at` (or sooner, if already set for sooner). */
  #wakeAt(at: number): void {
    if (at >= this.#timerAt) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timerAt = at;
    const { system } = this;
    const id = this.id;
    const options = this.#options;
    this.#timer = setTimeout(() => {
      if (!options.closed()) system.tell(NotificationsKind, id, 'flushEmails', null);
    }, Math.max(0, at - clock.now()));
    this.#timer.unref();
  }
}
