import { Actor, type Handlers } from '../../engine/actor.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { newId, newSecret } from '../../engine/ids.js';
import { log } from '../../engine/log.js';
import { pageTopic } from '../live/live-events.js';
import { COMMENTS, type CommentDoc } from '../page/comment-doc.js';
import { PageKind, pageActorId } from '../page/protocol.js';
import { tenantSettings } from '../tenant/tenant-actor.js';
import { pollUpdateEvent } from './poll-events.js';
import {
  createPoll,
  hashAddress,
  POLL_COLLECTIONS as C,
  POLL_PRIVACY,
  type PollDoc,
  pollView,
  type PollVoteDoc,
  pollVoteView,
  publicPollVoteView,
} from './poll-model.js';
import { assertOption, castVote, isClosed, patchPoll, recount, replacePoll, retractVote, voteCounts } from './poll-rules.js';
import { PollKind, type PollProtocol } from './protocol.js';
import { SlidingWindowLimit } from '../../engine/sliding-window.js';
import { ANON_VOTE_RATE_LIMIT } from './vote-rate-limit.js';

/** Longer than any request waits: an announcement queued behind a burst of votes must not be dropped. */
const ANNOUNCE_TIMEOUT_MS = 120_000;

/** What the poll actor needs of its comment. */
interface CommentState {
  readonly urlId: string;
  readonly isLocked: boolean;
}

/** Voters are keyed apart by kind, so a user id never meets an equal anonymous id. */
function voterKey(vote: { userId: string | null; anonUserId: string | null }): string {
  return vote.userId !== null ? `u:${vote.userId}` : `a:${vote.anonUserId ?? ''}`;
}

function byAge(a: PollVoteDoc, b: PollVoteDoc): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return a._id < b._id ? -1 : a._id > b._id ? 1 : 0;
}

/**
 * One poll (`poll:<tenantId>:<commentId>`) and all its votes, in memory: every vote, move and
 * retraction of the poll passes through here one at a time, so counts and votes never
 * disagree, and each change writes the poll and the vote in one batch.
 *
 * The comment is the page actor's: this actor reads its durable state when it has no poll
 * (a comment created since may have brought one, and the page only reports changes of
 * comments that have a poll), and otherwise keeps `isLocked` and `urlId` current through
 * `commentChanged`.
 */
export class PollActor extends Actor<PollProtocol> {
  #tenantId = '';
  #commentId = '';
  #comment: CommentState | undefined;
  /** What the page last said about the comment: newer than its durable state may yet be. */
  #commentFromPage: CommentState | undefined;
  /** The page said the comment was deleted: nothing in storage can undo that. */
  #commentDeleted = false;
  #poll: PollDoc | undefined;
  /** This activation removed the poll: storage may not show it yet, so it is not re-read. */
  #removedPoll = false;
  /** Votes in order of creation (a move keeps a vote's place). */
  readonly #votes = new Map<string, PollVoteDoc>();
  readonly #byVoter = new Map<string, PollVoteDoc>();
  /** Stored votes that no longer count (found on loading), deleted with the next write. */
  #strays: string[] = [];
  /** Votes corrected on loading (their urlId), stored with the next write. */
  #owed: PollVoteDoc[] = [];
  /** Storage holds an older form of the poll than memory (repaired on loading). */
  #pollStale = false;
  readonly #limit = new SlidingWindowLimit(ANON_VOTE_RATE_LIMIT.votes, ANON_VOTE_RATE_LIMIT.windowMs);
  /** Tells this activation's announcements from those of an earlier, reset one. */
  readonly #activation = Symbol('poll-activation');
  /** An announcement is on its way and has not yet been delivered. */
  #announcing = false;
  /** A change was made that no announcement has yet picked up. */
  #changedSinceAnnounce = false;

  override async onStart(): Promise<void> {
    const colon = this.id.indexOf(':');
    this.#tenantId = this.id.slice(0, colon);
    this.#commentId = this.id.slice(colon + 1);
    await this.#load();
  }

  async #load(): Promise<void> {
    await this.#loadComment();
    const comment = this.#comment;
    if (comment === undefined) this.#forgetPoll();
    else await this.#loadPoll(comment.urlId);
  }

  #forgetPoll(): void {
    this.#poll = undefined;
    this.#votes.clear();
    this.#byVoter.clear();
    this.#strays = [];
    this.#owed = [];
    this.#pollStale = false;
  }

  /** Loads the poll and its votes as stored, placed on `urlId` (the comment's page). */
  async #loadPoll(urlId: string): Promise<void> {
    this.#forgetPoll();
    const stored = await this.store.get<PollDoc>(C.polls, this.#commentId);
    if (stored === undefined || stored.tenantId !== this.#tenantId) return;
    // The comment owns urlId: a move that reached the comment but not yet the poll (a crash in
    // between, or a page still writing it) is completed here.
    const poll = stored.urlId === urlId ? stored : { ...stored, urlId };
    const votes = await this.store.find<PollVoteDoc>(C.pollVotes, { tenantId: this.#tenantId, commentId: this.#commentId });
    votes.sort(byAge);
    for (const found of votes) {
      const key = voterKey(found);
      const other = this.#byVoter.get(key);
      if (!voteCounts(poll, found) || (other !== undefined && other.updatedAt >= found.updatedAt)) {
        this.#strays.push(found._id);
        continue;
      }
      if (other !== undefined) {
        this.#strays.push(other._id);
        this.#votes.delete(other._id);
      }
      const vote = found.urlId === poll.urlId ? found : { ...found, urlId: poll.urlId };
      if (vote !== found) this.#owed.push(vote);
      this.#votes.set(vote._id, vote);
      this.#byVoter.set(key, vote);
    }
    this.#poll = recount(poll, this.#votes.values());
    this.#pollStale = this.#poll !== stored || this.#strays.length > 0 || this.#owed.length > 0;
    if (this.#poll.totalVotes !== stored.totalVotes || this.#strays.length > 0) {
      log.warn('poll-recounted', { key: this.key, strays: this.#strays.length, stored: stored.totalVotes, counted: this.#poll.totalVotes });
    }
  }

  async #loadComment(): Promise<void> {
    const doc = this.#commentDeleted ? undefined : await this.store.get<CommentDoc>(COMMENTS, this.#commentId);
    if (doc === undefined || doc.tenantId !== this.#tenantId || doc.isDeleted) {
      this.#comment = undefined;
      return;
    }
    this.#comment = this.#commentFromPage ?? { urlId: doc.urlId, isLocked: doc.isLocked };
  }

  /** Without a poll, storage may know better than memory (see the class comment). */
  async #refresh(): Promise<void> {
    if (this.#poll !== undefined || this.#commentDeleted) return;
    if (this.#removedPoll) await this.#loadComment();
    else await this.#load();
  }

  #requirePoll(): PollDoc {
    if (this.#comment === undefined || this.#poll === undefined) throw new ApiError('poll-not-found');
    return this.#poll;
  }

  #requireUnlocked(): void {
    if (this.#comment?.isLocked) throw new ApiError('locked', 'The comment is locked: its poll cannot be changed until it is unlocked.');
  }

  async #requirePollsEnabled(urlId: string): Promise<void> {
    const settings = await tenantSettings(this.system, this.#tenantId, urlId);
    if (settings.disablePolls) throw new ApiError('polls-disabled');
  }

  /** Writes the poll (with whatever cleanup is owed) and schedules its announcement. */
  #savePoll(poll: PollDoc): void {
    this.#settleRepairs();
    this.#poll = poll;
    this.put(C.polls, poll);
    this.#announce();
  }

  /** Writes what loading found owed. Only called on a path that writes anyway. */
  #settleRepairs(): void {
    for (const id of this.#strays) this.remove(C.pollVotes, id);
    for (const vote of this.#owed) if (this.#votes.get(vote._id) === vote) this.put(C.pollVotes, vote);
    this.#strays = [];
    this.#owed = [];
    this.#pollStale = false;
  }

  /** A new vote is inserted, so storage itself refuses an id that is somehow taken. */
  #saveVote(vote: PollVoteDoc, isNew = false): void {
    this.#votes.set(vote._id, vote);
    this.#byVoter.set(voterKey(vote), vote);
    if (isNew) this.insert(C.pollVotes, vote);
    else this.put(C.pollVotes, vote);
  }

  #deleteVote(vote: PollVoteDoc): void {
    this.#votes.delete(vote._id);
    this.#byVoter.delete(voterKey(vote));
    this.remove(C.pollVotes, vote._id);
  }

  #removePoll(): void {
    for (const vote of [...this.#votes.values()]) this.#deleteVote(vote);
    for (const id of this.#strays) this.remove(C.pollVotes, id);
    this.#strays = [];
    this.#owed = [];
    this.remove(C.polls, this.#commentId);
    this.#poll = undefined;
    this.#removedPoll = true;
  }

  /**
   * After a change: once everything written so far is durable, publish the poll to the page's
   * live subscribers and tell the page actor. The self-ask's reply is held by the output gate
   * like any other, which is what makes it arrive after durability, in order. Until it has
   * arrived no other is scheduled, and changes made meanwhile are announced by one more once it
   * has: a hot poll announces once per storage commit, not once per vote.
   */
  #announce(): void {
    this.#changedSinceAnnounce = true;
    if (this.#announcing) return;
    this.#announcing = true;
    const system = this.system;
    const tenantId = this.#tenantId;
    const commentId = this.#commentId;
    system.ask(PollKind, this.id, 'announce', null, { timeoutMs: ANNOUNCE_TIMEOUT_MS }).then(
      ({ activation, news }) => {
        if (news !== null) {
          try {
            system.tell(PageKind, pageActorId(tenantId, news.urlId), 'pollChanged', { commentId, poll: news.poll });
          } catch (err) {
            log.warn('poll-page-tell-failed', { tenantId, commentId, err });
          }
        }
        // Answered by a newer activation (this one was reset): that one announces its own changes.
        if (activation !== this.#activation) return;
        this.#announcing = false;
        if (this.#changedSinceAnnounce) this.#announce();
      },
      // The batch failed (the actor reloads from storage: nothing to tell), the mailbox refused
      // the message, or the system is stopping. Never rescheduled from here, which could spin:
      // the next change schedules the next announcement.
      () => {
        this.#announcing = false;
      },
    );
  }

  readonly handlers: Handlers<PollProtocol> = {
    commentChanged: async ({ isLocked, urlId, deleted }) => {
      if (deleted) {
        // The comment is already gone from storage, so a fresh activation did not load the poll:
        // load it now (unless this activation removed it itself) to remove it with its votes.
        if (this.#poll === undefined && !this.#removedPoll && !this.#commentDeleted) await this.#loadPoll(urlId);
        this.#commentDeleted = true;
        this.#comment = undefined;
        if (this.#poll !== undefined) this.#removePoll();
        return null;
      }
      this.#commentFromPage = { urlId, isLocked };
      await this.#refresh();
      if (this.#comment !== undefined) this.#comment = this.#commentFromPage;
      const poll = this.#poll;
      if (poll !== undefined && poll.urlId !== urlId) {
        for (const vote of [...this.#votes.values()]) this.#saveVote({ ...vote, urlId });
        this.#savePoll({ ...poll, urlId });
      } else if (poll !== undefined && this.#pollStale) {
        // Loading completed a move the page had made: store it now, not with some later vote.
        this.#savePoll(poll);
      }
      return null;
    },

    get: async () => {
      await this.#refresh();
      return pollView(this.#requirePoll());
    },

    put: async ({ input, replaceVotes }) => {
      await this.#refresh();
      const comment = this.#comment;
      if (comment === undefined) throw new ApiError('not-found', 'This tenant has no comment with this id.');
      this.#requireUnlocked();
      await this.#requirePollsEnabled(comment.urlId);
      const nowMs = clock.now();
      const newOptionId = () => newId(nowMs);
      const current = this.#poll;
      if (current === undefined) {
        const poll = createPoll(input, { tenantId: this.#tenantId, commentId: this.#commentId, urlId: comment.urlId, nowMs, newOptionId });
        this.#removedPoll = false;
        this.#savePoll(poll);
        return pollView(poll);
      }
      const { poll, dropAllVotes, removedOptionIds } = replacePoll(current, input, { replaceVotes, nowMs, newOptionId });
      for (const vote of [...this.#votes.values()]) {
        if (dropAllVotes || removedOptionIds.has(vote.optionId)) this.#deleteVote(vote);
      }
      this.#savePoll(poll);
      return pollView(poll);
    },

    patch: async (patch) => {
      await this.#refresh();
      const current = this.#requirePoll();
      this.#requireUnlocked();
      await this.#requirePollsEnabled(current.urlId);
      const poll = patchPoll(current, patch, clock.now());
      this.#savePoll(poll);
      return pollView(poll);
    },

    remove: async () => {
      await this.#refresh();
      this.#requirePoll();
      this.#requireUnlocked();
      this.#removePoll();
      this.#announce();
      return null;
    },

    vote: async (message) => {
      await this.#refresh();
      let poll = this.#requirePoll();
      const nowMs = clock.now();
      if (isClosed(poll, nowMs)) throw new ApiError('poll-closed', `The poll closed at ${poll.closesAt}.`);
      assertOption(poll, message.optionId);
      const anonymous = message.userId === null;
      if (anonymous) {
        const settings = await tenantSettings(this.system, this.#tenantId, poll.urlId);
        if (!settings.allowAnonVotes) throw new ApiError('poll-login-required');
        if (!this.#limit.allows(message.rateKey, nowMs)) {
          throw new ApiError(
            'rate-limited',
            `At most ${ANON_VOTE_RATE_LIMIT.votes} anonymous votes per address per poll per ${ANON_VOTE_RATE_LIMIT.windowMs / 1000} seconds.`,
          );
        }
      }
      let ip: string | null = null;
      if (message.ip !== null) {
        if (poll.ipKey === undefined) poll = { ...poll, ipKey: newSecret(24) };
        ip = hashAddress(poll.ipKey!, message.ip);
      }
      const voterId = message.userId ?? message.anonUserId!;
      const existing = this.#byVoter.get(voterKey(message));
      const outcome = castVote(
        poll,
        existing,
        { voteId: newId(nowMs), voterId, optionId: message.optionId, userId: message.userId, anonUserId: message.anonUserId, ip },
        nowMs,
      );
      if (anonymous) this.#limit.record(message.rateKey, nowMs);
      if (outcome.changed) {
        this.#saveVote(outcome.vote, existing === undefined);
        this.#savePoll(outcome.poll);
      }
      return { pollVote: pollVoteView(outcome.vote), poll: pollView(outcome.changed ? outcome.poll : this.#poll!) };
    },

    listVotes: async ({ voterId, optionId, skip, limit, reader }) => {
      await this.#refresh();
      const poll = this.#requirePoll();
      if (poll.privacy === POLL_PRIVACY.anonymous) throw new ApiError('poll-anonymous');
      if (reader === 'public' && poll.privacy !== POLL_PRIVACY.everyone) throw new ApiError('poll-votes-restricted');
      const view = reader === 'public' ? publicPollVoteView : pollVoteView;
      const out = [];
      let skipped = 0;
      for (const vote of this.#votes.values()) {
        if ((voterId !== undefined && vote.voterId !== voterId) || (optionId !== undefined && vote.optionId !== optionId)) continue;
        if (skipped < skip) {
          skipped++;
          continue;
        }
        out.push(view(vote));
        if (out.length >= limit) break;
      }
      return out as ReturnType<typeof pollVoteView>[];
    },

    getVote: async ({ voteId }) => {
      await this.#refresh();
      const vote = this.#poll === undefined ? undefined : this.#votes.get(voteId);
      if (vote === undefined) throw new ApiError('not-found', 'No poll vote has this id.');
      if (this.#poll!.privacy === POLL_PRIVACY.anonymous) throw new ApiError('poll-anonymous');
      return pollVoteView(vote);
    },

    retractVote: async ({ voteId }) => {
      await this.#refresh();
      const vote = this.#poll === undefined ? undefined : this.#votes.get(voteId);
      if (vote === undefined) throw new ApiError('not-found', 'No poll vote has this id (it was retracted, or removed with its option or poll).');
      const poll = this.#poll!;
      this.#deleteVote(vote);
      const next = retractVote(poll, vote);
      this.#savePoll(next);
      return pollView(next);
    },

    readerVote: async (voter) => {
      await this.#refresh();
      const poll = this.#requirePoll();
      const vote = this.#byVoter.get(voterKey(voter));
      return { poll: pollView(poll), optionId: vote?.optionId ?? null, closed: isClosed(poll, clock.now()) };
    },

    retractReaderVote: async (voter) => {
      await this.#refresh();
      const poll = this.#requirePoll();
      const vote = this.#byVoter.get(voterKey(voter));
      if (vote === undefined) throw new ApiError('not-found', 'You have no vote in this poll.');
      this.#deleteVote(vote);
      const next = retractVote(poll, vote);
      this.#savePoll(next);
      return { poll: pollView(next), optionId: null, closed: isClosed(next, clock.now()) };
    },

    announce: () => {
      this.#changedSinceAnnounce = false;
      const poll = this.#poll ?? null;
      const urlId = poll?.urlId ?? this.#comment?.urlId;
      if (urlId === undefined || this.#commentDeleted) return { activation: this.#activation, news: null };
      this.publish(pageTopic(this.#tenantId, urlId), pollUpdateEvent(this.#commentId, urlId, poll, clock.now()));
      return { activation: this.#activation, news: { urlId, poll: poll === null ? null : pollView(poll) } };
    },
  };
}
