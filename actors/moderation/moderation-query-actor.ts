/**
 * `moderation-query:<tenantId>`: reads of a tenant's comments for moderators (docs/moderation.md).
 * It reads the comments' durable state (page actors own and write them; a moderation action
 * answers only once its write is durable, so a moderator's next read sees it) and keeps the
 * slow tenant-wide reads out of the mailbox that checks bans.
 */
import { Actor, defineKind, type Handlers } from '../../engine/actor.js';
import type { Filter, SortSpec } from '../../storage/store.js';
import { type CommentDoc, COMMENTS } from '../page/comment-doc.js';
import { PAGES, type PageDoc } from '../page/page-doc.js';
import { hasText, type ModerationFilter, textMatches } from './moderation-query.js';

/** Most comments a text search looks at before it stops (its answer says how many matched up to then). */
export const TEXT_SCAN_LIMIT = 50_000;
const BATCH = 500;

export interface FindQuery {
  readonly filter: Filter;
  readonly text: ModerationFilter;
  readonly sort: SortSpec;
  readonly skip: number;
  readonly limit: number;
}

export type ModerationQueryProtocol = {
  find: { in: FindQuery; out: CommentDoc[] };
  count: { in: { filter: Filter; text: ModerationFilter }; out: number };
  /** Page records whose urlId starts with `prefix` (the pages' tenant index), at most `limit`. */
  pages: { in: { prefix: string; limit: number }; out: PageDoc[] };
  /** The stored address hash of a comment of the tenant (null: none kept, or no such comment). */
  ipHashOf: { in: { commentId: string }; out: string | null };
};

/** `moderation-query:<tenantId>` */
export const ModerationQueryKind = defineKind<ModerationQueryProtocol>('moderation-query');

export class ModerationQueryActor extends Actor<ModerationQueryProtocol> {
  readonly handlers: Handlers<ModerationQueryProtocol> = {
    find: async ({ filter, text, sort, skip, limit }) => {
      if (!hasText(text)) return this.store.find<CommentDoc>(COMMENTS, filter, { sort, skip, limit });
      const matched: CommentDoc[] = [];
      for await (const batch of this.#scan(filter)) for (const doc of batch) if (textMatches(doc, text)) matched.push(doc);
      const [[field, dir]] = sort.length > 0 ? sort : [['date', -1] as const];
      matched.sort((a, b) => {
        const x = a[field] as string | number, y = b[field] as string | number;
        return (x < y ? -1 : x > y ? 1 : 0) * dir;
      });
      return matched.slice(skip, skip + limit);
    },

    pages: async ({ prefix, limit }) =>
      this.store.find<PageDoc>(PAGES, { tenantId: this.id, urlId: { $gte: prefix, $lt: `${prefix}\uffff` } }, { sort: [['urlId', 1]], limit }),

    ipHashOf: async ({ commentId }) => {
      const doc = await this.store.get<CommentDoc>(COMMENTS, commentId);
      return doc !== undefined && doc.tenantId === this.id ? (doc.ipHash ?? null) : null;
    },

    count: async ({ filter, text }) => {
      if (!hasText(text)) return this.store.count(COMMENTS, filter);
      let n = 0;
      for await (const batch of this.#scan(filter)) for (const doc of batch) if (textMatches(doc, text)) n++;
      return n;
    },
  };

  override async onStart(): Promise<void> {}

  /** The filter's comments newest first, a batch at a time, at most `TEXT_SCAN_LIMIT`. */
  async *#scan(filter: Filter): AsyncIterable<CommentDoc[]> {
    for (let skip = 0; skip < TEXT_SCAN_LIMIT; skip += BATCH) {
      const batch = await this.store.find<CommentDoc>(COMMENTS, filter, { sort: [['date', -1], ['_id', -1]], skip, limit: BATCH });
      if (batch.length > 0) yield batch;
      if (batch.length < BATCH) return;
    }
  }
}
