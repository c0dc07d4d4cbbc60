/**
 * The votes a page holds, by comment and voter.
 *
 * A hot page holds hundreds of thousands of votes for as long as it is active, so each is held
 * in the fewest objects that let its document be made again: its id, time, direction and kind,
 * under its comment and voter. Page, tenant and comment are shared, the user ids are in the
 * voter key. Whole vote documents (ten fields and five strings each) held this way, with a
 * second map by id, made the garbage collector copy and mark a few hundred bytes more per vote
 * on every vote that followed.
 *
 * There is no lookup by vote id: the id's document in storage names its comment and voter
 * (`VoteDoc`), which is how a page finds a vote to delete.
 */
import { isApplied, type VoteDirection, type VoteDoc, type VoteKind } from './vote-doc.js';

/** What is held of one vote besides its comment and voter. */
export interface HeldVote {
  readonly id: string;
  readonly direction: VoteDirection;
  readonly kind: VoteKind;
  readonly createdAt: string;
}

/** Applied-vote totals of one comment. */
export type VoteTotals = {
  votes: number;
  votesUp: number;
  votesDown: number;
};

/** One page's votes (see the module comment). */
export class VoteIndex {
  readonly #tenantId: string;
  readonly #urlId: string;
  readonly #byComment = new Map<string, Map<string, HeldVote>>();
  #size = 0;

  constructor(tenantId: string, urlId: string) {
    this.#tenantId = tenantId;
    this.#urlId = urlId;
  }

  /** Votes held. */
  get size(): number {
    return this.#size;
  }

  /** What is held of the vote of `voterKey` on `commentId`, if any. */
  held(commentId: string, voterKey: string): HeldVote | undefined {
    return this.#byComment.get(commentId)?.get(voterKey);
  }

  /** The vote of `voterKey` on `commentId`, if any. */
  of(commentId: string, voterKey: string): VoteDoc | undefined {
    const held = this.held(commentId, voterKey);
    return held === undefined ? undefined : this.#doc(commentId, voterKey, held);
  }

  /** The vote with this id, given the comment and voter its stored document names; undefined if not held. */
  withId(commentId: string, voterKey: string, id: string): VoteDoc | undefined {
    const held = this.held(commentId, voterKey);
    return held?.id === id ? this.#doc(commentId, voterKey, held) : undefined;
  }

  /** Every vote on `commentId`. */
  onComment(commentId: string): VoteDoc[] {
    const votes = this.#byComment.get(commentId);
    if (votes === undefined) return [];
    const docs: VoteDoc[] = [];
    for (const [voterKey, held] of votes) docs.push(this.#doc(commentId, voterKey, held));
    return docs;
  }

  /** Every vote held, as documents (made on the way: for listings and moves, not hot paths). */
  *values(): IterableIterator<VoteDoc> {
    for (const [commentId, votes] of this.#byComment) {
      for (const [voterKey, held] of votes) yield this.#doc(commentId, voterKey, held);
    }
  }

  /** Applied-vote totals per comment with any vote. */
  totals(): Map<string, VoteTotals> {
    const totals = new Map<string, VoteTotals>();
    for (const [commentId, votes] of this.#byComment) {
      const t: VoteTotals = { votes: 0, votesUp: 0, votesDown: 0 };
      for (const held of votes.values()) {
        if (!isApplied(held)) continue;
        t.votes += held.direction;
        if (held.direction > 0) t.votesUp++;
        else t.votesDown++;
      }
      totals.set(commentId, t);
    }
    return totals;
  }

  /** Holds `vote`; it replaces any vote of the same voter on the same comment. */
  add(vote: VoteDoc): void {
    let votes = this.#byComment.get(vote.commentId);
    if (votes === undefined) {
      votes = new Map();
      this.#byComment.set(vote.commentId, votes);
    }
    const before = votes.size;
    votes.set(vote.voterKey, { id: vote._id, direction: vote.direction, kind: vote.kind, createdAt: vote.createdAt });
    this.#size += votes.size - before;
  }

  /** Lets `vote` go, unless the voter has voted on that comment again since. */
  remove(vote: VoteDoc): void {
    const votes = this.#byComment.get(vote.commentId);
    if (votes?.get(vote.voterKey)?.id !== vote._id) return;
    votes.delete(vote.voterKey);
    this.#size--;
    if (votes.size === 0) this.#byComment.delete(vote.commentId);
  }

  /** Lets every vote go. */
  clear(): void {
    this.#byComment.clear();
    this.#size = 0;
  }

  #doc(commentId: string, voterKey: string, held: HeldVote): VoteDoc {
    const user = voterKey.slice(2);
    const byUser = voterKey.startsWith('u:');
    return {
      _id: held.id,
      tenantId: this.#tenantId,
      urlId: this.#urlId,
      commentId,
      userId: byUser ? user : null,
      anonUserId: byUser ? null : user,
      voterKey,
      direction: held.direction,
      kind: held.kind,
      createdAt: held.createdAt,
    };
  }
}
