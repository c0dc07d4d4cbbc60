import type { CollectionSpec } from '../../storage/store.js';
import { NOTIFY_COLLECTIONS as C } from './notification-doc.js';

/** Collections of notifications, counts, owed emails, opt-outs, subscriptions and jobs. */
export const notifyCollections: readonly CollectionSpec[] = [
  {
    name: C.notifications,
    indexes: [
      // One recipient's, newest first (`GET /api/v1/notifications?userId`).
      { name: 'by_recipient_created', fields: ['tenantId', 'recipient', 'createdAt'] },
      { name: 'by_tenant_created', fields: ['tenantId', 'createdAt'] },
      { name: 'by_tenant_url_created', fields: ['tenantId', 'urlId', 'createdAt'] },
      { name: 'by_tenant_from_comment', fields: ['tenantId', 'fromCommentId'] },
      // A deleted user's: the notifications it caused.
      { name: 'by_tenant_from_user', fields: ['tenantId', 'fromUserId'] },
      // The sweeper's: what a year has passed on.
      { name: 'by_expire', fields: ['expireAt'] },
    ],
  },
  { name: C.counts, indexes: [{ name: 'by_tenant', fields: ['tenantId'] }, { name: 'by_expire', fields: ['expireAt'] }] },
  {
    name: C.emails,
    indexes: [
      { name: 'by_recipient_due', fields: ['tenantId', 'recipient', 'dueAt'] },
      { name: 'by_due', fields: ['dueAt'] },
    ],
  },
  { name: C.optOuts, indexes: [{ name: 'by_recipient', fields: ['tenantId', 'recipient'] }] },
  {
    name: C.subscriptions,
    indexes: [
      { name: 'by_recipient_page', fields: ['tenantId', 'recipient', 'urlId'], unique: true },
      // The fan-out's: a page's subscribers in `_id` order.
      { name: 'by_page', fields: ['tenantId', 'urlId'] },
      { name: 'by_tenant_created', fields: ['tenantId', 'createdAt'] },
    ],
  },
  { name: C.jobs, indexes: [{ name: 'by_tenant', fields: ['tenantId'] }, { name: 'by_created', fields: ['createdAt'] }] },
];
