/**
 * Public reads for readers of one tenant (`reader-reads:<tenantId>`): a reader's own
 * notifications page by page, whether a reader follows a page, users by name prefix (mentions)
 * and by id (presence lists), and the commenters of a page. It owns nothing and writes nothing:
 * each answer is an indexed query over durable documents other actors write (every
 * acknowledged change is durable, so the answers show every one), released at once.
 */
import { Actor, defineKind, type Handlers } from '../../engine/actor.js';
import type { Filter } from '../../storage/store.js';
import { type NotificationDoc, NOTIFY_COLLECTIONS as C } from '../notify/notification-doc.js';
import { getMany } from '../notify/get-many.js';
import type { SubscriptionDoc } from '../notify/subscription-doc.js';
import { COMMENTS } from '../page/comment-doc.js';
import { type UserDoc, USERS } from '../user/protocol.js';

/** Most users a name search answers. */
export const USER_SEARCH_LIMIT = 10;
/** Comments read to find the commenters of a page. */
export const PAGE_COMMENTERS_SCANNED = 2000;

/** A page of a reader's notifications, newest first. */
export interface NotificationPageQuery {
  readonly recipient: string;
  readonly unreadOnly: boolean;
  /** Only notifications older than this one (of the same recipient). */
  readonly afterId: string | null;
  /** Only notifications created before this time (ms). */
  readonly afterCreatedAt: number | null;
  /** Types to leave out. */
  readonly excludeTypes: readonly number[];
  readonly limit: number;
}

export type ReaderReadsProtocol = {
  notifications: { in: NotificationPageQuery; out: NotificationDoc[] };
  /** One notification of the tenant, or null. */
  notification: { in: { id: string }; out: NotificationDoc | null };
  /** The recipient's subscription to a page, or null. */
  subscription: { in: { recipient: string; urlId: string }; out: SubscriptionDoc | null };
  /** Notifications of the recipient created at or after `since`, oldest first (at most `limit`). */
  notificationsSince: { in: { recipient: string; since: number; until: number; limit: number }; out: NotificationDoc[] };
  /** Users whose username or display name starts with `prefix` (case as given), oldest first. */
  searchUsers: { in: { prefix: string; limit: number }; out: UserDoc[] };
  /** The users of these ids that exist in this tenant. */
  users: { in: { ids: readonly string[] }; out: UserDoc[] };
  /** User ids of the visible comments of a page (at most `PAGE_COMMENTERS_SCANNED` comments read). */
  pageCommenters: { in: { urlId: string }; out: string[] };
};

/** `reader-reads:<tenantId>` */
export const ReaderReadsKind = defineKind<ReaderReadsProtocol>('reader-reads');

const BEFORE_ALL = '\uffff';
/** The last time ISO strings of four-digit years can write (and compare as text). */
const LAST_DATE = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export class ReaderReadsActor extends Actor<ReaderReadsProtocol> {
  override async onStart(): Promise<void> {}

  readonly handlers: Handlers<ReaderReadsProtocol> = {
    notifications: async (q) => {
      this.allowUnconfirmed();
      const base: Record<string, Filter[string]> = { tenantId: this.id, recipient: q.recipient };
      if (q.unreadOnly) base['viewed'] = false;
      if (q.excludeTypes.length > 0) base['type'] = { $nin: q.excludeTypes };
      let beforeAt = q.afterCreatedAt === null ? BEFORE_ALL : new Date(Math.min(q.afterCreatedAt, LAST_DATE)).toISOString();
      let sameAt: NotificationDoc[] = [];
      if (q.afterId !== null) {
        const after = await this.store.get<NotificationDoc>(C.notifications, q.afterId);
        if (after !== undefined && after.tenantId === this.id && after.recipient === q.recipient && after.createdAt < beforeAt) {
          beforeAt = after.createdAt;
          // Ties on createdAt are ordered by id, as the list is.
          sameAt = await this.store.find<NotificationDoc>(C.notifications, { ...base, createdAt: after.createdAt, _id: { $lt: after._id } }, { sort: [['_id', -1]], limit: q.limit });
        }
      }
      const older = await this.store.find<NotificationDoc>(C.notifications, { ...base, createdAt: { $lt: beforeAt } }, { sort: [['createdAt', -1], ['_id', -1]], limit: q.limit });
      return [...sameAt, ...older].slice(0, q.limit);
    },

    notification: async ({ id }) => {
      this.allowUnconfirmed();
      const doc = await this.store.get<NotificationDoc>(C.notifications, id);
      return doc !== undefined && doc.tenantId === this.id ? doc : null;
    },

    subscription: async ({ recipient, urlId }) => {
      this.allowUnconfirmed();
      const [doc] = await this.store.find<SubscriptionDoc>(C.subscriptions, { tenantId: this.id, recipient, urlId }, { limit: 1 });
      return doc ?? null;
    },

    notificationsSince: async ({ recipient, since, until, limit }) => {
      this.allowUnconfirmed();
      const filter: Filter = { tenantId: this.id, recipient, createdAt: { $gte: new Date(Math.min(since, LAST_DATE)).toISOString(), $lte: new Date(Math.min(until, LAST_DATE)).toISOString() } };
      return this.store.find<NotificationDoc>(C.notifications, filter, { sort: [['createdAt', 1], ['_id', 1]], limit });
    },

    searchUsers: async ({ prefix, limit }) => {
      this.allowUnconfirmed();
      const range = prefix === '' ? { $gte: '' } : { $gte: prefix, $lt: prefix + BEFORE_ALL };
      const [byName, byDisplay] = await Promise.all([
        this.store.find<UserDoc>(USERS, { tenantId: this.id, username: range }, { sort: [['username', 1]], limit }),
        this.store.find<UserDoc>(USERS, { tenantId: this.id, displayName: range }, { sort: [['displayName', 1]], limit }),
      ]);
      const found = new Map<string, UserDoc>();
      for (const user of [...byName, ...byDisplay]) found.set(user._id, user);
      return [...found.values()];
    },

    users: async ({ ids }) => {
      this.allowUnconfirmed();
      const found = await getMany<UserDoc>(this.store, USERS, ids);
      return [...found.values()].filter((u) => u.tenantId === this.id);
    },

    pageCommenters: async ({ urlId }) => {
      this.allowUnconfirmed();
      const comments = await this.store.find(COMMENTS, { tenantId: this.id, urlId }, { limit: PAGE_COMMENTERS_SCANNED });
      const ids = new Set<string>();
      for (const c of comments) {
        if (c['approved'] === true && c['isSpam'] !== true && c['isDeleted'] !== true && typeof c['userId'] === 'string') ids.add(c['userId']);
      }
      return [...ids];
    },
  };
}
