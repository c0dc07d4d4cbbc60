import { Actor, type Handlers } from '../../engine/actor.js';
import { clock, isoTime } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { newId } from '../../engine/ids.js';
import type { Filter } from '../../storage/store.js';
import { type LiveEvent, LIVE_EVENT_TYPES, pageTopic } from '../live/live-events.js';
import { judgeSpam } from '../page/spam.js';
import { PAGES, type PageDoc } from '../page/page-doc.js';
import { sanitizeHtml } from '../page/render.js';
import {
  dupKeyOf,
  FEED_COLLECTIONS as C,
  FEED_URL_ID,
  type FeedPostDoc,
  feedPostView,
  type FeedPostInput,
  type FeedReactDoc,
  MAX_REACT_TYPES,
  postUrlId,
  publicFeedPost,
  reactId,
} from './feed-model.js';
import { type Editor, FEED_VIEWS, type FeedPage, type FeedProtocol, type FeedQuery, feedQueryKey } from './protocol.js';

/** List answers kept; the oldest goes first. */
const LISTS_KEPT = 64;

/** Text of a post as the spam rules read it: title and content without tags. */
function spamText(post: Pick<FeedPostDoc, 'title' | 'contentHTML'>): string {
  return `${post.title ?? ''}\n${(post.contentHTML ?? '').replace(/<[^>]*>/g, ' ')}`;
}

/**
 * One tenant's feed. Posts live in storage and are read by query; the answers of recent list
 * queries are kept in memory (and published as a view, so the routes read them without a
 * message) until the feed next changes. Live events go to the feed's channel (`FEED_URL_ID`)
 * once the change is durable.
 */
export class FeedActor extends Actor<FeedProtocol> {
  readonly #lists = new Map<string, FeedPage>();

  override async onStart(): Promise<void> {}

  readonly handlers: Handlers<FeedProtocol> = {
    list: async (query) => {
      const key = feedQueryKey(query);
      const hit = this.#lists.get(key);
      if (hit !== undefined) return hit;
      await this.commitNow([]);
      const docs = await this.#query(query);
      const posts: FeedPage = { posts: docs, apiJson: JSON.stringify(docs.map(feedPostView)) };
      if (this.#lists.size >= LISTS_KEPT) {
        const oldest = this.#lists.keys().next().value!;
        this.#lists.delete(oldest);
        this.deleteView(FEED_VIEWS.lists, oldest);
      }
      this.#lists.set(key, posts);
      this.setView(FEED_VIEWS.lists, posts, key);
      return posts;
    },

    get: async ({ postId }) => this.#get(postId),

    create: async ({ fromUserId, displayName, avatar, input, skipDupCheck, spamRules, isLive, broadcastId }) => {
      const now = clock.now();
      const doc = this.#apply({
        _id: newId(now),
        tenantId: this.id,
        title: null,
        fromUserId,
        fromUserDisplayName: input.fromUserDisplayName ?? displayName,
        fromUserAvatar: avatar,
        tags: [],
        meta: null,
        contentHTML: null,
        media: [],
        links: [],
        createdAt: isoTime(now),
        reacts: {},
        dupKey: '',
      }, input);
      if (spamRules !== null && judgeSpam(spamText(doc), spamRules, false).isSpam) throw new ApiError('feed-post-spam');
      if (!skipDupCheck) {
        await this.commitNow([]);
        const same = await this.store.find<FeedPostDoc>(C.posts, { tenantId: this.id, fromUserId, dupKey: doc.dupKey }, { limit: 1 });
        if (same.length > 0) throw new ApiError('feed-post-duplicate');
      }
      this.insert(C.posts, doc);
      this.#changed();
      if (isLive) this.#publish({ type: LIVE_EVENT_TYPES.newFeedPost, feedPost: publicFeedPost(doc) }, broadcastId);
      return doc;
    },

    update: async ({ postId, input, by, broadcastId }) => {
      const current = await this.#own(postId, by);
      const doc = this.#apply({ ...current }, input);
      this.put(C.posts, doc);
      this.#changed();
      this.#publish({ type: LIVE_EVENT_TYPES.updatedFeedPost, feedPost: publicFeedPost(doc) }, broadcastId);
      return doc;
    },

    remove: async ({ postId, by, broadcastId }) => {
      await this.#own(postId, by);
      const reacts = await this.store.find<FeedReactDoc>(C.reacts, { tenantId: this.id, postId });
      for (const react of reacts) this.remove(C.reacts, react._id);
      this.remove(C.posts, postId);
      this.#changed();
      this.#publish({ type: LIVE_EVENT_TYPES.deletedFeedPost, postId }, broadcastId);
      return null;
    },

    react: async ({ postId, readerKey, reactType, undo, broadcastId }) => {
      const post = await this.#get(postId);
      if (post === null) throw new ApiError('feed-post-not-found');
      const id = reactId(postId, readerKey, reactType);
      // Reactions of this actor not yet durable are in memory only: make them durable first.
      await this.commitNow([]);
      const held = (await this.store.get<FeedReactDoc>(C.reacts, id)) !== undefined;
      if (held !== undo) return { changed: false };
      const reacts = { ...post.reacts };
      // Reaction types are callers' words: only the map's own entries count (`constructor` is not one).
      const countOf = (type: string): number => (Object.hasOwn(reacts, type) ? reacts[type]! : 0);
      if (undo) {
        this.remove(C.reacts, id);
        const left = countOf(reactType) - 1;
        if (left > 0) reacts[reactType] = left;
        else delete reacts[reactType];
      } else {
        if (!Object.hasOwn(reacts, reactType) && Object.keys(reacts).length >= MAX_REACT_TYPES) {
          throw new ApiError('invalid-param', `A post holds at most ${MAX_REACT_TYPES} kinds of reaction.`);
        }
        this.insert(C.reacts, { _id: id, tenantId: this.id, postId, readerKey, reactType } satisfies FeedReactDoc);
        reacts[reactType] = countOf(reactType) + 1;
      }
      this.patch(C.posts, postId, { reacts });
      this.#changed();
      this.#publish({ type: undo ? LIVE_EVENT_TYPES.feedPostUnreact : LIVE_EVENT_TYPES.feedPostReact, feedPostReact: { tenantId: this.id, postId, reactType, count: countOf(reactType) } }, broadcastId);
      return { changed: true };
    },

    stats: ({ postIds }) => this.#stats(postIds),

    reactsOf: async ({ readerKey, postIds }) => {
      await this.commitNow([]);
      const out: Record<string, Record<string, boolean>> = {};
      if (postIds.length === 0) return out;
      const reacts = await this.store.find<FeedReactDoc>(C.reacts, { tenantId: this.id, readerKey, postId: { $in: [...postIds] } });
      for (const react of reacts) (out[react.postId] ??= {})[react.reactType] = true;
      return out;
    },
  };

  async #stats(postIds: readonly string[]): Promise<Record<string, { reacts: Record<string, number>; commentCount: number }>> {
    await this.commitNow([]);
    const ids = [...new Set(postIds)];
    const [posts, pages] = await Promise.all([
      this.store.find<FeedPostDoc>(C.posts, { _id: { $in: ids } }),
      this.store.find<PageDoc>(PAGES, { tenantId: this.id, urlId: { $in: ids.map(postUrlId) } }),
    ]);
    const comments = new Map(pages.map((p) => [p.urlId, p.commentCount]));
    const out: Record<string, { reacts: Record<string, number>; commentCount: number }> = {};
    for (const post of posts) if (post.tenantId === this.id) out[post._id] = { reacts: post.reacts, commentCount: comments.get(postUrlId(post._id)) ?? 0 };
    return out;
  }

  async #query({ afterId, limit, tags }: FeedQuery): Promise<FeedPostDoc[]> {
    const filter: Record<string, Filter[string]> = { tenantId: this.id };
    if (afterId !== null) {
      filter['_id'] = { $lt: afterId };
      // A post's id starts with the second it was made, as its createdAt: a bound the index can seek to.
      const second = Number.parseInt(afterId.slice(0, 8), 16);
      if (/^[0-9a-f]{8}/.test(afterId) && Number.isFinite(second)) filter['createdAt'] = { $lt: isoTime((second + 1) * 1000) };
    }
    if (tags.length > 0) filter['tags'] = { $in: [...tags] };
    return this.store.find<FeedPostDoc>(C.posts, filter, { sort: [['createdAt', -1], ['_id', -1]], limit });
  }

  async #get(postId: string): Promise<FeedPostDoc | null> {
    await this.commitNow([]);
    const doc = await this.store.get<FeedPostDoc>(C.posts, postId);
    return doc !== undefined && doc.tenantId === this.id ? doc : null;
  }

  /** The post, if the editor may change it: the API may change any, a reader only their own. */
  async #own(postId: string, by: Editor): Promise<FeedPostDoc> {
    const post = await this.#get(postId);
    if (post === null) throw new ApiError('feed-post-not-found');
    if (by !== null && by !== post.fromUserId) throw new ApiError('feed-post-forbidden');
    return post;
  }

  /** The post with the input's fields written over it; content is cleaned as comments' HTML is. */
  #apply(doc: FeedPostDoc, input: FeedPostInput): FeedPostDoc {
    if (input.title !== undefined) doc.title = input.title;
    if (input.contentHTML !== undefined) doc.contentHTML = sanitizeHtml(input.contentHTML).html;
    if (input.media !== undefined) doc.media = input.media;
    if (input.links !== undefined) doc.links = input.links;
    if (input.tags !== undefined) doc.tags = [...new Set(input.tags)];
    if (input.meta !== undefined) doc.meta = input.meta;
    if (input.fromUserDisplayName !== undefined) doc.fromUserDisplayName = input.fromUserDisplayName;
    if (!doc.title && !doc.contentHTML && doc.media.length === 0 && doc.links.length === 0) throw new ApiError('feed-post-empty');
    doc.dupKey = dupKeyOf(doc.fromUserId, doc);
    return doc;
  }

  #changed(): void {
    this.#lists.clear();
    this.clearView(FEED_VIEWS.lists);
  }

  #publish(event: Omit<LiveEvent, 'timestamp' | 'type'> & { type: string }, broadcastId: string | null): void {
    const now = clock.now();
    this.publish(pageTopic(this.id, FEED_URL_ID), { ...event, timestamp: now, ts: now, broadcastId: broadcastId ?? newId(now) });
  }
}
