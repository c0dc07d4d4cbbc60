/**
 * What a page actor holds in memory, and the read caches derived from it. The page's handlers
 * (comments, votes, flags, reactions, the page record, moves) live in their own modules and
 * work on this state through a `PageHost`; this module keeps the state and the rules of
 * dropping caches when it changes.
 */
import type { ActorSystem } from '../../engine/actor-system.js';
import type { StoreReader } from '../../engine/actor.js';
import type { Doc, WriteOp } from '../../storage/store.js';
import type { LiveEvent } from '../live/live-events.js';
import type { PollView } from '../poll/poll-model.js';
import type { PendingWebhookEventDoc } from '../webhook/protocol.js';
import type { BadgeEventDoc } from '../badge/badge-model.js';
import { COMMENTS, type CommentDoc, commentView } from './comment-doc.js';
import type { FlagDoc } from './flag-doc.js';
import type { ListSource } from './listing.js';
import { CommentMap } from './page-index.js';
import type { PageDoc } from './page-doc.js';
import { REACT_KINDS, type ReactDoc } from './react-doc.js';
import { VoteIndex } from './vote-index.js';
import { Residents } from './resident.js';

/** What the page's modules may do besides changing the state: the actor's effects. */
export interface PageHost {
  readonly state: PageState;
  /** The actor's id, `<tenantId>:<urlId>`. */
  readonly actorId: string;
  readonly system: ActorSystem;
  readonly store: StoreReader;
  put(collection: string, doc: Doc): void;
  insert(collection: string, doc: Doc): void;
  remove(collection: string, id: string): void;
  /** Publishes a live event on the page's topic, once the writes before it are durable. */
  publish(event: LiveEvent): void;
  /** Has live channels check their readers of this page again, once its groups are durable. */
  accessChanged(): void;
  /** Hands queued webhook events to the tenant's webhooks actor, once the writes before are durable. */
  announceWebhooks(events: readonly PendingWebhookEventDoc[]): void;
  /** Makes everything buffered so far durable, then `ops` alone. */
  commitNow(ops: readonly WriteOp[]): Promise<void>;
  /** Hands queued badge progress events to the users' badge actors, once the writes before are durable. */
  announceBadges(events: readonly BadgeEventDoc[]): void;
  /** Tells the poll of a comment that the comment changed (after the change is durable). */
  tellPoll(commentId: string, change: { isLocked: boolean; urlId: string; deleted: boolean }): Promise<void>;
  /** Tells moderators' pages of a new comment (actors/moderation/queue-event.ts), once it is durable. */
  announceQueued(commentId: string, moderationGroupIds: readonly string[] | null): void;
}

/** Replaces a comment's document in memory and storage. */
export function saveComment(host: PageHost, doc: CommentDoc): void {
  host.put(COMMENTS, doc);
  const { state } = host;
  state.comments.set(doc._id, doc);
  state.countsDirty.delete(doc._id);
  state.touch(doc._id);
}

/** One page's state: its record, comments, votes, flags, reactions and polls. */
export class PageState {
  readonly tenantId: string;
  readonly urlId: string;
  page: PageDoc | null = null;
  /** The comments held, with their orders and counts kept in step (page-index.ts). */
  readonly comments = new CommentMap();
  readonly votes: VoteIndex;
  readonly flags = new Map<string, FlagDoc>();
  /** Likes and reactions by document id; change them through `addReact` and `removeReact`. */
  readonly reacts = new Map<string, ReactDoc>();
  /** Likes held. */
  likeCount = 0;
  /** Reactions held per reaction id (a `Map`: ids are callers' words, `__proto__` included). */
  readonly reactCounts = new Map<string, number>();
  readonly polls = new Map<string, PollView>();
  /** Makes stored comments compact before they are held (resident.ts). */
  readonly residents = new Residents();
  /** Comments whose stored counts lag the votes in memory. */
  readonly countsDirty = new Set<string>();
  flushTimer: NodeJS.Timeout | undefined;

  // Read caches. Per-comment JSON is checked against the document and poll it was made from.
  readonly #json = new Map<string, { doc: CommentDoc; poll: PollView | undefined; json: string }>();
  /** Replaced whenever any comment changes: caches derived from the comments key on it. */
  #version: object = {};
  /** Serialised list answers, by key; also published as a view, which `onAnswersDropped` clears. */
  readonly answers = new Map<string, Buffer>();
  readonly #onAnswersDropped: () => void;

  constructor(tenantId: string, urlId: string, onAnswersDropped: () => void) {
    this.tenantId = tenantId;
    this.urlId = urlId;
    this.votes = new VoteIndex(tenantId, urlId);
    this.#onAnswersDropped = onAnswersDropped;
    this.comments.onChange = () => {
      this.#version = {};
    };
  }

  /** An object replaced whenever any comment of the page changes. */
  version(): object {
    return this.#version;
  }

  /** Forgets everything held (before a reload, or after the page moved away). */
  clear(): void {
    this.page = null;
    this.comments.clear();
    this.votes.clear();
    this.flags.clear();
    this.clearReacts();
    this.polls.clear();
    this.countsDirty.clear();
    this.residents.clear();
    this.#json.clear();
    this.restructure();
  }

  /**
   * Holds comments read from storage, in their compact form. A batch is made compact before
   * any of it is indexed: measured, that leaves about 850 bytes less per comment on the heap
   * than indexing each as it is made.
   */
  holdAll(docs: readonly CommentDoc[]): void {
    const compact = docs.map((doc) => this.residents.comment(doc));
    for (const doc of compact) this.comments.set(doc._id, doc);
  }

  /** Holds a like or reaction, counting it. */
  addReact(doc: ReactDoc): void {
    if (this.reacts.has(doc._id)) return;
    this.reacts.set(doc._id, doc);
    if (doc.kind === REACT_KINDS.like) this.likeCount++;
    else this.reactCounts.set(doc.reactId, (this.reactCounts.get(doc.reactId) ?? 0) + 1);
  }

  /** Lets a like or reaction go; the remaining count of its kind (and reaction id). */
  removeReact(id: string): number {
    const doc = this.reacts.get(id);
    if (doc === undefined) return 0;
    this.reacts.delete(id);
    if (doc.kind === REACT_KINDS.like) return --this.likeCount;
    const left = (this.reactCounts.get(doc.reactId) ?? 1) - 1;
    if (left === 0) this.reactCounts.delete(doc.reactId);
    else this.reactCounts.set(doc.reactId, left);
    return left;
  }

  /** Lets every like and reaction go. */
  clearReacts(): void {
    this.reacts.clear();
    this.likeCount = 0;
    this.reactCounts.clear();
  }

  /** The API shape of a comment of this page, with its poll. */
  view(doc: CommentDoc): Record<string, unknown> {
    return commentView(doc, this.polls.get(doc._id));
  }

  /** Visible comments and visible top-level comments: the page record's calculated counts. */
  counts(): { commentCount: number; rootCommentCount: number } {
    const index = this.comments.index;
    return { commentCount: index.commentCount, rootCommentCount: index.rootCommentCount };
  }

  /** The comment and every reply under it, parents before replies. */
  subtree(rootId: string): string[] {
    const index = this.comments.index;
    const out = [rootId];
    for (let i = 0; i < out.length; i++) for (const child of index.replies(out[i]!)) out.push(child);
    return out;
  }

  /** Forgets a comment's cached JSON (it left the page). */
  forget(id: string): void {
    this.#json.delete(id);
  }

  /** One comment changed, but not its visibility, date or level (the indexes moved it already). */
  touch(id: string): void {
    this.#json.delete(id);
    this.#version = {};
    this.dropAnswers(id);
  }

  /** Called whenever what readers see may have changed, with the comment when one alone did. */
  onChange: ((id?: string) => void) | undefined;

  /** Forgets the ready list answers (a vote or comment changed what they show), and their view. */
  dropAnswers(id?: string): void {
    this.onChange?.(id);
    if (this.answers.size === 0) return;
    this.answers.clear();
    this.#onAnswersDropped();
  }

  /** The set of visible comments, their dates or levels changed (the indexes follow by themselves). */
  restructure(): void {
    this.#version = {};
    this.dropAnswers();
  }

  /** What listing reads, over the indexes and caches. */
  source(): ListSource {
    const index = this.comments.index;
    return {
      doc: (id) => this.comments.get(id),
      sorted: (direction) => index.sorted(direction),
      children: (parentId, direction) => index.children(parentId, direction),
      json: (id) => {
        const doc = this.comments.get(id)!;
        const poll = this.polls.get(id);
        const hit = this.#json.get(id);
        if (hit !== undefined && hit.doc === doc && hit.poll === poll) return hit.json;
        const json = JSON.stringify(this.view(doc));
        this.#json.set(id, { doc, poll, json });
        return json;
      },
    };
  }
}
