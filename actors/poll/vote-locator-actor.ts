import { Actor, type Handlers } from '../../engine/actor.js';
import { POLL_COLLECTIONS as C, type PollVoteDoc } from './poll-model.js';
import type { PollVoteLocatorProtocol } from './protocol.js';

/**
 * Finds the poll of one vote id for one tenant (`poll-vote:<tenantId>:<voteId>`), from the
 * vote's durable document. A vote's poll never changes, so a found answer is kept; a missing
 * one is looked up again on the next ask (ids reach callers only once their vote is durable).
 */
export class PollVoteLocator extends Actor<PollVoteLocatorProtocol> {
  #tenantId = '';
  #voteId = '';
  #commentId: string | null = null;

  override async onStart(): Promise<void> {
    const colon = this.id.indexOf(':');
    this.#tenantId = this.id.slice(0, colon);
    this.#voteId = this.id.slice(colon + 1);
  }

  readonly handlers: Handlers<PollVoteLocatorProtocol> = {
    locate: async () => {
      this.allowUnconfirmed();
      if (this.#commentId === null) {
        const vote = await this.store.get<PollVoteDoc>(C.pollVotes, this.#voteId);
        if (vote !== undefined && vote.tenantId === this.#tenantId) this.#commentId = vote.commentId;
      }
      return this.#commentId;
    },
  };
}
