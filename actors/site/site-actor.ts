import { Actor, type Handlers } from '../../engine/actor.js';
import type { Filter, SortSpec } from '../../storage/store.js';
import { COMMENTS, type CommentDoc, commentView } from '../page/comment-doc.js';
import type { SortDirection } from '../page/listing.js';
import { PAGES, type PageDoc } from '../page/page-doc.js';
import { PENDING_COUNTS, type PendingCountsDoc } from '../page/pending-counts.js';
import { PageKind, pageActorId } from '../page/protocol.js';
import { type VoteDoc, VOTES } from '../page/vote-doc.js';
import { POLL_COLLECTIONS, type PollDoc, pollView } from '../poll/poll-model.js';
import { type UserDoc, USERS } from '../user/protocol.js';
import type { SiteProtocol } from './protocol.js';

/** The order pages are listed in: oldest first, then by id (the index `by_tenant_created`). */
const PAGE_ORDER: SortSpec = [['createdAt', 1], ['_id', 1]];

const SORTS: Readonly<Record<SortDirection, SortSpec>> = {
  OF: [['date', 1], ['_id', 1]],
  NF: [['date', -1], ['_id', -1]],
  MR: [['votes', -1], ['date', -1], ['_id', -1]],
};

/**
 * A tenant's site-wide reads. It owns nothing and writes nothing: each answer is one indexed
 * query over durable documents, released at once (after the pages with lagging vote counts
 * have stored them).
 */
export class SiteActor extends Actor<SiteProtocol> {
  override async onStart(): Promise<void> {}

  /**
   * Has every page whose stored vote counts lag its votes write them (see pending-counts.ts),
   * so that comments read from storage carry every acknowledged vote, and sort by it.
   */
  async #storeLaggingCounts(): Promise<void> {
    const pending = await this.store.find<PendingCountsDoc>(PENDING_COUNTS, { tenantId: this.id });
    await Promise.all(pending.map((page) => this.system.ask(PageKind, pageActorId(this.id, page.urlId), 'flushCounts', null)));
  }

  readonly handlers: Handlers<SiteProtocol> = {
    listPages: async ({ skip, limit }) => {
      this.allowUnconfirmed();
      const pages = await this.store.find<PageDoc>(PAGES, { tenantId: this.id }, { sort: PAGE_ORDER, skip, limit: limit + 1 });
      return { pages: pages.slice(0, limit), hasMore: pages.length > limit };
    },

    pagesAfter: async ({ after, skip, limit }) => {
      this.allowUnconfirmed();
      if (after === null) return this.store.find<PageDoc>(PAGES, { tenantId: this.id }, { sort: PAGE_ORDER, skip, limit });
      // Those created at the same moment as the last one read, after it by id; then the later ones.
      const same = await this.store.find<PageDoc>(PAGES, { tenantId: this.id, createdAt: after.createdAt, _id: { $gt: after.id } }, { sort: PAGE_ORDER, limit });
      if (same.length === limit) return same;
      const later = await this.store.find<PageDoc>(PAGES, { tenantId: this.id, createdAt: { $gt: after.createdAt } }, { sort: PAGE_ORDER, limit: limit - same.length });
      return [...same, ...later];
    },

    searchComments: async ({ query, voterKey, blocked }) => {
      this.allowUnconfirmed();
      await this.#storeLaggingCounts();
      const filter: Record<string, Filter[string]> = { tenantId: this.id, approved: true, isSpam: false };
      if (query.hashTagKeys.length > 0) filter['hashTagKeys'] = { $all: [...query.hashTagKeys] };
      if (query.userId !== undefined) filter['userId'] = query.userId;
      if (query.parentId !== undefined) filter['parentId'] = query.parentId;
      if (query.fromDate !== undefined || query.toDate !== undefined) {
        filter['date'] = {
          ...(query.fromDate !== undefined ? { $gte: new Date(query.fromDate).toISOString() } : {}),
          ...(query.toDate !== undefined ? { $lte: new Date(query.toDate).toISOString() } : {}),
        };
      }
      if (blocked.length > 0) filter['authorKey'] = { $nin: [...blocked] };
      const docs = await this.store.find<CommentDoc>(COMMENTS, filter, { sort: SORTS[query.direction], skip: query.skip, limit: query.limit });
      const votes = new Map<string, VoteDoc>();
      if (voterKey !== null && docs.length > 0) {
        // Through the pages' index: votes are stored by page.
        const urlIds = [...new Set(docs.map((d) => d.urlId))];
        const ids = new Set(docs.map((d) => d._id));
        const found = (await this.store.find<VoteDoc>(VOTES, { tenantId: this.id, urlId: { $in: urlIds }, voterKey })).filter((v) => ids.has(v.commentId));
        for (const vote of found) votes.set(vote.commentId, vote);
      }
      const pollIds = docs.filter((d) => d.hasPoll).map((d) => d._id);
      const polls = new Map<string, PollDoc>();
      // One query for the page of results, not one read per comment.
      if (pollIds.length > 0) for (const poll of await this.store.find<PollDoc>(POLL_COLLECTIONS.polls, { _id: { $in: pollIds } })) polls.set(poll._id, poll);
      const out: Record<string, unknown>[] = [];
      for (const doc of docs) {
        const poll = polls.get(doc._id);
        const view = commentView(doc, poll === undefined ? undefined : pollView(poll));
        if (voterKey !== null) {
          const vote = votes.get(doc._id);
          view['isVotedUp'] = vote !== undefined && vote.direction > 0;
          view['isVotedDown'] = vote !== undefined && vote.direction < 0;
          if (vote !== undefined) view['myVoteId'] = vote._id;
        }
        out.push(view);
      }
      return out;
    },

    userIdByEmail: async ({ email }) => {
      this.allowUnconfirmed();
      const users = await this.store.find<UserDoc>(USERS, { tenantId: this.id, email: email.trim().toLowerCase() }, { limit: 1 });
      return users[0]?._id ?? null;
    },
  };
}
