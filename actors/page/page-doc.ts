/** The stored page: its metadata and calculated counts, kept by the page actor. */
import type { Doc } from '../../storage/store.js';

/** Collection of page records. */
export const PAGES = 'pages';

/** One page record: one per tenant and urlId. */
export interface PageDoc extends Doc {
  tenantId: string;
  urlId: string;
  url: string | null;
  title: string;
  /** Visible (approved, not spam) comments of the page. Calculated. */
  commentCount: number;
  /** Visible top-level comments of the page. Calculated. */
  rootCommentCount: number;
  isClosed: boolean;
  accessibleByGroupIds: string[];
  createdAt: string;
  updatedAt: string;
}

/**
 * The API's `APIPage`. Its `url` is an optional string, never null: a page created by a
 * reaction has no url until its first comment brings one, and leaves the field out until then.
 */
export function pageView(page: PageDoc): Record<string, unknown> {
  return {
    id: page._id,
    urlId: page.urlId,
    ...(page.url === null ? {} : { url: page.url }),
    title: page.title,
    commentCount: page.commentCount,
    rootCommentCount: page.rootCommentCount,
    isClosed: page.isClosed,
    accessibleByGroupIds: page.accessibleByGroupIds,
    createdAt: page.createdAt,
  };
}
