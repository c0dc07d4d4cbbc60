import { Actor, type Handlers } from '../../engine/actor.js';
import { clock, isoTime } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { newId } from '../../engine/ids.js';
import { log } from '../../engine/log.js';
import { DuplicateKeyError } from '../../storage/errors.js';
import type { Doc, WriteOp } from '../../storage/store.js';
import { HashTagKind } from '../hashtag/protocol.js';
import { accessChanged, pageTopic, tenantTopic } from '../live/live-events.js';
import { createPoll, POLL_COLLECTIONS, type PollDoc, type PollView, pollView } from '../poll/poll-model.js';
import { PollKind, pollActorId } from '../poll/protocol.js';
import type { Settings } from '../tenant/widget-config.js';
import { UserKind, userActorId, UsernameKind, usernameActorId } from '../user/protocol.js';
import { authorKeyOf, changedComment, COMMENTS, copyComment, type CommentDoc, commentView, isVisible } from './comment-doc.js';
import { checkDate, checkEmail, checkLength, checkName, checkText, commentHashTags, prepareText, refuseCalculated } from './comment-rules.js';
import { COMMENT_FLAGS, type FlagDoc, flagId } from './flag-doc.js';
import { comparator, listJson, type ListSource, type SortDirection, type Viewer } from './listing.js';
import { commentEvent, type CommentEventType, pageReactEvent, threadStateEvent, voteEvent } from './page-events.js';
import { PAGES, type PageDoc } from './page-doc.js';
import {
  actorKey,
  type CommentChanges,
  type CreatedComment,
  type NewCommentInput,
  NotOnThisPage,
  PAGE_VIEWS,
  PageKind,
  type PageProtocol,
  type ReactState,
  type SessionUser,
  type VoteLists,
} from './protocol.js';
import { PAGE_REACTS, REACT_KINDS, type ReactDoc, reactDocId } from './react-doc.js';
import { sanitizeHtml } from './render.js';
import { maskProfanity } from './profanity.js';
import { judgeSpam, repeatKey } from './spam.js';
import { PENDING_COUNTS, type PendingCountsDoc } from './pending-counts.js';
import { isApplied, publicVote, pubSubVote, VOTE_KINDS, type VoteDoc, VOTES } from './vote-doc.js';
import { VoteIndex } from './vote-index.js';

/** Serialised answers kept per page; the oldest goes first. */
const ANSWER_CACHE_SIZE = 32;
/**
 * How long a comment's stored vote counts may lag its votes. The votes are the durable truth
 * (counts are recomputed from them at activation), so a hot comment's document is rewritten
 * at most this often instead of in every batch. Meanwhile the page is marked in storage (see
 * pending-counts.ts), so that reads from storage can have the counts written first.
 */
const COUNTS_FLUSH_MS = 250;

/** PATCH fields copied as given (their types are checked by the route's schema). */
const PLAIN_FIELDS = [
  'url',
  'pageTitle',
  'commenterLink',
  'avatarSrc',
  'localDateString',
  'localDateHours',
  'expireAt',
  'verified',
  'verifiedDate',
  'notificationSentForParent',
  'reviewed',
  'externalId',
  'externalParentId',
  'isSpam',
  'approved',
  'isDeleted',
  'isDeletedUser',
  'isByAdmin',
  'isByModerator',
  'displayLabel',
  'meta',
  'moderationGroupIds',
  'feedbackIds',
] as const satisfies readonly (keyof CommentDoc)[];

/** PATCH fields whose null means false. */
const NULLABLE_FLAGS = ['isPinned', 'isLocked'] as const satisfies readonly (keyof CommentDoc)[];

function splitId(id: string): [tenantId: string, urlId: string] {
  const colon = id.indexOf(':');
  return [id.slice(0, colon), id.slice(colon + 1)];
}

/**
 * Everything that happens on one page: its comments, their votes and flags, the page's
 * reactions and its record (title, counts). State lives in memory, loaded once per activation;
 * mutations apply at once and are written in batches; reads are answered from memory, and the
 * serialised answers are kept until the page next changes.
 *
 * A message naming a comment or vote this page does not hold checks storage (after making its
 * own writes durable): if another page moved it here, the page reloads and carries on; if not,
 * it throws `NotOnThisPage` and the caller looks the id up again.
 */
export class PageActor extends Actor<PageProtocol> {
  #tenantId = '';
  #urlId = '';
  #page: PageDoc | null = null;
  readonly #comments = new Map<string, CommentDoc>();
  readonly #votes = new VoteIndex(...splitId(this.id));
  readonly #flags = new Map<string, FlagDoc>();
  readonly #reacts = new Map<string, ReactDoc>();
  readonly #polls = new Map<string, PollView>();
  /** Comments whose stored counts lag the votes in memory. */
  readonly #countsDirty = new Set<string>();
  #flushTimer: NodeJS.Timeout | undefined;

  // Read caches, dropped as the state they derive from changes.
  readonly #json = new Map<string, string>();
  readonly #sorted = new Map<SortDirection, string[]>();
  readonly #childIndex = new Map<SortDirection, Map<string | null, string[]>>();
  readonly #answers = new Map<string, Buffer>();

  override async onStart(): Promise<void> {
    [this.#tenantId, this.#urlId] = splitId(this.id);
    await this.#load();
  }

  async #load(): Promise<void> {
    const page = { tenantId: this.#tenantId, urlId: this.#urlId };
    const [pages, comments, votes, flags, reacts, polls] = await Promise.all([
      this.store.find<PageDoc>(PAGES, page),
      this.store.find<CommentDoc>(COMMENTS, page),
      this.store.find<VoteDoc>(VOTES, page),
      this.store.find<FlagDoc>(COMMENT_FLAGS, page),
      this.store.find<ReactDoc>(PAGE_REACTS, page),
      this.store.find<PollDoc>(POLL_COLLECTIONS.polls, page),
    ]);
    this.#page = pages[0] ?? null;
    this.#comments.clear();
    this.#votes.clear();
    this.#flags.clear();
    this.#reacts.clear();
    this.#polls.clear();
    for (const doc of comments) this.#comments.set(doc._id, doc);
    for (const vote of votes) this.#votes.add(vote);
    for (const flag of flags) this.#flags.set(flag._id, flag);
    for (const react of reacts) this.#reacts.set(react._id, react);
    for (const poll of polls) if (this.#comments.has(poll._id)) this.#polls.set(poll._id, pollView(poll));
    this.#countsDirty.clear();
    this.#recount();
    // A poll whose move to this page is not yet recorded on the poll itself.
    for (const doc of comments) {
      if (doc.hasPoll && !this.#polls.has(doc._id)) {
        const poll = await this.store.get<PollDoc>(POLL_COLLECTIONS.polls, doc._id);
        if (poll !== undefined && poll.tenantId === this.#tenantId) this.#polls.set(doc._id, pollView(poll));
      }
    }
    this.#restructure();
  }

  override onStop(): void {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
  }

  readonly handlers: Handlers<PageProtocol> = {
    flushCounts: () => {
      clearTimeout(this.#flushTimer);
      this.#flushTimer = undefined;
      for (const id of this.#countsDirty) {
        const doc = this.#comments.get(id);
        if (doc !== undefined) this.put(COMMENTS, doc);
      }
      this.#countsDirty.clear();
      this.remove(PENDING_COUNTS, this.id);
      return null;
    },

    pollChanged: ({ commentId, poll }) => {
      const doc = this.#comments.get(commentId);
      if (doc === undefined) return null;
      if (poll === null) this.#polls.delete(commentId);
      else this.#polls.set(commentId, poll);
      if (doc.hasPoll !== (poll !== null)) this.#save(changedComment(doc, { hasPoll: poll !== null }));
      else this.#touch(commentId);
      return null;
    },

    list: ({ key, query, viewer, tail }) => {
      const hit = this.#answers.get(key);
      if (hit !== undefined) return hit;
      const source = this.#source();
      let view: Viewer | undefined;
      if (viewer !== null) {
        const voterKey = viewer.voterKey;
        view = {
          tags: voterKey !== null,
          blocked: new Set(viewer.blocked),
          voteOn: (commentId) => {
            if (voterKey === null) return undefined;
            const vote = this.#votes.held(commentId, voterKey);
            return vote === undefined ? undefined : { id: vote.id, direction: vote.direction };
          },
        };
      }
      const json = Buffer.from(`{"status":"success","comments":${listJson(source, query, view)}${tail}}`);
      if (this.#answers.size >= ANSWER_CACHE_SIZE) {
        const oldest = this.#answers.keys().next().value!;
        this.#answers.delete(oldest);
        this.deleteView(PAGE_VIEWS.answers, oldest);
      }
      this.#answers.set(key, json);
      // Readers get it without a message once everything it shows is durable.
      this.setView(PAGE_VIEWS.answers, json, key);
      return json;
    },

    getComment: async ({ commentId }) => {
      const doc = await this.#own(commentId);
      return this.#view(doc);
    },

    createComment: async ({ input, settings, isLive, doSpamCheck }) => {
      if (settings.readonly || this.#page?.isClosed) throw new ApiError('page-readonly');
      if (input.parentId === null && settings.noNewRootComments) throw new ApiError('no-new-root-comments');
      if (!settings.allowAnon && input.userId === null && input.commenterEmail === null) {
        throw new ApiError('login-required', 'This site does not take anonymous comments: give a userId or commenterEmail.');
      }
      checkLength(input.comment, settings);
      if (input.parentId !== null && !this.#comments.has(input.parentId)) {
        throw new ApiError('invalid-parent-id', `The parent comment ${input.parentId} is not a comment of this page.`);
      }
      const now = clock.now();
      const id = newId(now);
      let poll: PollDoc | null = null;
      if (input.poll !== null) {
        if (settings.disablePolls) throw new ApiError('polls-disabled');
        poll = createPoll(input.poll, { tenantId: this.#tenantId, commentId: id, urlId: this.#urlId, nowMs: now, newOptionId: () => newId(clock.now()) });
      }
      const text = prepareText(input.comment, settings);
      const tags = commentHashTags(this.#tenantId, text.comment, input.hashTags);
      const spam = doSpamCheck ? judgeSpam(text.comment, settings.spamRules, this.#isRepeat(input, text.comment)) : undefined;

      // Last, because it can create a user: nothing above may refuse after it.
      let user: SessionUser | null = null;
      let userId = input.userId;
      if (userId === null && input.commenterEmail !== null) {
        const claimed = await this.system.ask(UsernameKind, usernameActorId(this.#tenantId, input.commenterName), 'claim', {
          username: input.commenterName,
          email: input.commenterEmail,
          avatarSrc: input.avatarSrc,
        });
        userId = claimed.user._id;
        user = { id: userId, username: claimed.user.username, email: claimed.user.email, avatarSrc: claimed.user.avatarSrc, authorized: false, isAnonSession: false };
      } else if (userId !== null) {
        const known = await this.system.ask(UserKind, userActorId(this.#tenantId, userId), 'get', null);
        if (known !== null) user = { id: known._id, username: known.username, email: known.email, avatarSrc: known.avatarSrc, authorized: true, isAnonSession: false };
      }

      const nowIso = new Date(now).toISOString();
      const verified = input.verified ?? false;
      const doc: CommentDoc = {
        _id: id,
        tenantId: this.#tenantId,
        urlId: this.#urlId,
        url: input.url,
        pageTitle: input.pageTitle,
        parentId: input.parentId,
        comment: text.comment,
        commentHTML: text.rendered.html,
        commenterName: input.commenterName,
        commenterEmail: input.commenterEmail,
        commenterLink: input.commenterLink,
        userId,
        anonUserId: null,
        avatarSrc: input.avatarSrc,
        date: input.date === null ? nowIso : checkDate(input.date),
        localDateString: input.localDateString,
        localDateHours: input.localDateHours,
        votes: 0,
        votesUp: 0,
        votesDown: 0,
        flagCount: 0,
        reviewed: input.reviewed ?? false,
        approved: spam?.isSpam ? false : (input.approved ?? true),
        isSpam: spam?.isSpam ?? false,
        permNotSpam: spam?.permNotSpam ?? false,
        isLocked: false,
        isPinned: input.isPinned ?? false,
        isByAdmin: false,
        isByModerator: false,
        isBannedUser: false,
        isDeleted: false,
        isDeletedUser: false,
        locale: input.locale,
        verified,
        verifiedDate: verified ? nowIso : null,
        displayLabel: null,
        hasLinks: text.rendered.hasLinks,
        hasCode: text.rendered.hasCode,
        hasImages: text.rendered.hasImages,
        badges: null,
        mentions: [...input.mentions],
        hashTags: tags.hashTags,
        hashTagKeys: tags.keys,
        authorKey: authorKeyOf(userId, input.commenterEmail),
        notificationSentForParent: false,
        expireAt: null,
        meta: input.meta,
        moderationGroupIds: input.moderationGroupIds === null ? null : [...input.moderationGroupIds],
        feedbackIds: [...input.feedbackIds],
        externalId: null,
        externalParentId: null,
        rating: input.rating,
        domain: input.domain,
        hasPoll: poll !== null,
      };
      this.insert(COMMENTS, doc);
      this.#comments.set(id, doc);
      if (poll !== null) {
        // Same batch as the comment: both are durable, or neither.
        this.insert(POLL_COLLECTIONS.polls, poll);
        this.#polls.set(id, pollView(poll));
      }
      this.#restructure();
      this.#syncPage({ title: input.pageTitle, url: input.url });
      if (tags.keys.length > 0 && !settings.disableAutoHashTagCreation) {
        this.system.tell(HashTagKind, this.#tenantId, 'ensure', { tags: tags.hashTags.map((t) => t.tag) });
      }
      const view = this.#view(doc);
      if (isLive && isVisible(doc)) this.#publish(commentEvent('new-comment', view));
      const created: CreatedComment = { comment: view, user };
      return created;
    },

    patchComment: async ({ commentId, changes, settings, isLive, userIdForEmail }) => {
      const current = await this.#own(commentId);
      const unlocking = 'isLocked' in changes && !changes['isLocked'];
      const onlyLock = Object.keys(changes).length === 1 && 'isLocked' in changes;
      if (current.isLocked && !unlocking && !onlyLock) throw new ApiError('locked');
      const next = this.#applyChanges(current, changes, settings, userIdForEmail);
      const target = typeof changes['urlId'] === 'string' && changes['urlId'] !== this.#urlId ? changes['urlId'] : null;
      if (target !== null) return this.#moveOut(next, target, isLive);

      this.#save(next);
      const structural =
        next.approved !== current.approved || next.isSpam !== current.isSpam || next.parentId !== current.parentId || next.date !== current.date;
      if (structural) {
        this.#restructure();
        this.#syncPage(null);
      }
      const view = this.#view(next);
      const lockChanged = next.isLocked !== current.isLocked;
      if (isLive) {
        if (lockChanged) this.#publish(threadStateEvent(view, next.isLocked));
        const others = Object.keys(changes).some((k) => k !== 'isLocked');
        if (others) {
          const type = visibilityEvent(isVisible(current), isVisible(next));
          if (type !== null) this.#publish(commentEvent(type, type === 'deleted-comment' ? { ...view, hidden: true } : view));
        }
      }
      if (lockChanged && next.hasPoll) {
        await this.commitNow([]);
        await this.#tellPoll(next._id, { isLocked: next.isLocked, urlId: this.#urlId, deleted: false });
      }
      return { comment: view, moved: null };
    },

    deleteComment: async ({ commentId, isLive }) => {
      const current = await this.#own(commentId);
      if (current.isLocked) throw new ApiError('locked');
      const ids = this.#subtree(commentId);
      const withPolls: string[] = [];
      for (const id of ids) {
        const doc = this.#comments.get(id)!;
        if (doc.hasPoll) withPolls.push(id);
        if (isLive && isVisible(doc)) this.#publish(commentEvent('deleted-comment', this.#view(doc)));
        this.#dropComment(id, (coll, stored) => this.remove(coll, stored._id));
      }
      this.#restructure();
      this.#syncPage(null);
      if (withPolls.length > 0) {
        await this.commitNow([]);
        for (const id of withPolls) await this.#tellPoll(id, { isLocked: false, urlId: this.#urlId, deleted: true });
      }
      return { deletedCount: ids.length };
    },

    adopt: async ({ commentIds, isLive }) => {
      await this.commitNow([]);
      await this.#load();
      const first = this.#comments.get(commentIds[0] ?? '');
      this.#syncPage(first === undefined ? null : { title: first.pageTitle, url: first.url });
      if (isLive) {
        for (const id of commentIds) {
          const doc = this.#comments.get(id);
          if (doc !== undefined && isVisible(doc)) this.#publish(commentEvent('new-comment', this.#view(doc)));
        }
      }
      return null;
    },

    flag: async ({ commentId, by, settings }) => {
      const current = await this.#own(commentId);
      const id = flagId(commentId, actorKey(by));
      if (this.#flags.has(id)) return { wasUnapproved: false };
      const flag: FlagDoc = {
        _id: id,
        tenantId: this.#tenantId,
        urlId: this.#urlId,
        commentId,
        userId: by.userId,
        anonUserId: by.userId ? null : by.anonUserId,
        createdAt: new Date(clock.now()).toISOString(),
      };
      this.put(COMMENT_FLAGS, flag);
      this.#flags.set(id, flag);
      const flagCount = current.flagCount + 1;
      const threshold = settings.flagHideThreshold;
      const hide = threshold !== null && flagCount >= threshold && current.approved;
      const next = changedComment(current, { flagCount, approved: hide ? false : current.approved });
      this.#save(next);
      if (hide) {
        this.#restructure();
        this.#syncPage(null);
        if (isVisible(current)) this.#publish(commentEvent('deleted-comment', { ...this.#view(next), hidden: true }));
      }
      return { wasUnapproved: hide };
    },

    unflag: async ({ commentId, by }) => {
      const current = await this.#own(commentId);
      const id = flagId(commentId, actorKey(by));
      if (!this.#flags.has(id)) return null;
      this.remove(COMMENT_FLAGS, id);
      this.#flags.delete(id);
      // Never re-approves: only a moderator does that.
      this.#save(changedComment(current, { flagCount: Math.max(0, current.flagCount - 1) }));
      return null;
    },

    author: async ({ commentId }) => (await this.#own(commentId)).authorKey,

    vote: (payload) => {
      // The common case, a comment in memory, needs no await.
      const found = this.#comments.get(payload.commentId);
      return found !== undefined ? this.#vote(found, payload) : this.#own(payload.commentId).then((doc) => this.#vote(doc, payload));
    },

    deleteVote: async ({ voteId }) => {
      const vote = await this.#ownVote(voteId);
      const current = this.#comments.get(vote.commentId);
      this.remove(VOTES, vote._id);
      this.#votes.remove(vote);
      if (current !== undefined) {
        const doc = withVote(current, vote, -1);
        this.#countVote(doc);
        this.#publish(voteEvent('deleted-vote', pubSubVote(vote), countsOf(doc)));
      }
      return { wasPendingVote: !isApplied(vote) };
    },

    listVotes: ({ voterKey }) => {
      const lists: VoteLists = { appliedAuthorizedVotes: [], appliedAnonymousVotes: [], pendingVotes: [] };
      const votes = [...this.#votes.values()].filter((v) => voterKey === null || v.voterKey === voterKey);
      votes.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a._id < b._id ? -1 : 1));
      for (const vote of votes) {
        const list =
          vote.kind === VOTE_KINDS.pending ? lists.pendingVotes : vote.kind === VOTE_KINDS.anonymous ? lists.appliedAnonymousVotes : lists.appliedAuthorizedVotes;
        list.push(publicVote(vote));
      }
      return lists;
    },

    getPage: () => this.#page,

    createPage: ({ url, title, accessibleByGroupIds, isClosed }) => {
      if (this.#page !== null) throw new ApiError('page-exists', `A page with urlId ${this.#urlId} already exists.`);
      this.#syncPage({ title, url });
      const page = this.#page as PageDoc | null;
      if (page === null) throw new ApiError('internal-error', 'page not created');
      if (accessibleByGroupIds !== null || isClosed !== null) {
        this.#putPage({ ...page, accessibleByGroupIds: accessibleByGroupIds === null ? page.accessibleByGroupIds : [...accessibleByGroupIds], isClosed: isClosed ?? page.isClosed });
      }
      if (accessibleByGroupIds !== null && accessibleByGroupIds.length > 0) this.#accessChanged();
      return this.#page!;
    },

    patchPage: ({ pageId, changes }) => {
      const page = this.#ownPage(pageId);
      const next: PageDoc = { ...page, updatedAt: new Date(clock.now()).toISOString() };
      if (changes.title !== undefined) next.title = changes.title;
      if (changes.url !== undefined) next.url = changes.url;
      if (changes.isClosed !== undefined) next.isClosed = changes.isClosed;
      if (changes.accessibleByGroupIds !== undefined) next.accessibleByGroupIds = [...changes.accessibleByGroupIds];
      this.#putPage(next);
      if (changes.accessibleByGroupIds !== undefined) this.#accessChanged();
      let commentsUpdated = 0;
      if (changes.title !== undefined || changes.url !== undefined) {
        for (const doc of [...this.#comments.values()]) {
          const pageTitle = changes.title ?? doc.pageTitle;
          const url = changes.url ?? doc.url;
          if (pageTitle === doc.pageTitle && url === doc.url) continue;
          this.#save(changedComment(doc, { pageTitle, url }));
          commentsUpdated++;
        }
      }
      return { page: next, commentsUpdated };
    },

    deletePage: ({ pageId }) => {
      const page = this.#ownPage(pageId);
      this.remove(PAGES, page._id);
      this.#page = null;
      // Likes and reactions belong to the page record; comments stay, and widget use recreates it.
      for (const id of this.#reacts.keys()) this.remove(PAGE_REACTS, id);
      this.#reacts.clear();
      return null;
    },

    renamePage: async ({ pageId, urlId: target }) => {
      const page = this.#ownPage(pageId);
      const nowIso = new Date(clock.now()).toISOString();
      const ops: WriteOp[] = [{ op: 'put', collection: PAGES, doc: { ...page, urlId: target, updatedAt: nowIso } }];
      for (const doc of this.#comments.values()) ops.push({ op: 'put', collection: COMMENTS, doc: changedComment(doc, { urlId: target }) });
      for (const vote of this.#votes.values()) ops.push({ op: 'put', collection: VOTES, doc: { ...vote, urlId: target } });
      for (const flag of this.#flags.values()) ops.push({ op: 'put', collection: COMMENT_FLAGS, doc: { ...flag, urlId: target } });
      for (const react of this.#reacts.values()) {
        ops.push({ op: 'delete', collection: PAGE_REACTS, id: react._id });
        const id = reactDocId(this.#tenantId, target, react.kind, react.reactId, react.userKey);
        ops.push({ op: 'put', collection: PAGE_REACTS, doc: { ...react, _id: id, urlId: target } });
      }
      try {
        // Alone and at once: a page record already at the target fails the batch cleanly.
        await this.commitNow(ops);
      } catch (err) {
        if (err instanceof DuplicateKeyError) throw new ApiError('page-exists', `A page with urlId ${target} already exists.`);
        throw err;
      }
      const commentIds = [...this.#comments.keys()];
      const polls = [...this.#comments.values()].filter((d) => d.hasPoll).map((d) => ({ id: d._id, isLocked: d.isLocked }));
      this.#page = null;
      this.#comments.clear();
      this.#votes.clear();
      this.#flags.clear();
      this.#reacts.clear();
      this.#polls.clear();
      this.#restructure();
      for (const p of polls) await this.#tellPoll(p.id, { isLocked: p.isLocked, urlId: target, deleted: false });
      return { commentIds };
    },

    react: ({ kind, reactId, user, remove, title, url }) => {
      const id = reactDocId(this.#tenantId, this.#urlId, kind, reactId, user.key);
      const existing = this.#reacts.get(id);
      const like = kind === REACT_KINDS.like;
      if (!remove) {
        if (existing !== undefined) return { code: like ? 'already-liked' : 'already-reacted' };
        const doc: ReactDoc = {
          _id: id,
          tenantId: this.#tenantId,
          urlId: this.#urlId,
          kind,
          reactId,
          userKey: user.key,
          userId: user.userId,
          createdAt: new Date(clock.now()).toISOString(),
        };
        this.put(PAGE_REACTS, doc);
        this.#reacts.set(id, doc);
        this.#syncPage({ title, url });
      } else {
        if (existing === undefined) return { code: like ? 'not-liked' : 'no-react' };
        this.remove(PAGE_REACTS, id);
        this.#reacts.delete(id);
      }
      const totals = this.#reactTotals();
      this.#publish(pageReactEvent(this.#urlId, totals.likeCount, totals.counts));
      return { code: null };
    },

    reactState: ({ userKey, kind, reactId, recent }) => {
      const totals = this.#reactTotals();
      let didLike = false;
      const reactedIds: string[] = [];
      const matching: ReactDoc[] = [];
      for (const doc of this.#reacts.values()) {
        if (doc.userKey === userKey) {
          if (doc.kind === REACT_KINDS.like) didLike = true;
          else reactedIds.push(doc.reactId);
        }
        if (doc.kind === kind && (reactId === null || doc.reactId === reactId)) matching.push(doc);
      }
      matching.sort((a, b) => (a.createdAt > b.createdAt ? -1 : a.createdAt < b.createdAt ? 1 : a._id > b._id ? -1 : 1));
      const state: ReactState = {
        likeCount: totals.likeCount,
        didLike,
        counts: totals.counts,
        reactedIds: reactedIds.sort(),
        commentCount: this.#page?.commentCount ?? this.#counts().commentCount,
        pageExists: this.#page !== null,
        accessibleByGroupIds: this.#page?.accessibleByGroupIds ?? [],
        recent: matching
          .slice(0, recent)
          .filter((d) => d.userId !== null)
          .map((d) => ({ userId: d.userId!, reactId: d.reactId })),
      };
      return state;
    },
  };

  // ---- comments -------------------------------------------------------------------------

  /** The comment, if this page holds it (adopting it first if another page moved it here). */
  async #own(commentId: string): Promise<CommentDoc> {
    return this.#comments.get(commentId) ?? this.#adopt<CommentDoc>(COMMENTS, commentId, () => this.#comments.get(commentId));
  }

  /**
   * The vote, if this page holds it (adopting it first if its comment moved here). Votes are
   * held by comment and voter: the id's stored document says which, and memory says whether
   * that vote is still the voter's (a vote whose removal is not yet durable is still stored).
   */
  async #ownVote(voteId: string): Promise<VoteDoc> {
    const held = (stored: VoteDoc | undefined) =>
      stored !== undefined && stored.tenantId === this.#tenantId ? this.#votes.withId(stored.commentId, stored.voterKey, voteId) : undefined;
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
    if (stored !== undefined && stored.tenantId === this.#tenantId && stored.urlId === this.#urlId) {
      const found = find(stored) ?? (await this.#load(), find(stored));
      if (found !== undefined) return found;
    }
    throw new NotOnThisPage(id);
  }

  #ownPage(pageId: string): PageDoc {
    if (this.#page === null || this.#page._id !== pageId) throw new NotOnThisPage(pageId);
    return this.#page;
  }

  #applyChanges(current: CommentDoc, changes: CommentChanges, settings: Settings, userIdForEmail: string | null): CommentDoc {
    refuseCalculated(changes);
    const next = copyComment(current);
    const text = changes['comment'];
    const html = changes['commentHTML'];
    if (typeof text === 'string') {
      checkText(text);
      checkLength(text, settings);
      const prepared = prepareText(text, settings, typeof html === 'string' ? html : undefined);
      const tags = commentHashTags(this.#tenantId, prepared.comment, current.hashTags);
      Object.assign(next, {
        comment: prepared.comment,
        commentHTML: prepared.rendered.html,
        hasLinks: prepared.rendered.hasLinks,
        hasCode: prepared.rendered.hasCode,
        hasImages: prepared.rendered.hasImages,
        hashTags: tags.hashTags,
        hashTagKeys: tags.keys,
      });
    } else if (typeof html === 'string') {
      const rendered = sanitizeHtml(settings.enableProfanityFilter ? maskProfanity(html) : html);
      Object.assign(next, { commentHTML: rendered.html, hasLinks: rendered.hasLinks, hasCode: rendered.hasCode, hasImages: rendered.hasImages });
    }
    if (typeof changes['commenterName'] === 'string') next.commenterName = checkName(changes['commenterName']);
    if ('commenterEmail' in changes) {
      const email = checkEmail(changes['commenterEmail'] as string | null);
      if (!('userId' in changes) && email !== null && email.toLowerCase() !== current.commenterEmail?.toLowerCase()) {
        if (userIdForEmail === null) {
          throw new ApiError('invalid-user', 'No user of this site has that email: send the userId together with a new commenterEmail.');
        }
        next.userId = userIdForEmail;
      }
      next.commenterEmail = email;
    }
    if ('userId' in changes) next.userId = (changes['userId'] as string | null) || null;
    next.authorKey = authorKeyOf(next.userId, next.commenterEmail);
    if ('parentId' in changes && changes['parentId'] !== current.parentId && typeof changes['urlId'] !== 'string') {
      next.parentId = this.#checkParent(current._id, changes['parentId'] as string | null);
    }
    if (typeof changes['date'] === 'number') next.date = checkDate(changes['date']);
    const target = next as unknown as Record<string, unknown>;
    for (const field of PLAIN_FIELDS) if (field in changes) target[field] = changes[field];
    for (const field of NULLABLE_FLAGS) if (field in changes) target[field] = changes[field] === true;
    return next;
  }

  #checkParent(commentId: string, parentId: string | null): string | null {
    if (parentId === null) return null;
    if (!this.#comments.has(parentId)) throw new ApiError('invalid-parent-id', `The parent comment ${parentId} is not a comment of this page.`);
    if (this.#subtree(commentId).includes(parentId)) throw new ApiError('invalid-parent-id', 'A comment cannot become a reply to itself or to one of its replies.');
    return parentId;
  }

  /**
   * Moves a comment and its replies to another page: one durable batch rewrites them (and their
   * votes and flags) with the new urlId; the caller then has the other page adopt them. The
   * moved comment becomes a top-level comment there.
   */
  async #moveOut(next: CommentDoc, target: string, isLive: boolean): Promise<{ comment: Record<string, unknown>; moved: { urlId: string; commentIds: string[] } }> {
    const ids = this.#subtree(next._id);
    const polls: { id: string; isLocked: boolean }[] = [];
    let top: CommentDoc = next;
    for (const id of ids) {
      const doc = id === next._id ? next : this.#comments.get(id)!;
      const moved = changedComment(doc, { urlId: target, parentId: id === next._id ? null : doc.parentId });
      if (id === next._id) top = moved;
      if (doc.hasPoll) polls.push({ id, isLocked: moved.isLocked });
      if (isLive && isVisible(doc)) this.#publish(commentEvent('deleted-comment', this.#view(doc)));
      this.put(COMMENTS, moved);
      this.#dropComment(id, (coll, stored) => {
        if (coll !== COMMENTS) this.put(coll, { ...stored, urlId: target });
      });
    }
    const poll = this.#polls.get(next._id);
    for (const id of ids) this.#polls.delete(id);
    this.#restructure();
    this.#syncPage(null);
    if (polls.length > 0) {
      await this.commitNow([]);
      for (const p of polls) await this.#tellPoll(p.id, { isLocked: p.isLocked, urlId: target, deleted: false });
    }
    return { comment: commentView(top, poll), moved: { urlId: target, commentIds: ids } };
  }

  /**
   * Forgets a comment with its votes and flags, reporting each stored document through
   * `write` first (to delete it, or to rewrite it elsewhere).
   */
  #dropComment(id: string, write: (collection: string, stored: Doc) => void): void {
    for (const vote of this.#votes.onComment(id)) {
      write(VOTES, vote);
      this.#votes.remove(vote);
    }
    for (const [flagKey, flag] of [...this.#flags]) {
      if (flag.commentId !== id) continue;
      write(COMMENT_FLAGS, flag);
      this.#flags.delete(flagKey);
    }
    write(COMMENTS, this.#comments.get(id)!);
    this.#comments.delete(id);
    this.#polls.delete(id);
    this.#json.delete(id);
  }

  /** The comment and every reply under it, parents before replies. */
  #subtree(rootId: string): string[] {
    const byParent = new Map<string, string[]>();
    for (const doc of this.#comments.values()) {
      if (doc.parentId === null) continue;
      const list = byParent.get(doc.parentId);
      if (list === undefined) byParent.set(doc.parentId, [doc._id]);
      else list.push(doc._id);
    }
    const out = [rootId];
    for (let i = 0; i < out.length; i++) for (const child of byParent.get(out[i]!) ?? []) out.push(child);
    return out;
  }

  /** Whether the author (same user id, email, or anonymous name) already posted this text here. */
  #isRepeat(input: NewCommentInput, text: string): boolean {
    const key = repeatKey(text);
    const email = input.commenterEmail?.toLowerCase() ?? null;
    for (const doc of this.#comments.values()) {
      const sameAuthor =
        (input.userId !== null && doc.userId === input.userId) ||
        (email !== null && doc.commenterEmail?.toLowerCase() === email) ||
        (input.userId === null && email === null && doc.authorKey === null && doc.commenterName === input.commenterName);
      if (sameAuthor && repeatKey(doc.comment) === key) return true;
    }
    return false;
  }

  /** Replaces a comment's document in memory and storage. */
  #save(doc: CommentDoc): void {
    this.put(COMMENTS, doc);
    this.#comments.set(doc._id, doc);
    this.#countsDirty.delete(doc._id);
    this.#touch(doc._id);
  }

  /** Records the voter's vote on the comment, replacing one the other way; refuses a repeat. */
  #vote(current: CommentDoc, { commentId, by, direction }: PageProtocol['vote']['in']): PageProtocol['vote']['out'] {
    const voterKey = actorKey(by);
    const previous = this.#votes.of(commentId, voterKey);
    if (previous !== undefined && previous.direction === direction) {
      throw new ApiError('duplicate', `This user already voted ${direction > 0 ? 'up' : 'down'} on this comment.`);
    }
    let doc = current;
    if (previous !== undefined) {
      // A vote the other way replaces the earlier one.
      this.remove(VOTES, previous._id);
      this.#votes.remove(previous);
      doc = withVote(doc, previous, -1);
      this.#publish(voteEvent('deleted-vote', pubSubVote(previous), countsOf(doc)));
    }
    const now = clock.now();
    const vote: VoteDoc = {
      _id: newId(now),
      tenantId: this.#tenantId,
      urlId: this.#urlId,
      commentId,
      userId: by.userId,
      anonUserId: by.userId ? null : by.anonUserId,
      voterKey,
      direction,
      kind: VOTE_KINDS.authorized,
      createdAt: isoTime(now),
    };
    this.put(VOTES, vote);
    this.#votes.add(vote);
    doc = withVote(doc, vote, 1);
    this.#countVote(doc);
    this.#publish(voteEvent('new-vote', pubSubVote(vote), countsOf(doc)));
    return { voteId: vote._id };
  }

  /** New vote counts: in memory at once, in storage within `COUNTS_FLUSH_MS` (see there). */
  #countVote(doc: CommentDoc): void {
    this.#comments.set(doc._id, doc);
    this.#touch(doc._id);
    // Written with the window's first vote, so that it is durable before any count lags.
    if (this.#flushTimer === undefined) this.put(PENDING_COUNTS, { _id: this.id, tenantId: this.#tenantId, urlId: this.#urlId } satisfies PendingCountsDoc);
    this.#countsDirty.add(doc._id);
    this.#scheduleFlush();
  }

  #scheduleFlush(): void {
    if (this.#flushTimer !== undefined || this.#countsDirty.size === 0) return;
    this.#flushTimer = setTimeout(() => this.system.tell(PageKind, this.id, 'flushCounts', null), COUNTS_FLUSH_MS);
    this.#flushTimer.unref();
  }

  /** Makes every comment's counts those of its applied votes (a crash may have left them behind). */
  #recount(): void {
    const totals = this.#votes.totals();
    for (const doc of [...this.#comments.values()]) {
      const t = totals.get(doc._id) ?? { votes: 0, votesUp: 0, votesDown: 0 };
      if (doc.votes === t.votes && doc.votesUp === t.votesUp && doc.votesDown === t.votesDown) continue;
      this.#comments.set(doc._id, changedComment(doc, t));
      this.#countsDirty.add(doc._id);
    }
    this.#scheduleFlush();
  }

  #view(doc: CommentDoc): Record<string, unknown> {
    return commentView(doc, this.#polls.get(doc._id));
  }

  async #tellPoll(commentId: string, change: { isLocked: boolean; urlId: string; deleted: boolean }): Promise<void> {
    try {
      await this.system.ask(PollKind, pollActorId(this.#tenantId, commentId), 'commentChanged', change);
    } catch (err) {
      // The comment's change is already durable; the poll actor reads it again when it starts.
      log.warn('poll-comment-changed-failed', { tenantId: this.#tenantId, commentId, err });
    }
  }

  /** Has live channels check their readers of this page again, once its groups are durable. */
  #accessChanged(): void {
    this.publish(tenantTopic(this.#tenantId), accessChanged(this.#tenantId, this.#urlId));
  }

  #publish(event: Record<string, unknown> & { type: string }): void {
    this.publish(pageTopic(this.#tenantId, this.#urlId), event);
  }

  // ---- page record and reactions ---------------------------------------------------------

  #counts(): { commentCount: number; rootCommentCount: number } {
    let commentCount = 0;
    let rootCommentCount = 0;
    for (const doc of this.#comments.values()) {
      if (!isVisible(doc)) continue;
      commentCount++;
      if (doc.parentId === null) rootCommentCount++;
    }
    return { commentCount, rootCommentCount };
  }

  /**
   * Keeps the page record's counts right; with `create`, widget use also creates the record
   * when missing and takes its title (and url, if it has none).
   */
  #syncPage(create: { title: string | null; url: string | null } | null): void {
    const counts = this.#counts();
    const page = this.#page;
    const nowIso = new Date(clock.now()).toISOString();
    if (page === null) {
      if (create === null) return;
      this.#putPage({
        _id: newId(clock.now()),
        tenantId: this.#tenantId,
        urlId: this.#urlId,
        url: create.url,
        title: create.title ?? '',
        ...counts,
        isClosed: false,
        accessibleByGroupIds: [],
        createdAt: nowIso,
        updatedAt: nowIso,
      });
      return;
    }
    const title = create?.title ?? page.title;
    const url = page.url ?? create?.url ?? null;
    if (page.commentCount === counts.commentCount && page.rootCommentCount === counts.rootCommentCount && page.title === title && page.url === url) return;
    this.#putPage({ ...page, ...counts, title, url, updatedAt: nowIso });
  }

  #putPage(page: PageDoc): void {
    this.put(PAGES, page);
    this.#page = page;
  }

  #reactTotals(): { likeCount: number; counts: Record<string, number> } {
    let likeCount = 0;
    // Reaction ids are callers' words: "__proto__" must be a count like any other.
    const counts = Object.create(null) as Record<string, number>;
    for (const doc of this.#reacts.values()) {
      if (doc.kind === REACT_KINDS.like) likeCount++;
      else counts[doc.reactId] = (counts[doc.reactId] ?? 0) + 1;
    }
    return { likeCount, counts };
  }

  // ---- read caches -----------------------------------------------------------------------

  /** One comment changed, but not its visibility, date or level: only the vote order may move. */
  #touch(id: string): void {
    this.#json.delete(id);
    this.#dropAnswers();
    this.#sorted.delete('MR');
    this.#childIndex.delete('MR');
  }

  /** Forgets the ready list answers (a vote or comment changed what they show), and their view. */
  #dropAnswers(): void {
    if (this.#answers.size === 0) return;
    this.#answers.clear();
    this.clearView(PAGE_VIEWS.answers);
  }

  /** The set of visible comments, their dates or levels changed. */
  #restructure(): void {
    this.#json.clear();
    this.#dropAnswers();
    this.#sorted.clear();
    this.#childIndex.clear();
  }

  #source(): ListSource {
    return {
      doc: (id) => this.#comments.get(id),
      sorted: (direction) => {
        let ids = this.#sorted.get(direction);
        if (ids === undefined) {
          ids = [...this.#comments.values()].filter(isVisible).sort(comparator(direction)).map((d) => d._id);
          this.#sorted.set(direction, ids);
        }
        return ids;
      },
      children: (parentId, direction) => {
        let index = this.#childIndex.get(direction);
        if (index === undefined) {
          index = new Map();
          const docs = [...this.#comments.values()].filter(isVisible).sort(comparator(direction));
          for (const doc of docs) {
            const list = index.get(doc.parentId);
            if (list === undefined) index.set(doc.parentId, [doc._id]);
            else list.push(doc._id);
          }
          this.#childIndex.set(direction, index);
        }
        return index.get(parentId) ?? [];
      },
      json: (id) => {
        let json = this.#json.get(id);
        if (json === undefined) {
          json = JSON.stringify(this.#view(this.#comments.get(id)!));
          this.#json.set(id, json);
        }
        return json;
      },
    };
  }
}

function visibilityEvent(before: boolean, after: boolean): CommentEventType | null {
  if (before && after) return 'updated-comment';
  if (before) return 'deleted-comment';
  if (after) return 'new-comment';
  return null;
}

/** The comment with one vote added (`sign` 1) or taken back (-1). Pending votes do not count. */
function withVote(doc: CommentDoc, vote: VoteDoc, sign: 1 | -1): CommentDoc {
  if (!isApplied(vote)) return doc;
  const up = vote.direction > 0 ? sign : 0;
  const down = vote.direction < 0 ? sign : 0;
  const next = copyComment(doc);
  next.votes = doc.votes + sign * vote.direction;
  next.votesUp = doc.votesUp + up;
  next.votesDown = doc.votesDown + down;
  return next;
}

function countsOf(doc: CommentDoc): { commentId: string; votes: number; votesUp: number; votesDown: number } {
  return { commentId: doc._id, votes: doc.votes, votesUp: doc.votesUp, votesDown: doc.votesDown };
}

