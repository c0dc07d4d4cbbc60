/** Schemas of feed post bodies and queries (`FeedPost`, `CreateFeedPostParams`, `UpdateFeedPostParams`). */
import { FEED_PAGE_MAX, type FeedPostInput } from '../../actors/feed/feed-model.js';
import type { Schema } from '../route.js';
import { freeForm } from '../validation.js';
import { imageSrc, link, text } from './page-context.js';

const ASSET: Schema = {
  type: 'object',
  properties: { w: { type: 'integer', minimum: 0, maximum: 100_000 }, h: { type: 'integer', minimum: 0, maximum: 100_000 }, src: imageSrc(2048) },
  required: ['w', 'h', 'src'],
};
const MEDIA: Schema = {
  type: 'object',
  properties: { title: text(500), linkUrl: link(2048), sizes: { type: 'array', maxItems: 20, items: ASSET } },
  required: ['sizes'],
};
const LINK: Schema = { type: 'object', properties: { text: text(1000), title: text(500), description: text(2000), url: link(2048) } };

/** The writable fields of a post. */
export const POST_FIELDS: Record<string, Schema> = {
  title: text(500),
  contentHTML: text(50_000),
  media: { type: 'array', maxItems: 50, items: MEDIA },
  links: { type: 'array', maxItems: 50, items: LINK },
  tags: { type: 'array', maxItems: 50, items: text(100, 1) },
  meta: freeForm({ type: 'object', additionalProperties: text(1000) }, 16_384, 100),
};

/** `CreateFeedPostParams`. */
export const CREATE_BODY: Schema = { type: 'object', properties: { ...POST_FIELDS, fromUserId: text(256, 1), fromUserDisplayName: text(200) } };

/** `UpdateFeedPostParams` (public). */
export const UPDATE_BODY: Schema = { type: 'object', properties: POST_FIELDS };

/**
 * A whole `FeedPost` as `PATCH` takes it: generated clients send the object they read, so the
 * read-only fields are accepted (and must not change, for the ids) and ignored.
 */
export const PATCH_BODY: Schema = {
  type: 'object',
  properties: {
    ...POST_FIELDS,
    _id: text(128),
    tenantId: text(64),
    fromUserId: text(256),
    fromUserDisplayName: { type: ['string', 'null'], maxLength: 200 },
    fromUserAvatar: { type: ['string', 'null'], maxLength: 2048 },
    fromIpHash: text(200),
    weight: { type: 'number' },
    createdAt: text(64),
    reacts: { type: 'object', additionalProperties: { type: 'integer' }, maxProperties: 1000 },
    commentCount: { type: ['integer', 'null'] },
  },
};

/** The list query of both APIs. */
export const LIST_QUERY: Record<string, Schema> = {
  afterId: text(128, 1),
  limit: { type: 'integer', minimum: 1, maximum: FEED_PAGE_MAX },
  tags: { type: 'array', maxItems: 20, items: text(100, 1) },
};

/** The post fields of a body. */
export function inputOf(body: Record<string, unknown>): FeedPostInput {
  const input: Record<string, unknown> = {};
  for (const key of ['title', 'contentHTML', 'media', 'links', 'tags', 'meta']) if (body[key] !== undefined) input[key] = body[key];
  if (typeof body['fromUserDisplayName'] === 'string') input['fromUserDisplayName'] = body['fromUserDisplayName'];
  return input as FeedPostInput;
}
