/**
 * A tenant's feed (`feed:<tenantId>`): its posts and the readers' reactions to them. Its
 * only writer, so a post's reaction counts and its readers' reactions move together.
 */
import { defineKind } from '../../engine/actor.js';
import type { SpamRule } from '../tenant/widget-config.js';
import type { FeedPostDoc, FeedPostInput } from './feed-model.js';

/** A page of the feed: newest first, before `afterId`, with any of `tags`. */
export interface FeedQuery {
  readonly afterId: string | null;
  readonly limit: number;
  readonly tags: readonly string[];
}

/** A page of the feed: the posts, and their management API shapes already serialised (a JSON array). */
export interface FeedPage {
  readonly posts: readonly FeedPostDoc[];
  readonly apiJson: string;
}

/** Who changes a post: the API (null) or a reader, who may change only their own. */
export type Editor = string | null;

/** Every message of a feed actor. */
export type FeedProtocol = {
  list: { in: FeedQuery; out: FeedPage };
  get: { in: { postId: string }; out: FeedPostDoc | null };
  create: {
    in: {
      fromUserId: string;
      displayName: string | null;
      avatar: string | null;
      input: FeedPostInput;
      skipDupCheck: boolean;
      /** The tenant's spam rules when `doSpamCheck`, else null. */
      spamRules: readonly SpamRule[] | null;
      isLive: boolean;
      broadcastId: string | null;
    };
    out: FeedPostDoc;
  };
  update: { in: { postId: string; input: FeedPostInput; by: Editor; broadcastId: string | null }; out: FeedPostDoc };
  remove: { in: { postId: string; by: Editor; broadcastId: string | null }; out: null };
  /** Adds (or with `undo`, removes) a reader's reaction; answers whether anything changed. */
  react: { in: { postId: string; readerKey: string; reactType: string; undo: boolean; broadcastId: string | null }; out: { changed: boolean } };
  /** The reader's reactions to these posts: post id → reaction type → true. */
  reactsOf: { in: { readerKey: string; postIds: readonly string[] }; out: Record<string, Record<string, boolean>> };
  /** Reaction counts and comment counts (from the page records of `post:<id>`) of these posts; unknown ids are left out. */
  stats: { in: { postIds: readonly string[] }; out: Record<string, { reacts: Record<string, number>; commentCount: number }> };
};

/** `feed:<tenantId>` */
export const FeedKind = defineKind<FeedProtocol>('feed');

/** Views a feed actor publishes: list answers by query key, readable without a message. */
export const FEED_VIEWS = { lists: 'lists' } as const;

/** The key of a list query in the `lists` view. */
export function feedQueryKey(query: FeedQuery): string {
  return JSON.stringify([query.afterId, query.limit, query.tags]);
}
