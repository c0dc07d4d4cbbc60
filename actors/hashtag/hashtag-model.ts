/**
 * Hashtags: the tenant's tag catalogue and the rules that relate tags written in comments to it.
 *
 * A tag's identity is its key: the tag without a leading `#`, lower-cased (`#News` and `news`
 * are one tag). The stored `tag` keeps the spelling it was first created with.
 */
import { ApiError } from '../../engine/errors.js';
import type { Doc } from '../../storage/store.js';
import { hasUnsafeCharacters } from '../text-rules.js';

/** Collection of the tenants' hashtags. */
export const HASH_TAGS = 'hashTags';

/** Tags per page of `GET /api/v1/hash-tags`. */
export const HASH_TAG_PAGE_SIZE = 100;
/** The most tags one bulk call creates. */
export const HASH_TAG_BULK_MAX = 100;
/** Longest tag, in characters. */
export const HASH_TAG_MAX_LENGTH = 100;

/** One tag of one tenant. */
export interface HashTagDoc extends Doc {
  tenantId: string;
  tag: string;
  key: string;
  url: string | null;
  createdAt: string;
}

/** The normalised identity of a tag. */
export function hashTagKey(tag: string): string {
  return tag.trim().replace(/^#+/, '').toLowerCase();
}

/**
 * A tag a caller gives (not one found in a comment's text, which the text rule already keeps
 * to letters, digits, `_` and `-`): its key, or `invalid-param` when it is blank, too long,
 * has spaces, or holds control or bidirectional-override characters.
 */
export function checkTag(tag: string): string {
  const key = hashTagKey(tag);
  if (key === '' || tag.trim().length > HASH_TAG_MAX_LENGTH || /\s/.test(key)) {
    throw new ApiError('invalid-param', `A hashtag is 1 to ${HASH_TAG_MAX_LENGTH} characters without spaces (a leading # is optional).`);
  }
  if (hasUnsafeCharacters(tag)) throw new ApiError('invalid-param', 'A hashtag may not hold control or bidirectional-override characters.');
  return key;
}

/** The stored id of a tag of a tenant. */
export function hashTagId(tenantId: string, key: string): string {
  return `${tenantId}:${key}`;
}

/** The API's `TenantHashTag`. */
export function hashTagView(doc: HashTagDoc): Record<string, unknown> {
  const view: Record<string, unknown> = { _id: doc._id, id: doc._id, createdAt: doc.createdAt, tenantId: doc.tenantId, tag: doc.tag };
  if (doc.url !== null) view['url'] = doc.url;
  return view;
}

const IN_TEXT = /(?<![\p{L}\p{N}_&#/])#([\p{L}\p{N}_][\p{L}\p{N}_-]{0,99})/gu;

/** Tags written in a comment's text (`#word`), in order of first appearance, without repeats. */
export function tagsInText(text: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const m of text.matchAll(IN_TEXT)) {
    const tag = `#${m[1]!}`;
    const key = hashTagKey(tag);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(tag);
  }
  return out;
}
