import { Actor, type Handlers } from '../../engine/actor.js';
import { log } from '../../engine/log.js';
import type { WriteOp } from '../../storage/store.js';
import { accessChanged, type LiveEvent, pageTopic, tenantTopic } from '../live/live-events.js';
import { POLL_COLLECTIONS, type PollDoc, pollView } from '../poll/poll-model.js';
import { webhooksTopic } from '../webhook/protocol.js';
import { PollKind, pollActorId } from '../poll/protocol.js';
import { changedComment, COMMENTS, type CommentDoc, isVisible } from './comment-doc.js';
import { patchComment } from './comment-changes.js';
import { COMMENT_FLAGS, type FlagDoc } from './flag-doc.js';
import { listJson, type Viewer } from './listing.js';
import { createComment, deleteComment } from './page-comments.js';
import { eraseUserComments } from './page-erase.js';
import { finishImport, importComments } from './page-import.js';
import { commentEvent } from './page-events.js';
import { PAGES, type PageDoc } from './page-doc.js';
import { flagComment, unflagComment } from './page-flags.js';
import { renamePage } from './page-moves.js';
import { react, reactState } from './page-reactions.js';
import { createPage, deletePage, patchPage, syncPage } from './page-record.js';
import { type PageHost, PageState, saveComment } from './page-state.js';
import { moderationQueued } from '../moderation/queue-event.js';
import { castVote, flushCounts, listVotes, recount, removeVote } from './page-votes.js';
import { adjustVotes } from './page-vote-adjust.js';
import { NotOnThisPage, PAGE_VIEWS, type PageProtocol } from './protocol.js';
import { PAGE_REACTS, type ReactDoc } from './react-doc.js';
import { type VoteDoc, VOTES } from './vote-doc.js';
import { badgeEventsTopic } from '../badge/protocol.js';
import { setUserBadges } from './page-badges.js';
import { PublicCache } from './public-cache.js';
import { publicListJson } from './public-listing.js';
import { commentPositions, publicSource } from './public-source.js';
import { PageHead } from './page-head.js';
import type { PublicSource } from './public-listing.js';
import { gated } from './load-gate.js';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Doc, Filter } from '../../storage/store.js';

/** Heap estimates for the actor system's memory bound (`MAX_ACTOR_MEMORY_MB`). */
const BYTES_PER_COMMENT = 1500;
const BYTES_PER_VOTE = 300;

/** Serialised answers kept per page; the oldest goes first. */
const ANSWER_CACHE_SIZE = 32;

/** Documents per batch of a page's load: a batch is indexed in well under 5 ms. */
const LOAD_BATCH = 500;

function splitId(id: string): [tenantId: string, urlId: string] {
  const colon = id.indexOf(':');
  return [id.slice(0, colon), id.slice(colon + 1)];
}

/**
 * Everything that happens on one page: its comments, their votes and flags, the page's
 * reactions and its record (title, counts). State lives in memory (`PageState`), loaded once
 * per activation; mutations apply at once and are written in batches; reads are answered from
 * memory, and the serialised answers are kept until the page next changes. Each concern's
 * rules are in its own module (page-comments, comment-changes, page-votes, page-flags,
 * page-reactions, page-record, page-moves); the handlers here find what a message names and
 * call them.
 *
 * A message naming a comment or vote this page does not hold checks storage (after making its
 * own writes durable): if another page moved it here, the page reloads and carries on; if not,
 * it throws `NotOnThisPage` and the caller looks the id up again.
 */
export class PageActor extends Actor<PageProtocol> {
  readonly #state = new PageState(...splitId(this.id), () => this.clearView(PAGE_VIEWS.answers));
  /** Anonymous widget answers, each dropped when a change alters it (public-cache.ts). */
  readonly #public = new PublicCache((key) => this.deleteView(PAGE_VIEWS.publicAnswers, key));
  /** The `broadcastId` of the widget write being handled: copied into every event it publishes. */
  #broadcastId: string | undefined;
  /** A widget pin being handled: its `updated-comment` event carries the comment's new place. */
  #positionsOf: string | undefined;
  /** The effects the page's modules may have, bound once per activation. */
  readonly #host: PageHost = {
    state: this.#state,
    actorId: this.id,
    system: this.system,
    store: this.store,
    put: (collection, doc) => this.put(collection, doc),
    insert: (collection, doc) => this.insert(collection, doc),
    remove: (collection, id) => this.remove(collection, id),
    publish: (event: LiveEvent) => this.publish(pageTopic(this.#state.tenantId, this.#state.urlId), this.#stamped(event)),
    accessChanged: () => this.publish(tenantTopic(this.#state.tenantId), accessChanged(this.#state.tenantId, this.#state.urlId)),
    announceWebhooks: (events) => this.publish(webhooksTopic(this.#state.tenantId), events),
    commitNow: (ops: readonly WriteOp[]) => this.commitNow(ops),
    tellPoll: (commentId, change) => this.#tellPoll(commentId, change),
    announceBadges: (events) => this.publish(badgeEventsTopic(this.#state.tenantId), events),
    announceQueued: (commentId, groups) => this.publish(tenantTopic(this.#state.tenantId), moderationQueued(this.#state.tenantId, this.#state.urlId, commentId, groups)),
  };

  /** The page's head while the whole page loads in the background (page-head.ts). */
  #head: PageHead | undefined;
  /** The background load under way, if any. */
  #loading: Promise<void> | undefined;
  /** Whether the state holds the whole page. */
  #loaded = false;
  #stopped = false;
  /** True while the page loads in the background, between messages: see `onStart`. */
  #quiet = false;
  /** Whether answers kept from the head must go at the next message (`#dropHeadAnswers`). */
  #headStale = false;

  override async onStart(): Promise<void> {
    // Comment documents report each change themselves; a touch names what else changed (a poll).
    // While the page loads in the background (`#quiet`) nothing readers see changes (the head's
    // answers are exact), and a view changed between messages would be lost: nothing is dropped.
    this.#state.onChange = (id) => {
      if (id !== undefined && !this.#quiet) this.#public.commentTouched(id);
    };
    this.#state.comments.observer = {
      changed: (old, doc) => {
        if (this.#quiet) return;
        this.#dropHeadAnswers();
        if (this.#public.size > 0) this.#public.commentChanged(publicSource(this.#state), old, doc);
      },
      cleared: () => {
        if (!this.#quiet) this.#public.clear();
      },
    };
    const head = await PageHead.load(this.store, this.#state.tenantId, this.#state.urlId, this.id);
    if (head === undefined || head.complete) {
      await this.#load();
      this.#loaded = true;
      return;
    }
    this.#head = head;
    this.#loading = this.#loadInBackground(true);
    // A failure is logged there, and met again by the next message that waits for the page.
    this.#loading.catch(() => undefined);
  }

  /**
   * Loads the whole page while the head answers what it can. Every other message waits for it
   * (`#whenLoaded`), so no write lands on a half-loaded state and nothing is counted twice.
   */
  async #loadInBackground(afterFirstTurn: boolean): Promise<void> {
    try {
      // The messages already queued (the first view) are answered from the head first.
      if (afterFirstTurn) await nextTurn();
      this.#quiet = afterFirstTurn;
      await this.#load();
      this.#loaded = true;
      const head = this.#head;
      if (head !== undefined) {
        const told = head.counts();
        const counted = this.#state.counts();
        if (told.commentCount !== counted.commentCount || told.rootCommentCount !== counted.rootCommentCount) {
          log.warn('page-head-counts-differ', { actorId: this.id, stored: told, counted });
          this.#headStale = true;
        }
      }
    } catch (err) {
      if (!this.#stopped) log.warn('page-load-failed', { actorId: this.id, err });
      throw err;
    } finally {
      this.#quiet = false;
      this.#head = undefined;
      this.#loading = undefined;
    }
  }

  /** Resolves once the state holds the whole page (at once, undefined, when it does). */
  #whenLoaded(): Promise<void> | undefined {
    if (this.#loaded) return undefined;
    if (this.#loading === undefined) {
      this.#loading = this.#loadInBackground(false);
      this.#loading.catch(() => undefined);
    }
    return this.#loading;
  }

  /** After a change of the page record (`isClosed` is in every anonymous answer): the answers it alters are joined again. */
  #recordChanged<T>(result: T): T {
    this.#public.pageChanged(publicSource(this.#state));
    return result;
  }

  /** An event as the widget write being handled publishes it (see `#broadcasting`). */
  #stamped(event: LiveEvent): LiveEvent {
    let out = event;
    if (this.#broadcastId !== undefined) out = { ...out, broadcastId: this.#broadcastId };
    const pinned = this.#positionsOf;
    if (pinned !== undefined && out.type === 'updated-comment') {
      out = { ...out, extraInfo: { ...out.extraInfo, commentPositions: commentPositions(publicSource(this.#state), pinned) } };
    }
    return out;
  }

  /**
   * Runs a handler with the writer's `broadcastId` (if any) copied into the events it publishes.
   * A page handles one message at a time, so the field belongs to this message alone.
   */
  #broadcasting<T>(broadcastId: string | undefined, run: () => T | Promise<T>): T | Promise<T> {
    if (broadcastId === undefined) return run();
    this.#broadcastId = broadcastId;
    let result: T | Promise<T>;
    try {
      result = run();
    } catch (err) {
      this.#broadcastId = undefined;
      throw err;
    }
    if (!(result instanceof Promise)) {
      this.#broadcastId = undefined;
      return result;
    }
    return result.finally(() => {
      this.#broadcastId = undefined;
    });
  }

  /**
   * Reads the whole page into the state. Large collections are read in batches with the event
   * loop handed back between them, so other actors and requests run meanwhile.
   */
  async #load(): Promise<void> {
    const state = this.#state;
    const page = { tenantId: state.tenantId, urlId: state.urlId };
    const [pages, polls] = await Promise.all([this.store.find<PageDoc>(PAGES, page), this.store.find<PollDoc>(POLL_COLLECTIONS.polls, page)]);
    state.clear();
    state.page = pages[0] ?? null;
    const withPolls: string[] = [];
    for await (const batch of this.#batches<CommentDoc>(COMMENTS, page)) {
      state.holdAll(batch);
      for (const doc of batch) if (doc.hasPoll) withPolls.push(doc._id);
    }
    for await (const batch of this.#batches<VoteDoc>(VOTES, page)) for (const vote of batch) state.votes.add(vote);
    for await (const batch of this.#batches<FlagDoc>(COMMENT_FLAGS, page)) for (const flag of batch) state.flags.set(flag._id, flag);
    for await (const batch of this.#batches<ReactDoc>(PAGE_REACTS, page)) for (const doc of batch) state.addReact(doc);
    for (const poll of polls) if (state.comments.has(poll._id)) state.polls.set(poll._id, pollView(poll));
    recount(this.#host);
    // A poll whose move to this page is not yet recorded on the poll itself.
    for (const id of withPolls) {
      if (!state.polls.has(id)) {
        const poll = await this.store.get<PollDoc>(POLL_COLLECTIONS.polls, id);
        if (poll !== undefined && poll.tenantId === state.tenantId) state.polls.set(id, pollView(poll));
      }
    }
    state.restructure();
    if (!this.#quiet) this.#public.clear();
  }

  /** A page's documents of one collection in batches, the event loop handed back after each. */
  async *#batches<T extends Doc>(collection: string, filter: Filter): AsyncIterable<T[]> {
    for await (const batch of this.store.scan<T>(collection, filter, { batchSize: LOAD_BATCH })) {
      yield batch;
      if (this.#stopped) throw new Error('page actor stopped while loading');
      await nextTurn();
    }
  }

  /** Measured by `npm run bench -- hot-page`: about 1.4 KB of heap per resident comment beyond its text (resident.ts). */
  override memoryBytes(): number {
    const state = this.#state;
    return 4096 + state.comments.size * BYTES_PER_COMMENT + state.votes.size * BYTES_PER_VOTE;
  }

  override onStop(): void {
    this.#stopped = true;
    clearTimeout(this.#state.flushTimer);
    this.#state.flushTimer = undefined;
  }

  readonly handlers: Handlers<PageProtocol> = gated<PageProtocol>(() => this.#whenLoaded(), new Set(['publicList', 'getPage']), {
    flushCounts: () => flushCounts(this.#host),

    pollChanged: ({ commentId, poll }) => {
      const state = this.#state;
      const doc = state.comments.get(commentId);
      if (doc === undefined) return null;
      if (poll === null) state.polls.delete(commentId);
      else state.polls.set(commentId, poll);
      if (doc.hasPoll !== (poll !== null)) saveComment(this.#host, changedComment(doc, { hasPoll: poll !== null }));
      else state.touch(commentId);
      return null;
    },

    list: ({ key, query, viewer, tail }) => {
      const state = this.#state;
      const hit = state.answers.get(key);
      if (hit !== undefined) return hit;
      let view: Viewer | undefined;
      if (viewer !== null) {
        const voterKey = viewer.voterKey;
        view = {
          tags: voterKey !== null,
          blocked: new Set(viewer.blocked),
          voteOn: (commentId) => {
            if (voterKey === null) return undefined;
            const vote = state.votes.held(commentId, voterKey);
            return vote === undefined ? undefined : { id: vote.id, direction: vote.direction };
          },
        };
      }
      const json = Buffer.from(`{"status":"success","comments":${listJson(state.source(), query, view)}${tail}}`);
      if (state.answers.size >= ANSWER_CACHE_SIZE) {
        const oldest = state.answers.keys().next().value!;
        state.answers.delete(oldest);
        this.deleteView(PAGE_VIEWS.answers, oldest);
      }
      state.answers.set(key, json);
      // Readers get it without a message once everything it shows is durable.
      this.setView(PAGE_VIEWS.answers, json, key);
      return json;
    },

    getComment: async ({ commentId }) => this.#state.view(await this.#own(commentId)),
    createComment: (request) => this.#broadcasting(request.broadcastId, () => createComment(this.#host, request)),
    patchComment: async (request) => {
      const doc = await this.#own(request.commentId);
      if (request.withPositions !== true) return this.#broadcasting(request.broadcastId, () => patchComment(this.#host, doc, request));
      this.#positionsOf = request.commentId;
      try {
        return await this.#broadcasting(request.broadcastId, () => patchComment(this.#host, doc, request));
      } finally {
        this.#positionsOf = undefined;
      }
    },
    deleteComment: async ({ commentId, isLive, webhooks, broadcastId }) => {
      const doc = await this.#own(commentId);
      return this.#broadcasting(broadcastId, () => deleteComment(this.#host, doc, isLive, webhooks));
    },
    eraseUserComments: (request) => eraseUserComments(this.#host, request),
    markParentNotified: ({ commentIds }) => {
      const missing: string[] = [];
      for (const id of commentIds) {
        const doc = this.#state.comments.get(id);
        if (doc === undefined) missing.push(id);
        else if (!doc.notificationSentForParent) saveComment(this.#host, changedComment(doc, { notificationSentForParent: true }));
      }
      return { missing };
    },
    unnotifiedReplies: ({ commentIds }) => {
      const owed: string[] = [];
      const missing: string[] = [];
      for (const id of commentIds) {
        const doc = this.#state.comments.get(id);
        if (doc === undefined) missing.push(id);
        else if (!doc.notificationSentForParent) owed.push(id);
      }
      return { owed, missing };
    },

    adopt: async ({ commentIds, isLive }) => {
      await this.commitNow([]);
      await this.#load();
      const state = this.#state;
      const first = state.comments.get(commentIds[0] ?? '');
      syncPage(this.#host, first === undefined ? null : { title: first.pageTitle, url: first.url });
      if (isLive) {
        for (const id of commentIds) {
          const doc = state.comments.get(id);
          if (doc !== undefined && isVisible(doc)) this.#host.publish(commentEvent('new-comment', state.view(doc)));
        }
      }
      return null;
    },

    flag: async (request) => {
      const doc = await this.#own(request.commentId);
      return this.#broadcasting(request.broadcastId, () => flagComment(this.#host, doc, request));
    },
    unflag: async (request) => unflagComment(this.#host, await this.#own(request.commentId), request),
    author: async ({ commentId }) => (await this.#own(commentId)).authorKey,

    vote: (payload) => {
      // The common case, a comment in memory, needs no await.
      const found = this.#state.comments.get(payload.commentId);
      if (found !== undefined) return this.#broadcasting(payload.broadcastId, () => castVote(this.#host, found, payload));
      return this.#own(payload.commentId).then((doc) => this.#broadcasting(payload.broadcastId, () => castVote(this.#host, doc, payload)));
    },
    deleteVote: async ({ voteId, broadcastId }) => {
      const vote = await this.#ownVote(voteId);
      return this.#broadcasting(broadcastId, () => removeVote(this.#host, vote));
    },
    listVotes: ({ voterKey }) => listVotes(this.#host, voterKey),

    getPage: () => {
      // The record is read with the head: page access checks need not wait for every comment.
      if (!this.#loaded && this.#head !== undefined) return this.#head.state.page;
      const wait = this.#whenLoaded();
      return wait === undefined ? this.#state.page : wait.then(() => this.#state.page);
    },
    createPage: (request) => this.#recordChanged(createPage(this.#host, request)),
    patchPage: (request) => this.#recordChanged(patchPage(this.#host, request)),
    deletePage: (request) => this.#recordChanged(deletePage(this.#host, request)),
    renamePage: async (request) => this.#recordChanged(await renamePage(this.#host, request)),

    react: (request) => react(this.#host, request),
    reactState: (request) => reactState(this.#host, request),
    importComments: async (request) => this.#recordChanged(await importComments(this.#host, request)),
    finishImport: async () => this.#recordChanged(await finishImport(this.#host)),
    setUserBadges: ({ userId, badges }) => setUserBadges(this.#host, userId, badges),

    publicList: (request) => {
      if (request.reader === null) {
        this.#dropHeadAnswers();
        const hit = this.#public.get(request.key);
        if (hit !== undefined) return hit.identity;
        const head = this.#head?.source(request.query);
        if (head !== undefined) return this.#publicList(request, head);
      }
      const wait = this.#whenLoaded();
      if (wait === undefined) return this.#publicList(request, publicSource(this.#state));
      return wait.then(() => this.#publicList(request, publicSource(this.#state)));
    },
    commentPositions: ({ commentId }) => commentPositions(publicSource(this.#state), commentId),
    replyCount: async ({ commentId }) => {
      await this.#own(commentId);
      return this.#state.comments.index.replies(commentId).size;
    },
    adjustVotes: async ({ commentId, amount, isLive, broadcastId }) => {
      const doc = await this.#own(commentId);
      return this.#broadcasting(broadcastId, () => adjustVotes(this.#host, doc, amount, isLive));
    },
    voteOwner: async ({ voteId }) => {
      const vote = await this.#ownVote(voteId);
      return { commentId: vote.commentId, voterKey: vote.voterKey, anonUserId: vote.anonUserId };
    },
  });

  /** A widget read's answer over `source` (the page, or its head while the page loads); an anonymous one is kept. */
  #publicList({ key, query, reader, tail }: PageProtocol['publicList']['in'], source: PublicSource): Buffer {
    if (reader !== null) return Buffer.from(publicListJson(source, query, reader, tail));
    const { answer, evicted } = this.#public.answer(source, key, query, tail);
    if (evicted !== undefined) this.deleteView(PAGE_VIEWS.publicAnswers, evicted);
    // Readers get it without a message once everything it shows is durable.
    this.setView(PAGE_VIEWS.publicAnswers, answer, key);
    return answer.identity;
  }

  /**
   * Drops the answers kept from the head when the whole page, once loaded, counted otherwise
   * than the head was told (they may be inexact); called within a message, so the views go too.
   */
  #dropHeadAnswers(): void {
    if (!this.#headStale) return;
    this.#headStale = false;
    this.#public.clear();
  }

  /** The comment, if this page holds it (adopting it first if another page moved it here). */
  async #own(commentId: string): Promise<CommentDoc> {
    return this.#state.comments.get(commentId) ?? this.#adopt<CommentDoc>(COMMENTS, commentId, () => this.#state.comments.get(commentId));
  }

  /**
   * The vote, if this page holds it (adopting it first if its comment moved here). Votes are
   * held by comment and voter: the id's stored document says which, and memory says whether
   * that vote is still the voter's (a vote whose removal is not yet durable is still stored).
   */
  async #ownVote(voteId: string): Promise<VoteDoc> {
    const state = this.#state;
    const held = (stored: VoteDoc | undefined) =>
      stored !== undefined && stored.tenantId === state.tenantId ? state.votes.withId(stored.commentId, stored.voterKey, voteId) : undefined;
    const found = held(await this.store.get<VoteDoc>(VOTES, voteId));
    if (found !== undefined) return found;
    return this.#adopt(VOTES, voteId, held);
  }

  /**
   * A document not found in memory: it may have moved here from another page, so if storage
   * says it is on this page, the page reloads and answers what `find` then finds. Throws
   * `NotOnThisPage` otherwise.
   */
  async #adopt<T extends CommentDoc | VoteDoc>(collection: string, id: string, find: (stored: T) => T | undefined): Promise<T> {
    // Storage must first hold everything this page wrote, or it could show what it removed.
    await this.commitNow([]);
    const stored = await this.store.get<T>(collection, id);
    if (stored !== undefined && stored.tenantId === this.#state.tenantId && stored.urlId === this.#state.urlId) {
      const found = find(stored) ?? (await this.#load(), find(stored));
      if (found !== undefined) return found;
    }
    throw new NotOnThisPage(id);
  }

  async #tellPoll(commentId: string, change: { isLocked: boolean; urlId: string; deleted: boolean }): Promise<void> {
    try {
      await this.system.ask(PollKind, pollActorId(this.#state.tenantId, commentId), 'commentChanged', change);
    } catch (err) {
      // The comment's change is already durable; the poll actor reads it again when it starts.
      log.warn('poll-comment-changed-failed', { tenantId: this.#state.tenantId, commentId, err });
    }
  }
}
