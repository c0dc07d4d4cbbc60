/**
 * Feed posts (docs/feed-posts.md): a tenant's posts, the readers' reactions to them, and their
 * API shapes. Comments on a post are ordinary comments on the page `post:<postId>`.
 */
import { createHash } from 'node:crypto';
import type { CollectionSpec, Doc } from '../../storage/store.js';

/** Collections of feed posts. */
export const FEED_COLLECTIONS = {
  posts: 'feedPosts',
  reacts: 'feedPostReacts',
} as const;

/** The urlId whose live channel carries a tenant's feed events (`new-feed-post`, `fr`, ...). */
export const FEED_URL_ID = 'feed:posts';

/** The page of a post's comments. */
export function postUrlId(postId: string): string {
  return `post:${postId}`;
}

/** Posts a list answers by default, and at most. */
export const FEED_PAGE = 20;
export const FEED_PAGE_MAX = 100;
/** Distinct reaction types one post may hold. */
export const MAX_REACT_TYPES = 50;
/** Longest reaction type. */
export const REACT_TYPE_MAX = 36;
/**
 * What a reaction type may be: it becomes a field name of the post's `reacts`, so neither a
 * leading `$`, a `.` nor NUL (MongoDB refuses them); `__proto__` is refused by the route.
 */
export const REACT_TYPE_PATTERN = '^[^.$\\u0000][^.\\u0000]*$';

/** One image of a media item. */
export interface MediaAsset {
  w: number;
  h: number;
  src: string;
}

/** A media item (`FeedPostMediaItem`). */
export interface MediaItem {
  title?: string;
  linkUrl?: string;
  sizes: MediaAsset[];
}

/** A link (`FeedPostLink`). */
export interface FeedLink {
  text?: string;
  title?: string;
  description?: string;
  url?: string;
}

/** A post as stored. */
export interface FeedPostDoc extends Doc {
  tenantId: string;
  title: string | null;
  fromUserId: string;
  fromUserDisplayName: string | null;
  fromUserAvatar: string | null;
  tags: string[];
  meta: Record<string, string> | null;
  contentHTML: string | null;
  media: MediaItem[];
  links: FeedLink[];
  createdAt: string;
  /** Reactions per type (a type's count is left out once it reaches 0). */
  reacts: Record<string, number>;
  /** What makes two posts the same, for the duplicate check. */
  dupKey: string;
}

/** A reader's reaction of one type to one post. */
export interface FeedReactDoc extends Doc {
  tenantId: string;
  postId: string;
  /** `u:<userId>` or `a:<anonymous session>`. */
  readerKey: string;
  reactType: string;
}

/** The fields of a post a caller writes. */
export interface FeedPostInput {
  title?: string;
  contentHTML?: string;
  media?: MediaItem[];
  links?: FeedLink[];
  tags?: string[];
  meta?: Record<string, string>;
  fromUserDisplayName?: string;
}

export const feedCollections: readonly CollectionSpec[] = [
  {
    name: FEED_COLLECTIONS.posts,
    indexes: [
      // Newest first: `createdAt`, then `_id` (ids sort by creation time), descending; `afterId` is a range on both.
      { name: 'by_tenant_created', fields: ['tenantId', 'createdAt', '_id'] },
      { name: 'by_tenant_tags', fields: ['tenantId', 'tags'] },
      // The duplicate check: one author's posts with the same content.
      { name: 'by_tenant_user_content', fields: ['tenantId', 'fromUserId', 'dupKey'] },
    ],
  },
  { name: FEED_COLLECTIONS.reacts, indexes: [{ name: 'by_tenant_reader_post', fields: ['tenantId', 'readerKey', 'postId'] }, { name: 'by_tenant_post', fields: ['tenantId', 'postId'] }] },
];

/** The duplicate key of a post's content. */
export function dupKeyOf(fromUserId: string, post: Pick<FeedPostDoc, 'title' | 'contentHTML' | 'media' | 'links'>): string {
  return createHash('sha256').update(JSON.stringify([fromUserId, post.title, post.contentHTML, post.media, post.links])).digest('base64url');
}

/** The id of a reader's reaction. */
export function reactId(postId: string, readerKey: string, reactType: string): string {
  return createHash('sha256').update(`${postId}\n${readerKey}\n${reactType}`).digest('base64url');
}

/** The management API's shape (`FeedPost`): everything but the internal duplicate key. */
export function feedPostView(doc: FeedPostDoc): Record<string, unknown> {
  const view: Record<string, unknown> = { _id: doc._id, tenantId: doc.tenantId, fromUserId: doc.fromUserId, createdAt: doc.createdAt, tags: doc.tags, media: doc.media, links: doc.links, reacts: doc.reacts };
  if (doc.title !== null) view['title'] = doc.title;
  if (doc.contentHTML !== null) view['contentHTML'] = doc.contentHTML;
  if (doc.meta !== null) view['meta'] = doc.meta;
  view['fromUserDisplayName'] = doc.fromUserDisplayName;
  view['fromUserAvatar'] = doc.fromUserAvatar;
  return view;
}

/**
 * What every reader may see of a post: no author id (a site's single sign-on ids are often its
 * account ids or emails) and no `meta` (the tenant's own data). A reader's own posts carry
 * `fromUserId`, so the widget can offer to edit them.
 */
export function publicFeedPost(doc: FeedPostDoc, readerUserId: string | null = null): Record<string, unknown> {
  const { fromUserId: _id, meta: _meta, ...rest } = feedPostView(doc);
  return readerUserId !== null && readerUserId === doc.fromUserId ? { ...rest, fromUserId: doc.fromUserId } : rest;
}
