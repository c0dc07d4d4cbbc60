import { Actor, type Handlers } from '../../engine/actor.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import type { CollectionSpec } from '../../storage/store.js';
import { checkTag, HASH_TAG_MAX_LENGTH, HASH_TAG_PAGE_SIZE, HASH_TAGS, type HashTagDoc, hashTagId, hashTagKey } from './hashtag-model.js';
import type { BulkResult, HashTagInput, HashTagProtocol } from './protocol.js';

/** The hashtag actor's collection, indexed for listing by tag. */
export const hashTagCollections: readonly CollectionSpec[] = [
  { name: HASH_TAGS, indexes: [{ name: 'by_tenant_tag', fields: ['tenantId', 'tag'] }] },
];


/**
 * One tenant's hashtags. Tags are read from storage on demand and remembered: this actor is
 * their only writer, so what it has seen stays true.
 */
export class HashTagActor extends Actor<HashTagProtocol> {
  readonly #known = new Map<string, HashTagDoc | null>();

  override async onStart(): Promise<void> {}

  readonly handlers: Handlers<HashTagProtocol> = {
    list: async ({ page }) => {
      // Writes still on their way to storage would be missing from the query.
      await this.commitNow([]);
      return this.store.find<HashTagDoc>(HASH_TAGS, { tenantId: this.id }, {
        sort: [['tag', 1]],
        skip: page * HASH_TAG_PAGE_SIZE,
        limit: HASH_TAG_PAGE_SIZE,
      });
    },
    add: async (input) => this.#add(input),
    addBulk: async ({ tags }) => {
      const results: BulkResult[] = [];
      for (const input of tags) {
        try {
          results.push({ hashTag: await this.#add(input) });
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          results.push({ error: { code: err.code, reason: err.message } });
        }
      }
      return results;
    },
    patch: async ({ tag, changes }) => {
      const current = await this.#get(hashTagKey(tag));
      if (current === null) throw new ApiError('not-found', `No hashtag ${tag}.`);
      const nextTag = changes.tag === undefined ? current.tag : changes.tag.trim();
      const key = checkTag(nextTag);
      if (key !== current.key && (await this.#get(key)) !== null) throw new ApiError('hashtag-exists', `The hashtag ${nextTag} already exists.`);
      const next: HashTagDoc = {
        ...current,
        _id: hashTagId(this.id, key),
        tag: nextTag,
        key,
        url: changes.url === undefined ? current.url : changes.url,
      };
      if (key !== current.key) {
        this.remove(HASH_TAGS, current._id);
        this.#known.set(current.key, null);
      }
      this.put(HASH_TAGS, next);
      this.#known.set(key, next);
      return next;
    },
    remove: async ({ tag }) => {
      const current = await this.#get(hashTagKey(tag));
      if (current === null) throw new ApiError('not-found', `No hashtag ${tag}.`);
      this.remove(HASH_TAGS, current._id);
      this.#known.set(current.key, null);
      return null;
    },
    ensure: async ({ tags }) => {
      for (const tag of tags) {
        const key = hashTagKey(tag);
        if (key === '' || tag.length > HASH_TAG_MAX_LENGTH || (await this.#get(key)) !== null) continue;
        this.#create(tag.trim(), key, null);
      }
      return null;
    },
  };

  async #add(input: HashTagInput): Promise<HashTagDoc> {
    const tag = input.tag.trim();
    const key = checkTag(tag);
    if ((await this.#get(key)) !== null) throw new ApiError('hashtag-exists', `The hashtag ${tag} already exists.`);
    return this.#create(tag, key, input.url ?? null);
  }

  #create(tag: string, key: string, url: string | null): HashTagDoc {
    const doc: HashTagDoc = { _id: hashTagId(this.id, key), tenantId: this.id, tag, key, url, createdAt: new Date(clock.now()).toISOString() };
    this.put(HASH_TAGS, doc);
    this.#known.set(key, doc);
    return doc;
  }

  async #get(key: string): Promise<HashTagDoc | null> {
    const known = this.#known.get(key);
    if (known !== undefined) return known;
    if (this.#known.size >= 10_000) {
      // Forgetting is only safe once what was written is in storage.
      await this.commitNow([]);
      this.#known.clear();
    }
    const stored = (await this.store.get<HashTagDoc>(HASH_TAGS, hashTagId(this.id, key))) ?? null;
    const found = stored !== null && stored.tenantId === this.id ? stored : null;
    this.#known.set(key, found);
    return found;
  }
}
