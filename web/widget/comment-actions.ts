/**
 * What a reader does to comments through the public API: post and reply, vote and un-vote, edit
 * and delete one's own, report, block. Each result is applied in place; the live echo of one's
 * own action is skipped by its broadcast id.
 */
import type { WidgetComment } from '../shared/types.js';
import type { WidgetHost } from './widget-host.js';

/** What a post or reply form sends. */
export interface Draft {
  text: string;
  name?: string;
  email?: string;
  parentId: string | null;
}

export class CommentActions {
  constructor(readonly c: WidgetHost) {}

  get #base(): string {
    return `/comments/${encodeURIComponent(this.c.tenantId)}`;
  }

  /** Refuses a text over the limit beside `where`; answers whether it fits. */
  #fits(text: string, where: string): boolean {
    if (text.length <= this.c.maxLength) return true;
    this.c.errors.set(where, this.c.t('COMMENT_TOO_LONG', { max: this.c.maxLength }));
    this.c.changed();
    return false;
  }

  /** Posts a comment or reply; answers whether it was saved. */
  async post(draft: Draft, where: string): Promise<boolean> {
    const c = this.c;
    c.errors.delete(where);
    if (draft.text.trim() === '' || !this.#fits(draft.text, where)) return false;
    // A signed-on reader may post before the first read has told who it is: the server names it
    // from its sign-on and ignores this field, which must still be a string.
    const body = {
      commenterName: draft.name ?? c.user?.username ?? (c.sso ? '' : null),
      commenterEmail: draft.email || c.user?.email || null,
      comment: draft.text,
      url: c.config.url ?? location.href,
      urlId: c.urlId,
      pageTitle: c.config.pageTitle ?? document.title,
      parentId: draft.parentId,
      date: Date.now(),
    };
    try {
      const answer = await c.api.call('POST', this.#base, { urlId: c.urlId, broadcastId: c.broadcast(), ...c.identity() }, body);
      if (answer['user']) c.setUser({ ...c.user, ...answer['user'] });
      if (typeof answer['userIdWS'] === 'string') c.retargetLive(answer['userIdWS']);
      const comment = answer['comment'] as WidgetComment;
      c.thread.insert(comment, true, c.direction);
      if (!draft.parentId) c.commentCount++;
      c.changed();
      c.config.onReplySuccess?.(comment);
      return true;
    } catch (err) {
      c.fail(where, err);
      return false;
    }
  }

  async vote(comment: WidgetComment, dir: 'up' | 'down'): Promise<void> {
    const c = this.c;
    const where = `vote:${comment._id}`;
    c.errors.delete(where);
    const q = { urlId: c.urlId, broadcastId: c.broadcast(), ...c.identity() };
    try {
      if ((dir === 'up' && comment.isVotedUp) || (dir === 'down' && comment.isVotedDown)) {
        const answer = await c.api.call('DELETE', `${this.#base}/${comment._id}/vote/${comment.myVoteId}`, { ...q, editKey: comment.editKey });
        const delta = answer['wasPendingVote'] ? 0 : 1;
        c.patch(comment._id, {
          isVotedUp: false,
          isVotedDown: false,
          myVoteId: null,
          votesUp: (comment.votesUp ?? 0) - (comment.isVotedUp ? delta : 0),
          votesDown: (comment.votesDown ?? 0) - (comment.isVotedDown ? delta : 0),
        });
        c.config.onVoteSuccess?.(c.comments.get(comment._id)!, comment.myVoteId ?? '', 'deleted', 'success');
        return;
      }
      const answer = await c.api.call('POST', `${this.#base}/${comment._id}/vote`, q, {
        voteDir: dir,
        url: c.config.url ?? location.href,
        commenterName: c.user?.username ?? null,
        commenterEmail: c.user?.email ?? null,
      });
      if (answer['user']) c.setUser({ ...c.user, ...answer['user'] });
      const counted = answer['status'] === 'success' ? 1 : 0;
      c.patch(comment._id, {
        isVotedUp: dir === 'up',
        isVotedDown: dir === 'down',
        myVoteId: answer['voteId'],
        votesUp: (comment.votesUp ?? 0) + (dir === 'up' ? counted : 0),
        votesDown: (comment.votesDown ?? 0) + (dir === 'down' ? counted : 0),
      });
      c.config.onVoteSuccess?.(c.comments.get(comment._id)!, answer['voteId'], dir, answer['status']);
    } catch (err) {
      c.fail(where, err);
    }
  }

  /** The comment's own text, for the editor. */
  async textOf(comment: WidgetComment): Promise<string | undefined> {
    const c = this.c;
    try {
      const answer = await c.api.call('GET', `${this.#base}/${comment._id}/text`, { editKey: comment.editKey, ...c.identity() });
      return String(answer['commentText'] ?? '');
    } catch (err) {
      c.fail(`edit:${comment._id}`, err);
      return undefined;
    }
  }

  async edit(comment: WidgetComment, text: string): Promise<boolean> {
    const c = this.c;
    const where = `edit:${comment._id}`;
    c.errors.delete(where);
    if (!this.#fits(text, where)) return false;
    try {
      const answer = await c.api.call('POST', `${this.#base}/${comment._id}/update-text`, { broadcastId: c.broadcast(), editKey: comment.editKey, ...c.identity() }, { comment: text });
      const updated = answer['comment'] as Partial<WidgetComment> | undefined;
      c.patch(comment._id, { commentHTML: updated?.commentHTML ?? text, approved: updated?.approved ?? comment.approved });
      return true;
    } catch (err) {
      c.fail(where, err);
      return false;
    }
  }

  async remove(comment: WidgetComment): Promise<void> {
    const c = this.c;
    const where = `actions:${comment._id}`;
    c.errors.delete(where);
    try {
      const answer = await c.api.call('DELETE', `${this.#base}/${comment._id}`, { broadcastId: c.broadcast(), editKey: comment.editKey, ...c.identity() });
      if (answer['hardRemoved']) c.drop(comment._id);
      else c.patch(comment._id, { ...(answer['comment'] ?? {}), isDeleted: true });
      c.changed();
    } catch (err) {
      c.fail(where, err);
    }
  }

  async flag(comment: WidgetComment): Promise<void> {
    const c = this.c;
    const where = `actions:${comment._id}`;
    c.errors.delete(where);
    try {
      await c.api.call('POST', `/flag-comment/${comment._id}`, { tenantId: c.tenantId, isFlagged: !comment.isFlagged, ...c.identity() });
      c.patch(comment._id, { isFlagged: !comment.isFlagged });
    } catch (err) {
      c.fail(where, err);
    }
  }

  async block(comment: WidgetComment): Promise<void> {
    const c = this.c;
    const where = `actions:${comment._id}`;
    c.errors.delete(where);
    try {
      const answer = await c.api.call(comment.isBlocked ? 'DELETE' : 'POST', `/block-from-comment/${comment._id}`, { tenantId: c.tenantId, ...c.identity() }, { commentIds: [...c.comments.keys()] });
      for (const [id, blocked] of Object.entries((answer['commentStatuses'] ?? {}) as Record<string, boolean>)) c.patch(id, { isBlocked: blocked });
    } catch (err) {
      c.fail(where, err);
    }
  }
}
