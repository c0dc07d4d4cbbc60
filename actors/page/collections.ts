import type { CollectionSpec } from '../../storage/store.js';
import { COMMENTS } from './comment-doc.js';
import { COMMENT_FLAGS } from './flag-doc.js';
import { PAGES } from './page-doc.js';
import { PENDING_COUNTS } from './pending-counts.js';
import { PAGE_REACTS } from './react-doc.js';
import { VOTES } from './vote-doc.js';

const byPage = { name: 'by_page', fields: ['tenantId', 'urlId'] } as const;

/** Collections of the page actor's data (polls are declared by the poll actor). */
export const pageCollections: readonly CollectionSpec[] = [
  {
    name: COMMENTS,
    indexes: [
      byPage,
      // Tenant-wide reads (no urlId): newest first, by hashtag, by author.
      { name: 'by_tenant_date', fields: ['tenantId', 'date'] },
      { name: 'by_tenant_tag', fields: ['tenantId', 'hashTagKeys'] },
      { name: 'by_tenant_user', fields: ['tenantId', 'userId'] },
      // Moderators' "comments by IP of a comment" and bans by address.
      { name: 'by_tenant_ip', fields: ['tenantId', 'ipHash'] },
      // A page's first comments of each order, read before the rest (page-head.ts); `_id` breaks ties, as the orders do.
      { name: 'by_page_parent_date', fields: ['tenantId', 'urlId', 'parentId', 'date', '_id'] },
      { name: 'by_page_parent_votes', fields: ['tenantId', 'urlId', 'parentId', 'votes', 'date', '_id'] },
      { name: 'by_page_pinned', fields: ['tenantId', 'urlId', 'isPinned'] },
    ],
  },
  // By comment: a page's head recounts the comments whose stored counts lag (page-head.ts).
  { name: VOTES, indexes: [byPage, { name: 'by_page_comment', fields: ['tenantId', 'urlId', 'commentId'] }] },
  { name: COMMENT_FLAGS, indexes: [byPage] },
  { name: PAGE_REACTS, indexes: [byPage] },
  { name: PENDING_COUNTS, indexes: [{ name: 'by_tenant', fields: ['tenantId'] }] },
  {
    name: PAGES,
    indexes: [
      { name: 'by_tenant_url', fields: ['tenantId', 'urlId'], unique: true },
      // `GET /api/v1/pages`, a page at a time in creation order.
      { name: 'by_tenant_created', fields: ['tenantId', 'createdAt', '_id'] },
    ],
  },
];
