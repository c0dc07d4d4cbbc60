/**
 * Helpers shared by the routes of pages, comments, votes and reactions: identities from the
 * query, settings, and the live ids answers carry.
 */
import { LRUCache } from 'lru-cache';
import type { LiveIds } from '../../actors/live/live-ids.js';
import type { ActorRef } from '../../actors/page/protocol.js';
import { ApiError } from '../../engine/errors.js';
import type { Schema } from '../route.js';

/** A string of at most `maxLength` characters. */
export const text = (maxLength: number, minLength = 0): Schema => (minLength > 0 ? { type: 'string', minLength, maxLength } : { type: 'string', maxLength });
/** A string of at most `maxLength` characters, or null. */
export const nullableText = (maxLength: number): Schema => ({ type: ['string', 'null'], maxLength });

/** A link: an absolute http(s) URL of at most `maxLength` characters (`invalid-url` otherwise). */
export const link = (maxLength: number, nullable = false): Schema => ({ type: nullable ? ['string', 'null'] : 'string', maxLength, format: 'http-url' });
/** An image source: an http(s) URL or a root-relative path. */
export const imageSrc = (maxLength: number, nullable = false): Schema => ({ type: nullable ? ['string', 'null'] : 'string', maxLength, format: 'image-src' });

/** Ids of users and anonymous sessions as callers send them. */
export const USER_ID: Schema = text(256, 1);
/** A urlId (any text; blank ones are refused by the routes with `missing-url-id`). */
export const URL_ID: Schema = text(4096);
/** The `:id` of comment paths. */
export const COMMENT_ID_PARAM: Schema = { type: 'object', properties: { id: text(128, 1) }, required: ['id'] };

/** The acting user of a request: `userId` wins over `anonUserId`; one of them is required. */
export function actorRef(query: { userId?: string; anonUserId?: string }): ActorRef {
  const userId = query.userId?.trim() || null;
  const anonUserId = query.anonUserId?.trim() || null;
  if (userId === null && anonUserId === null) throw new ApiError('missing-user-id');
  return { userId, anonUserId: userId === null ? anonUserId : null };
}

/** A urlId that is not blank. */
export function requireUrlId(urlId: string | undefined): string {
  if (urlId === undefined || urlId.trim() === '') throw new ApiError('missing-url-id');
  return urlId;
}

const tails = new WeakMap<LiveIds, LRUCache<string, string>>();

/**
 * `,"urlIdWS":"…","tenantIdWS":"…"` for a page: the live ids a read hands to widgets, as JSON
 * fields ready to splice into an answer. Remembered, since every read of a page needs them.
 */
export function liveIdFields(liveIds: LiveIds, tenantId: string, urlId: string | null): string {
  let cache = tails.get(liveIds);
  if (cache === undefined) {
    cache = new LRUCache<string, string>({ max: 10_000 });
    tails.set(liveIds, cache);
  }
  const key = `${tenantId}\n${urlId ?? ''}`;
  let fields = cache.get(key);
  if (fields === undefined) {
    fields = urlId === null ? '' : `,"urlIdWS":${JSON.stringify(liveIds.urlIdWS(tenantId, urlId))}`;
    fields += `,"tenantIdWS":${JSON.stringify(liveIds.tenantIdWS(tenantId))}`;
    cache.set(key, fields);
  }
  return fields;
}
