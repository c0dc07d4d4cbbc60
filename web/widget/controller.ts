/**
 * The widget's state and every action a reader takes: one object the view renders from and
 * calls. Each change calls `changed()`, and the view re-renders.
 */
import { Api, ApiFailure, type Query } from '../shared/api.js';
import { browserLocale, FALLBACK, format, type Strings } from '../shared/strings.js';
import type { SortDirection, WidgetComment, WidgetConfig, WidgetUser } from '../shared/types.js';
import { LiveChannel, type LiveFrame } from './live.js';
import { renderComment } from '../../actors/page/render.js';
import type { Formatting } from '../shared/components/comment-form.js';
import { NotificationBell } from './notifications.js';
import { OnlineUsers } from './online-users.js';
import { defaultUrlId, newBroadcastId, sessionStore } from './page-identity.js';

/** An error to show beside the control that caused it. */
export interface ShownError {
  readonly where: string;
  readonly text: string;
}

/** What a post or reply form sends. */
export interface Draft {
  text: string;
  name?: string;
  email?: string;
  parentId: string | null;
}

/** Links and form targets when the thread is rendered on the server for readers without JavaScript. */
export interface SsrLinks {
  /** The page's address with these query values changed. */
  href(changes: Record<string, string | undefined>): string;
  /** Form targets (POST). */
  readonly postAction: string;
  readonly voteAction: string;
  /** Hidden fields every form carries (tenant, page, session, sort). */
  readonly hidden: Readonly<Record<string, string>>;
  /** The comment whose reply form is open. */
  readonly replyTo: string | undefined;
  /** An error to show beside the form that caused it. */
  readonly error: { where: string; text: string } | undefined;
}

export class WidgetController {
  /** Set when rendered on the server (no JavaScript): forms post and links navigate. */
  ssr: SsrLinks | undefined;
  readonly api: Api;
  config: WidgetConfig;
  strings: Strings = FALLBACK;
  locale: string;
  user: WidgetUser | null = null;
  comments = new Map<string, WidgetComment>();
  /** Ids in display order as loaded (roots each followed by their replies). */
  order: string[] = [];
  /** Live comments not shown yet: roots behind "Show N new comments", replies under their parent. */
  waiting = new Set<string>();
  direction: SortDirection;
  page = 0;
  hasMore = false;
  commentCount = 0;
  isClosed = false;
  loading = true;
  blocking: string | undefined;
  errors = new Map<string, string>();
  announcement = '';
  maxLength = 2000;
  connected = false;
  /** A permalink's comment (`jumpToId`): its page is loaded first, and it is scrolled to once. */
  jumpTo: string | undefined;
  /** The permalink's comment, kept focusable. */
  readonly permalink: string | undefined;
  /** Readers on the page now (live presence), 0 until known. */
  online = 0;
  /** A site administrator or moderator of this tenant: pins and locks in the thread. */
  isModerator = false;
  /** The reader's notifications (web/widget/notifications.ts). */
  readonly bell: NotificationBell;
  /** Who is online on the page (web/widget/online-users.ts). */
  readonly onlineUsers: OnlineUsers;
  readonly #sent = new Set<string>();
  #live: LiveChannel | undefined;
  #destroyed = false;
  /** Counts list reads: only the latest one's comments are shown (an earlier sort or page answering late is dropped). */
  #reads = 0;
  /** The thread-replacing read in flight (0: none); its answer was taken before what arrives meanwhile. */
  #replacing = 0;
  /** Comments posted or received live while `#replacing` was in flight (id → shown), kept over its answer. */
  readonly #arrived = new Map<string, boolean>();
  /** A first read the page already holds (web/widget/inline.ts), taken by the next first load instead of a request. */
  #preloaded: { answer: Record<string, any>; since: number } | undefined;

  constructor(
    config: WidgetConfig,
    origin: string,
    readonly changed: () => void,
  ) {
    this.config = config;
    this.api = new Api((config.apiHost || origin).replace(/\/$/, ''));
    this.locale = config.locale || browserLocale();
    this.direction = config.defaultSortDirection ?? 'MR';
    this.maxLength = config.maxCommentCharacterLength ?? 2000;
    this.jumpTo = typeof config['jumpToId'] === 'string' ? config['jumpToId'] : undefined;
    this.permalink = this.jumpTo;
    this.wsHost = (config.wsHost || config.apiHost || origin).replace(/\/$/, '');
    this.bell = new NotificationBell(this);
    this.onlineUsers = new OnlineUsers(this);
  }

  readonly wsHost: string;

  get tenantId(): string {
    return this.config.tenantId;
  }

  get urlId(): string {
    return this.config.urlId || defaultUrlId();
  }

  /** `sso` as the API takes it, when the page uses single sign-on. */
  get sso(): string | undefined {
    const sso = this.config.sso ?? (this.config.simpleSSO ? { simpleSSOUser: this.config.simpleSSO } : undefined);
    return sso ? JSON.stringify(sso) : undefined;
  }

  /** The identity every reader call carries: `sso`, and the cookie-less session. */
  identity(): Query {
    return { sso: this.sso, sessionId: this.sso ? undefined : sessionStore.get(this.tenantId) };
  }

  /** The toolbar and preview of the forms (none on the server-rendered page). */
  formatting(): Formatting | undefined {
    if (this.ssr) return undefined;
    return {
      labels: { toolbar: this.t('FORMATTING'), bold: this.t('BOLD'), italic: this.t('ITALIC'), code: this.t('CODE'), link: this.t('LINK'), preview: this.t('PREVIEW') },
      render: (text) => renderComment(text).html,
    };
  }

  t(key: string, values?: Record<string, string | number>): string {
    return format(this.strings, key, values);
  }

  /** Strings in the reader's language, then the first page, then the live channel. */
  async start(): Promise<void> {
    this.config.onInit?.();
    const component = (name: string) =>
      this.api
        .call<{ translations: Record<string, string> }>('GET', `/translations/widgets/${name}`, { locale: this.locale })
        .then((a) => a.translations)
        .catch(() => ({}));
    const strings = Promise.all(['comment-ui', 'comment-ui-notifications-list', 'comment-ui-online-users'].map(component)).then(
      (parts) => (this.strings = { ...FALLBACK, ...Object.assign({}, ...parts), ...(this.config.translations ?? {}) }),
    );
    await Promise.all([strings, this.load(true)]);
    this.changed();
  }

  /**
   * Starts from a thread the page already holds (the inline server-rendered markup): its strings
   * and first read are applied at once, before this returns its promise, with no request; with
   * `readAgain` (a reader with an identity, or old markup) the thread is then read for this reader.
   */
  async startFrom(strings: Record<string, string>, answer: Record<string, any>, since: number, readAgain: boolean): Promise<void> {
    this.config.onInit?.();
    this.strings = { ...FALLBACK, ...strings, ...(this.config.translations ?? {}) };
    this.#preloaded = { answer, since };
    await this.load(true);
    if (readAgain) await this.load(true);
  }

  /** Loads page 0 (or the next page with `more`), replacing or extending the thread. */
  async load(first = false, more = false): Promise<void> {
    const page = more ? this.page + 1 : 0;
    const preloaded = first && !more ? this.#preloaded : undefined;
    this.#preloaded = undefined;
    const since = preloaded?.since ?? Date.now();
    const read = ++this.#reads;
    if (!more) {
      // What arrived before this read is durable, so the read sees it.
      this.#replacing = read;
      this.#arrived.clear();
    }
    let answer: Record<string, any>;
    try {
      answer = preloaded?.answer ?? await this.api.call('GET', `/comments/${encodeURIComponent(this.tenantId)}`, {
        urlId: this.urlId,
        page,
        direction: this.direction,
        includeConfig: first || undefined,
        fetchPageForCommentId: first && !more ? this.jumpTo : undefined,
        includeNotificationCount: first || undefined,
        ...this.identity(),
      });
    } catch (err) {
      if (read !== this.#reads && !first) return;
      if (read === this.#reads) this.loading = false;
      if (read === this.#replacing) this.#endReplacing();
      if (first) this.blocking = this.errorText(err);
      else this.errors.set('load', this.errorText(err));
      this.changed();
      return;
    }
    // Requests may answer out of order (a sort changed twice quickly): a later read decides the
    // thread, while the reader, configuration and live channel of any answer still apply.
    const latest = read === this.#reads;
    if (latest) {
      const before = this.comments;
      if (!more) {
        this.comments = new Map();
        this.order = [];
        this.waiting.clear();
      }
      for (const c of answer['comments'] as WidgetComment[]) {
        if (!this.comments.has(c._id)) this.order.push(c._id);
        this.comments.set(c._id, c);
      }
      this.page = answer['pageNumber'] ?? page;
      this.hasMore = Boolean(answer['hasMore']);
      this.commentCount = answer['commentCount'] ?? this.commentCount;
      if (!more) this.#keepArrived(before);
    }
    if (read === this.#replacing) this.#endReplacing();
    this.isClosed = Boolean(answer['isClosed']);
    this.setUser(answer['user'] ?? null);
    if (first) this.bell.count = Number(answer['notificationCount'] ?? 0);
    const moderator = answer['isSiteAdmin'] === true || (answer['moderatingTenantIds'] as string[] | undefined)?.includes(this.tenantId) === true;
    if (moderator && !this.isModerator) void this.#moderationStrings();
    this.isModerator = moderator;
    const custom = answer['customConfig'] as Record<string, any> | undefined;
    if (custom) this.applyServerConfig(custom);
    if (latest) {
      this.loading = false;
      this.errors.delete('load');
    }
    this.changed();
    this.config.commentCountUpdated?.(this.commentCount);
    this.config.onCommentsRendered?.(this.order.map((id) => this.comments.get(id)!));
    if (first && !this.config.disableLiveCommenting && answer['urlIdWS'] && answer['tenantIdWS'] && answer['userIdWS']) {
      this.#live?.close();
      this.#live = new LiveChannel(
        this.api,
        { wsHost: this.wsHost, tenantId: this.tenantId, urlId: this.urlId, tenantIdWS: answer['tenantIdWS'], urlIdWS: answer['urlIdWS'], userIdWS: answer['userIdWS'] },
        (event) => this.onLive(event),
        (connected) => {
          this.connected = connected;
          if (connected) this.onlineUsers.stale();
          this.changed();
        },
        // The first catch-up covers what happened between this read and the socket's opening.
        // The reader's clock stands in for the server's here (later cursors are server times):
        // a skew can replay a little, which is applied idempotently, never twice.
        since,
        this.config.usePolling === true,
      );
    }
  }

  /** Server configuration fills keys the embed left unset (dark background: the server wins). */
  applyServerConfig(custom: Record<string, any>): void {
    const merged: WidgetConfig = { ...this.config };
    for (const [k, v] of Object.entries(custom)) if (merged[k] === undefined || k === 'hasDarkBackground') merged[k] = v;
    this.config = merged;
    if (typeof custom['maxCommentCharacterLength'] === 'number' && this.config.maxCommentCharacterLength === undefined) this.maxLength = custom['maxCommentCharacterLength'];
  }

  setUser(user: WidgetUser | null): void {
    const before = JSON.stringify(this.user);
    this.user = user;
    if (user?.sessionId && !this.sso) sessionStore.set(this.tenantId, user.sessionId);
    if (JSON.stringify(user) !== before && user) this.config.onAuthenticationChange?.('user-set', user);
  }

  /** Whether the reader may edit and delete this comment. */
  owns(c: WidgetComment): boolean {
    if (c.isDeleted) return false;
    if (c.editKey) return !c.isLocked;
    const id = this.user?.id;
    return Boolean(id && (c.userId === id || c.anonUserId === id) && !c.isLocked);
  }

  /** Whether the reader must type a name before posting (no SSO user, no named session). */
  needsName(): boolean {
    return !this.sso && !this.user?.username;
  }

  errorText(err: unknown): string {
    if (!(err instanceof ApiFailure)) return this.t('GENERIC_ERROR');
    if (err.code === 'rate-limited' || err.code === 'user-rate-limited') return this.t('RATE_LIMITED');
    if (err.code === 'comment-too-big') return this.t('COMMENT_TOO_LONG', { max: Number(err.body['maxCharacterLength'] ?? this.maxLength) });
    return err.reason || this.t('GENERIC_ERROR');
  }

  /** Shows `err` in words beside the control `where`. */
  fail(where: string, err: unknown): void {
    this.errors.set(where, this.errorText(err));
    this.changed();
  }

  #broadcast(): string {
    const id = newBroadcastId();
    this.#sent.add(id);
    return id;
  }

  /** Posts a comment or reply; answers whether it was saved. */
  async post(draft: Draft, where: string): Promise<boolean> {
    this.errors.delete(where);
    if (draft.text.trim() === '') return false;
    if (draft.text.length > this.maxLength) {
      this.errors.set(where, this.t('COMMENT_TOO_LONG', { max: this.maxLength }));
      this.changed();
      return false;
    }
    // A signed-on reader may post before the first read has told who it is: the server names it
    // from its sign-on and ignores this field, which must still be a string.
    const body = {
      commenterName: draft.name ?? this.user?.username ?? (this.sso ? '' : null),
      commenterEmail: draft.email || this.user?.email || null,
      comment: draft.text,
      url: this.config.url ?? location.href,
      urlId: this.urlId,
      pageTitle: this.config.pageTitle ?? document.title,
      parentId: draft.parentId,
      date: Date.now(),
    };
    try {
      const answer = await this.api.call('POST', `/comments/${encodeURIComponent(this.tenantId)}`, { urlId: this.urlId, broadcastId: this.#broadcast(), ...this.identity() }, body);
      if (answer['user']) this.setUser({ ...this.user, ...answer['user'] });
      if (typeof answer['userIdWS'] === 'string') this.#live?.retarget(answer['userIdWS']);
      const comment = answer['comment'] as WidgetComment;
      this.#insert(comment, true);
      if (!draft.parentId) this.commentCount++;
      this.changed();
      this.config.onReplySuccess?.(comment);
      return true;
    } catch (err) {
      this.fail(where, err);
      return false;
    }
  }

  /**
   * Puts back what was posted or received live while the replacing read was in flight: the read
   * may predate it, and a post's own fields (its `editKey`) are in no read of another session.
   */
  #keepArrived(before: Map<string, WidgetComment>): void {
    for (const [id, shown] of this.#arrived) {
      const held = before.get(id);
      if (!held) continue;
      const read = this.comments.get(id);
      if (read) {
        this.comments.set(id, { ...held, ...read });
        continue;
      }
      this.#insert(held, shown);
      if (!held.parentId) this.commentCount++;
    }
  }

  #endReplacing(): void {
    this.#replacing = 0;
    this.#arrived.clear();
  }

  /** Puts a comment into the thread: roots at the top (bottom for oldest first), replies after their parent's subtree. */
  #insert(comment: WidgetComment, shown: boolean): void {
    const known = this.comments.has(comment._id);
    this.comments.set(comment._id, { ...this.comments.get(comment._id), ...comment });
    if (this.#replacing !== 0) this.#arrived.set(comment._id, shown);
    if (known) return;
    if (!comment.parentId && this.direction !== 'OF') this.order.unshift(comment._id);
    else this.order.push(comment._id);
    if (!shown) this.waiting.add(comment._id);
  }

  async vote(c: WidgetComment, dir: 'up' | 'down'): Promise<void> {
    const where = `vote:${c._id}`;
    this.errors.delete(where);
    const q = { urlId: this.urlId, broadcastId: this.#broadcast(), ...this.identity() };
    try {
      if ((dir === 'up' && c.isVotedUp) || (dir === 'down' && c.isVotedDown)) {
        const answer = await this.api.call('DELETE', `/comments/${encodeURIComponent(this.tenantId)}/${c._id}/vote/${c.myVoteId}`, { ...q, editKey: c.editKey });
        const delta = answer['wasPendingVote'] ? 0 : 1;
        this.#patch(c._id, {
          isVotedUp: false,
          isVotedDown: false,
          myVoteId: null,
          votesUp: (c.votesUp ?? 0) - (c.isVotedUp ? delta : 0),
          votesDown: (c.votesDown ?? 0) - (c.isVotedDown ? delta : 0),
        });
        this.config.onVoteSuccess?.(this.comments.get(c._id)!, c.myVoteId ?? '', 'deleted', 'success');
        return;
      }
      const answer = await this.api.call('POST', `/comments/${encodeURIComponent(this.tenantId)}/${c._id}/vote`, q, {
        voteDir: dir,
        url: this.config.url ?? location.href,
        commenterName: this.user?.username ?? null,
        commenterEmail: this.user?.email ?? null,
      });
      if (answer['user']) this.setUser({ ...this.user, ...answer['user'] });
      const counted = answer['status'] === 'success' ? 1 : 0;
      this.#patch(c._id, {
        isVotedUp: dir === 'up',
        isVotedDown: dir === 'down',
        myVoteId: answer['voteId'],
        votesUp: (c.votesUp ?? 0) + (dir === 'up' ? counted : 0),
        votesDown: (c.votesDown ?? 0) + (dir === 'down' ? counted : 0),
      });
      this.config.onVoteSuccess?.(this.comments.get(c._id)!, answer['voteId'], dir, answer['status']);
    } catch (err) {
      this.fail(where, err);
    }
  }

  #patch(id: string, fields: Partial<WidgetComment>): void {
    const held = this.comments.get(id);
    if (!held) return;
    this.comments.set(id, { ...held, ...fields });
    this.changed();
  }

  /** The comment's own text, for the editor. */
  async textOf(c: WidgetComment): Promise<string | undefined> {
    try {
      const answer = await this.api.call('GET', `/comments/${encodeURIComponent(this.tenantId)}/${c._id}/text`, { editKey: c.editKey, ...this.identity() });
      return String(answer['commentText'] ?? '');
    } catch (err) {
      this.fail(`edit:${c._id}`, err);
      return undefined;
    }
  }

  async edit(c: WidgetComment, text: string): Promise<boolean> {
    const where = `edit:${c._id}`;
    this.errors.delete(where);
    if (text.length > this.maxLength) {
      this.errors.set(where, this.t('COMMENT_TOO_LONG', { max: this.maxLength }));
      this.changed();
      return false;
    }
    try {
      const answer = await this.api.call('POST', `/comments/${encodeURIComponent(this.tenantId)}/${c._id}/update-text`, { broadcastId: this.#broadcast(), editKey: c.editKey, ...this.identity() }, { comment: text });
      const updated = answer['comment'] as Partial<WidgetComment> | undefined;
      this.#patch(c._id, { commentHTML: updated?.commentHTML ?? text, approved: updated?.approved ?? c.approved });
      return true;
    } catch (err) {
      this.fail(where, err);
      return false;
    }
  }

  async remove(c: WidgetComment): Promise<void> {
    const where = `actions:${c._id}`;
    this.errors.delete(where);
    try {
      const answer = await this.api.call('DELETE', `/comments/${encodeURIComponent(this.tenantId)}/${c._id}`, { broadcastId: this.#broadcast(), editKey: c.editKey, ...this.identity() });
      if (answer['hardRemoved']) this.#drop(c._id);
      else this.#patch(c._id, { ...(answer['comment'] ?? {}), isDeleted: true });
      this.changed();
    } catch (err) {
      this.fail(where, err);
    }
  }

  #drop(id: string): void {
    const held = this.comments.get(id);
    if (!held) return;
    this.comments.delete(id);
    this.#arrived.delete(id);
    this.order = this.order.filter((x) => x !== id);
    this.waiting.delete(id);
    if (!held.parentId) this.commentCount = Math.max(0, this.commentCount - 1);
  }

  async flag(c: WidgetComment): Promise<void> {
    const where = `actions:${c._id}`;
    this.errors.delete(where);
    try {
      await this.api.call('POST', `/flag-comment/${c._id}`, { tenantId: this.tenantId, isFlagged: !c.isFlagged, ...this.identity() });
      this.#patch(c._id, { isFlagged: !c.isFlagged });
    } catch (err) {
      this.fail(where, err);
    }
  }

  async block(c: WidgetComment): Promise<void> {
    const where = `actions:${c._id}`;
    this.errors.delete(where);
    try {
      const answer = await this.api.call(c.isBlocked ? 'DELETE' : 'POST', `/block-from-comment/${c._id}`, { tenantId: this.tenantId, ...this.identity() }, { commentIds: [...this.comments.keys()] });
      for (const [id, blocked] of Object.entries((answer['commentStatuses'] ?? {}) as Record<string, boolean>)) this.#patch(id, { isBlocked: blocked });
    } catch (err) {
      this.fail(where, err);
    }
  }

  async #moderationStrings(): Promise<void> {
    try {
      const answer = await this.api.call<{ translations: Record<string, string> }>('GET', '/translations/widgets/comment-ui-moderation', { locale: this.locale });
      this.strings = { ...answer.translations, ...this.strings };
      this.changed();
    } catch {
      // English labels stay.
    }
  }

  /** Pin, unpin, lock or unlock (moderators); the change reaches every reader live. */
  async moderate(c: WidgetComment, action: 'pin' | 'unpin' | 'lock' | 'unlock'): Promise<void> {
    const where = `actions:${c._id}`;
    this.errors.delete(where);
    try {
      await this.api.call('POST', `/comments/${encodeURIComponent(this.tenantId)}/${c._id}/${action}`, { broadcastId: this.#broadcast(), ...this.identity() });
      const fields: Partial<WidgetComment> = action === 'pin' || action === 'unpin' ? { isPinned: action === 'pin' } : { isLocked: action === 'lock' };
      this.#patch(c._id, fields);
    } catch (err) {
      this.fail(where, err);
    }
  }

  setDirection(direction: SortDirection): void {
    this.direction = direction;
    this.loading = true;
    this.changed();
    void this.load(false, false);
  }

  /** Shows the waiting comments: all root ones, or the replies waiting under `parentId`. */
  reveal(parentId: string | null): void {
    for (const id of [...this.waiting]) if ((this.comments.get(id)?.parentId ?? null) === parentId) this.waiting.delete(id);
    this.changed();
  }

  /** How many comments wait under `parentId` (null: the root level). */
  waitingUnder(parentId: string | null): number {
    let n = 0;
    for (const id of this.waiting) if ((this.comments.get(id)?.parentId ?? null) === parentId) n++;
    return n;
  }

  onLive(event: LiveFrame): void {
    if (this.#destroyed) return;
    if (event.broadcastId && this.#sent.has(event.broadcastId)) return;
    const comment = event['comment'] as WidgetComment | undefined;
    switch (event.type) {
      case 'new-comment': {
        if (!comment || this.comments.has(comment._id)) {
          if (comment && this.comments.get(comment._id)?.approved === false) this.#patch(comment._id, comment);
          return;
        }
        this.#insert(comment, Boolean(this.config.showLiveRightAway));
        if (!comment.parentId) this.commentCount++;
        this.announcement = this.config.showLiveRightAway ? `${comment.commenterName ?? ''}: ${this.t('SUBMIT_COMMENT')}` : this.t('SHOW_NEW_COMMENTS', { count: this.waitingUnder(comment.parentId ?? null) });
        break;
      }
      case 'updated-comment':
        if (comment) this.#patch(comment._id, comment);
        break;
      case 'deleted-comment':
        if (comment) this.#drop(comment._id);
        break;
      case 'new-vote':
      case 'deleted-vote': {
        const counts = event['counts'] as { commentId: string; votes: number; votesUp: number; votesDown: number } | undefined;
        if (counts) this.#patch(counts.commentId, { votes: counts.votes, votesUp: counts.votesUp, votesDown: counts.votesDown });
        break;
      }
      case 'p-u':
        if (typeof event['sc'] === 'number') this.online = Math.max(1, event['sc']);
        this.onlineUsers.stale();
        break;
      case 'notification': {
        const text = this.bell.received(event['notification']);
        if (text) this.announcement = text;
        break;
      }
      case 'notification-update':
        if (typeof event['changes']?.['count'] === 'number') this.bell.count = event['changes']['count'];
        break;
      case 'thread-state-change':
        this.isClosed = Boolean(event['isClosed']);
        break;
      case 'new-config':
        if (event['config']) this.applyServerConfig(event['config']);
        break;
      default:
        return;
    }
    this.changed();
  }

  /** Ends the live channel; the state is dropped with the view. */
  destroy(): void {
    this.#destroyed = true;
    this.#live?.close();
    this.onlineUsers.close();
  }
}

export { ApiFailure };
