/**
 * The votes a page holds, found by id and by (comment, voter). Kept per comment rather than in
 * one map keyed by a joined string: a hot page holds hundreds of thousands of votes, and a
 * vote then looks up a small map without making a key string, and a comment's votes are found
 * without scanning all of them.
 */
import type { VoteDoc } from './vote-doc.js';

/** One page's votes, by id and by comment and voter (see the module comment). */
export class VoteIndex {
  readonly #byId = new Map<string, VoteDoc>();
  readonly #byComment = new Map<string, Map<string, VoteDoc>>();

  /** Votes held. */
  get size(): number {
    return this.#byId.size;
  }

  /** The vote with this id, if held. */
  get(id: string): VoteDoc | undefined {
    return this.#byId.get(id);
  }

  /** The vote of `voterKey` on `commentId`, if any. */
  of(commentId: string, voterKey: string): VoteDoc | undefined {
    return this.#byComment.get(commentId)?.get(voterKey);
  }

  /** Every vote on `commentId`. */
  onComment(commentId: string): VoteDoc[] {
    const votes = this.#byComment.get(commentId);
    return votes === undefined ? [] : [...votes.values()];
  }

  /** Every vote held. */
  values(): IterableIterator<VoteDoc> {
    return this.#byId.values();
  }

  /** Holds `vote`; it replaces any vote of the same voter on the same comment. */
  add(vote: VoteDoc): void {
    this.#byId.set(vote._id, vote);
    let votes = this.#byComment.get(vote.commentId);
    if (votes === undefined) {
      votes = new Map();
      this.#byComment.set(vote.commentId, votes);
    }
    votes.set(vote.voterKey, vote);
  }

  /** Lets `vote` go. */
  remove(vote: VoteDoc): void {
    this.#byId.delete(vote._id);
    const votes = this.#byComment.get(vote.commentId);
    if (votes?.get(vote.voterKey)?._id !== vote._id) return;
    votes.delete(vote.voterKey);
    if (votes.size === 0) this.#byComment.delete(vote.commentId);
  }

  /** Lets every vote go. */
  clear(): void {
    this.#byId.clear();
    this.#byComment.clear();
  }
}
