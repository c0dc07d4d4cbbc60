/**
 * A site administrator's or moderator's actions in the thread: pin and lock (public API), and
 * approve, spam, remove and ban (the moderation API under `/auth/my-account/moderate-comments/`,
 * with `sso` for a single sign-on moderator, or the moderator's session cookie). Results apply in
 * place; the server publishes them to every other reader.
 */
import type { WidgetComment } from '../shared/types.js';
import type { WidgetHost } from './widget-host.js';

const BASE = '/auth/my-account/moderate-comments';
/** How many held comments of the page a moderator's widget shows. */
const HELD_LIMIT = 100;

/** A public-API moderation action. */
export type PublicModeration = 'pin' | 'unpin' | 'lock' | 'unlock';

export class Moderation {
  /** A site administrator or moderator of this tenant (from the thread read's answer). */
  active = false;
  #stringsLoaded = false;

  constructor(readonly c: WidgetHost) {}

  /** Takes the moderator status of a thread read's answer. */
  fromAnswer(answer: Record<string, unknown>): void {
    const c = this.c;
    this.active = answer['isSiteAdmin'] === true || (answer['moderatingTenantIds'] as string[] | undefined)?.includes(c.tenantId) === true;
    if (this.active && !this.#stringsLoaded && !c.ssr) {
      this.#stringsLoaded = true;
      void this.#strings();
    }
  }

  async #strings(): Promise<void> {
    const c = this.c;
    try {
      const answer = await c.api.call<{ translations: Record<string, string> }>('GET', '/translations/widgets/comment-ui-moderation', { locale: c.locale });
      c.strings = { ...c.strings, ...answer.translations, ...(c.config.translations ?? {}) };
      c.changed();
    } catch {
      // English labels stay.
    }
  }

  /** The identity of a moderation call: the tenant, and `sso` when the page signs readers on. */
  #identity(): Record<string, string | undefined> {
    return { tenantId: this.c.tenantId, sso: this.c.sso };
  }

  /** The identity and a broadcast id, so the action's live echo is not applied twice. */
  #query(): Record<string, string | undefined> {
    return { ...this.#identity(), broadcastId: this.c.broadcast() };
  }

  /**
   * The page's comments waiting for approval (or held as spam), which readers' reads leave out:
   * put into the moderator's thread so they can be approved there.
   */
  async loadHeld(): Promise<void> {
    const c = this.c;
    if (!this.active || c.ssr) return;
    try {
      const answer = await c.api.call('GET', `${BASE}/api/comments`, { ...this.#identity(), count: HELD_LIMIT, filters: JSON.stringify({ approved: false, urlId: c.urlId }) });
      for (const held of (answer['comments'] ?? []) as WidgetComment[]) {
        if (held.isDeleted || c.comments.has(held._id)) continue;
        c.thread.insert({ ...held, approved: false }, true, c.direction);
      }
      c.changed();
    } catch (err) {
      c.fail('load', err);
    }
  }

  /** Pin, unpin, lock or unlock through the public API. */
  async publicAction(comment: WidgetComment, action: PublicModeration): Promise<boolean> {
    const c = this.c;
    return this.#run(comment, async () => {
      await c.api.call('POST', `/comments/${encodeURIComponent(c.tenantId)}/${comment._id}/${action}`, { broadcastId: c.broadcast(), ...c.identity() });
      c.patch(comment._id, action === 'pin' || action === 'unpin' ? { isPinned: action === 'pin' } : { isLocked: action === 'lock' });
    });
  }

  async approve(comment: WidgetComment, approved: boolean): Promise<boolean> {
    return this.#run(comment, async () => {
      await this.c.api.call('POST', `${BASE}/set-comment-approval-status/${comment._id}`, { ...this.#query(), approved });
      this.c.patch(comment._id, { approved });
    });
  }

  async spam(comment: WidgetComment, spam: boolean): Promise<boolean> {
    return this.#run(comment, async () => {
      await this.c.api.call('POST', `${BASE}/set-comment-spam-status/${comment._id}`, { ...this.#query(), spam });
      this.c.patch(comment._id, spam ? { isSpam: true, approved: false } : { isSpam: false, approved: true });
    });
  }

  async remove(comment: WidgetComment): Promise<boolean> {
    return this.#run(comment, async () => {
      await this.c.api.call('POST', `${BASE}/remove-comment/${comment._id}`, this.#query());
      this.c.patch(comment._id, { isDeleted: true });
    });
  }

  /** Bans the comment's author (by user or session, and email when there is no user). */
  async ban(comment: WidgetComment): Promise<boolean> {
    return this.#run(comment, async () => {
      // The ban route takes no broadcast id: the marking of the author's comments is published as is.
      await this.c.api.call('POST', `${BASE}/ban-user/from-comment/${comment._id}`, this.#identity());
      this.c.patch(comment._id, { isBannedUser: true });
    });
  }

  /** Runs an action, its failure shown in words beside the comment's actions. */
  async #run(comment: WidgetComment, act: () => Promise<void>): Promise<boolean> {
    const where = `actions:${comment._id}`;
    this.c.errors.delete(where);
    try {
      await act();
      return true;
    } catch (err) {
      this.c.fail(where, err);
      return false;
    }
  }
}
