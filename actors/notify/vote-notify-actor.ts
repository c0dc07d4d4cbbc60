import { Actor, type Handlers } from '../../engine/actor.js';
import { log } from '../../engine/log.js';
import { COMMENTS, type CommentDoc } from '../page/comment-doc.js';
import { UserKind, userActorId } from '../user/protocol.js';
import { CONTEXT_CHARS, NOTIFY_COLLECTIONS as C, optOutId, recipientActorId, recipientKey } from './notification-doc.js';
import { NotificationsKind, type Voter, type VoteNotifyProtocol } from './protocol.js';

/** Up-votes waiting while a batch is on its way to the author; beyond it new ones are dropped. */
const MAX_WAITING = 10_000;

/**
 * The up-votes of one comment, on their way to its author's one vote notification about it
 * (`votedMyComment`, with `count`, the latest voter and the recent ones). Told by the votes
 * route once a vote is durable; votes arriving while a batch is with the author gather into
 * the next, so a comment voted a thousand times a second costs its author a few messages.
 * Votes by the author, on comments without a user, or on a comment its author opted out of,
 * notify no one. Kept in memory only: a crash loses the batch under way (see
 * docs/notifications.md).
 */
export class VoteNotifyActor extends Actor<VoteNotifyProtocol> {
  #tenantId = '';
  #commentId = '';
  #waiting: { voteId: string; userId: string | null }[] = [];
  #sending = false;

  override async onStart(): Promise<void> {
    const colon = this.id.indexOf(':');
    this.#tenantId = this.id.slice(0, colon);
    this.#commentId = this.id.slice(colon + 1);
  }

  readonly handlers: Handlers<VoteNotifyProtocol> = {
    upvoted: ({ voteId, userId }) => {
      // Nothing here is stored: the vote itself is already durable.
      this.allowUnconfirmed();
      if (this.#waiting.length < MAX_WAITING) this.#waiting.push({ voteId, userId });
      if (!this.#sending) void this.#send();
      return null;
    },
  };

  async #send(): Promise<void> {
    this.#sending = true;
    try {
      while (this.#waiting.length > 0) {
        const batch = this.#waiting;
        this.#waiting = [];
        try {
          await this.#tellAuthor(batch);
        } catch (err) {
          log.warn('vote-notification-failed', { tenantId: this.#tenantId, commentId: this.#commentId, votes: batch.length, err });
        }
      }
    } finally {
      this.#sending = false;
    }
  }

  async #tellAuthor(batch: readonly { voteId: string; userId: string | null }[]): Promise<void> {
    // Read each time: the comment may have moved, been deleted, or changed author since.
    const comment = await this.store.get<CommentDoc>(COMMENTS, this.#commentId);
    if (comment === undefined || comment.tenantId !== this.#tenantId || comment.userId === null) return;
    const author = comment.userId;
    const votes = batch.filter((v) => v.userId !== author);
    if (votes.length === 0) return;
    // Only a known user (a record of this tenant) hears of votes.
    const authorUser = await this.system.ask(UserKind, userActorId(this.#tenantId, author), 'get', null);
    if (authorUser === null) return;
    const recipient = recipientKey({ userId: author, anonUserId: null });
    if ((await this.store.get(C.optOuts, optOutId(this.#tenantId, recipient, comment._id))) !== undefined) return;
    const last = votes.at(-1)!;
    const user = last.userId === null ? null : await this.system.ask(UserKind, userActorId(this.#tenantId, last.userId), 'get', null);
    const voters: Voter[] = votes.map((v) => ({ voteId: v.voteId, userId: v.userId, name: null, avatarSrc: null }));
    voters[voters.length - 1] = { ...voters.at(-1)!, name: user ? user.displayName || user.username : null, avatarSrc: user?.avatarSrc ?? null };
    await this.system.ask(NotificationsKind, recipientActorId(this.#tenantId, recipient), 'mergeVote', {
      commentId: comment._id,
      urlId: comment.urlId,
      url: comment.url,
      pageTitle: comment.pageTitle,
      contextText: comment.comment.slice(0, CONTEXT_CHARS),
      locale: comment.locale,
      voters,
    });
  }
}
