/**
 * Polls attached to comments: what this reader may see of each (`/poll-votes/v1/:tenantId/mine`:
 * their own choice, and the counts once the server lets them see them), voting, changing and
 * taking back the vote, and the live channel's `poll-update` events. The widget shows only
 * what the server answers: a poll whose results need a vote comes without counts until then.
 */
import type { WidgetPoll } from '../shared/types.js';
import type { WidgetHost } from './widget-host.js';
import { sessionStore } from './page-identity.js';
import { refusalText } from './page-reactions.js';

/** The reader's view of one poll. */
export interface ReaderPoll {
  poll: WidgetPoll;
  myOptionId: string | null;
  isClosed: boolean;
}

export class Polls {
  /** By comment id: what the server answered this reader. */
  readonly views = new Map<string, ReaderPoll>();
  readonly errors = new Map<string, string>();
  readonly #asked = new Set<string>();
  readonly #busy = new Set<string>();

  constructor(readonly c: WidgetHost) {}

  /** Forgets every reader view (another page or reader). */
  reset(): void {
    this.views.clear();
    this.errors.clear();
    this.#asked.clear();
  }

  /** The poll as shown: the reader's own view once read, else the comment's public one. */
  view(commentId: string, poll: WidgetPoll): ReaderPoll {
    const closed = poll.closesAt ? Date.parse(poll.closesAt) <= Date.now() : false;
    return this.views.get(commentId) ?? { poll, myOptionId: null, isClosed: closed };
  }

  #identified(): boolean {
    return Boolean(this.c.sso || sessionStore.get(this.c.tenantId));
  }

  /** Reads the reader's view once per poll, where it can say more than the comment does. */
  ensure(commentId: string, poll: WidgetPoll): void {
    if (this.c.ssr || this.#asked.has(commentId) || !(this.#identified() || poll.resultsHidden)) return;
    this.#asked.add(commentId);
    void this.#read(commentId);
  }

  async #read(commentId: string): Promise<void> {
    try {
      this.#set(commentId, await this.c.api.call('GET', `/poll-votes/v1/${encodeURIComponent(this.c.tenantId)}/mine`, { commentId, ...this.c.identity() }));
    } catch {
      // The comment's own poll stays shown.
      this.#asked.delete(commentId);
    }
  }

  #set(commentId: string, answer: Record<string, any>): void {
    this.views.set(commentId, { poll: answer['poll'], myOptionId: answer['myOptionId'] ?? null, isClosed: Boolean(answer['isClosed']) });
    this.errors.delete(commentId);
    this.c.changed();
  }

  /** Casts or moves the reader's vote (`optionId`), or takes it back (null). */
  async vote(commentId: string, optionId: string | null): Promise<void> {
    if (this.#busy.has(commentId)) return;
    this.#busy.add(commentId);
    try {
      const answer = await this.c.api.call(optionId === null ? 'DELETE' : 'POST', `/poll-votes/v1/${encodeURIComponent(this.c.tenantId)}/mine`, {
        commentId,
        optionId: optionId ?? undefined,
        ...this.c.identity(),
      });
      const session = answer['user']?.['sessionId'];
      if (typeof session === 'string' && !this.c.sso) sessionStore.set(this.c.tenantId, session);
      this.#asked.add(commentId);
      this.#set(commentId, answer);
      this.c.announcement = this.c.t(optionId === null ? 'POLL_VOTE_REMOVED' : 'POLL_VOTE_SAVED');
    } catch (err) {
      this.errors.set(commentId, refusalText(this.c, err));
      this.c.changed();
    } finally {
      this.#busy.delete(commentId);
    }
  }

  /** A `poll-update` event: the poll now (null once removed). */
  onLive(event: Record<string, any>): void {
    const id = event['commentId'];
    const comment = typeof id === 'string' ? this.c.comments.get(id) : undefined;
    if (!comment) return;
    const poll = event['poll'] as WidgetPoll | null;
    this.c.comments.set(id, { ...comment, poll: poll ?? undefined });
    const mine = this.views.get(id);
    if (poll === null) this.views.delete(id);
    else if (mine && !poll.resultsHidden) this.views.set(id, { ...mine, poll });
    // Counts withheld from the channel: a reader who may see them reads them.
    else if (mine && (mine.myOptionId !== null || mine.isClosed)) void this.#read(id);
    else if (mine) this.views.set(id, { ...mine, poll });
  }
}
