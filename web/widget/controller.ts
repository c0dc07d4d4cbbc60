/**
 * The widget's state and every action a reader takes: one object the view renders from and
 * calls. Each change calls `changed()`, and the view re-renders.
 */
import { Api, ApiFailure, type Query } from '../shared/api.js';
import { browserLocale, FALLBACK, format, type Strings } from '../shared/strings.js';
import type { SortDirection, WidgetComment, WidgetConfig, WidgetUser } from '../shared/types.js';
import { LiveChannel, type LiveFrame } from './live.js';
import { renderComment } from '../../actors/page/render.js';
import type { Formatting } from '../shared/components/comment-form/index.js';
import { CommentActions } from './comment-actions.js';
import { applyLiveEvent } from './live-events.js';
import { Moderation } from './moderation.js';
import { NotificationBell } from './notifications.js';
import { OnlineUsers } from './online-users.js';
import { PageReactions } from './page-reactions.js';
import { Polls } from './polls.js';
import { defaultUrlId, newBroadcastId, sessionStore } from './page-identity.js';
import type { SsrLinks } from './ssr-links.js';
import { ThreadState } from './thread-state.js';
import type { WidgetHost } from './widget-host.js';

/** An error to show beside the control that caused it. */
export interface ShownError {
  readonly where: string;
  readonly text: string;
}

export type { Draft } from './comment-actions.js';
export type { SsrLinks } from './ssr-links.js';

export class WidgetController implements WidgetHost {
  /** Set when rendered on the server (no JavaScript): forms post and links navigate. */
  ssr: SsrLinks | undefined;
  readonly api: Api;
  config: WidgetConfig;
  strings: Strings = FALLBACK;
  locale: string;
  user: WidgetUser | null = null;
  /** The comments held, their order, and the live ones waiting (web/widget/thread-state.ts). */
  readonly thread = new ThreadState();
  /** Posting, voting, editing, reporting (web/widget/comment-actions.ts). */
  readonly actions = new CommentActions(this);
  /** A moderator's actions in the thread (web/widget/moderation.ts). */
  readonly moderation = new Moderation(this);
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
  /** The reader's notifications (web/widget/notifications.ts). */
  readonly bell: NotificationBell;
  /** Who is online on the page (web/widget/online-users.ts). */
  readonly onlineUsers: OnlineUsers;
  /** The page's reactions (web/widget/page-reactions.ts). */
  readonly reactions = new PageReactions(this);
  /** Polls of the thread's comments (web/widget/polls.ts). */
  readonly polls = new Polls(this);
  readonly #sent = new Set<string>();
  #live: LiveChannel | undefined;
  #destroyed = false;
  /** Counts list reads: only the latest one's comments are shown (an earlier sort or page answering late is dropped). */
  #reads = 0;
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

  get comments(): Map<string, WidgetComment> {
    return this.thread.comments;
  }

  get order(): string[] {
    return this.thread.order;
  }

  get waiting(): Set<string> {
    return this.thread.waiting;
  }

  /** A site administrator or moderator of this tenant: the moderation menu in the thread. */
  get isModerator(): boolean {
    return this.moderation.active;
  }

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
    if (first) {
      // Another page or reader (`update`, `updateUser`): reactions and poll votes are read afresh.
      this.polls.reset();
      void this.reactions.load();
    }
    const read = ++this.#reads;
    // What arrived before this read is durable, so the read sees it.
    if (!more) this.thread.beginReplacing(read);
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
      this.thread.endReplacing(read);
      if (first) this.blocking = this.errorText(err);
      else this.errors.set('load', this.errorText(err));
      this.changed();
      return;
    }
    // Requests may answer out of order (a sort changed twice quickly): a later read decides the
    // thread, while the reader, configuration and live channel of any answer still apply.
    const latest = read === this.#reads;
    if (latest) {
      const before = more ? undefined : this.thread.reset();
      for (const c of answer['comments'] as WidgetComment[]) this.thread.add(c);
      this.page = answer['pageNumber'] ?? page;
      this.hasMore = Boolean(answer['hasMore']);
      this.commentCount = answer['commentCount'] ?? this.commentCount;
      if (before) this.commentCount += this.thread.keepArrived(before, this.direction);
    }
    this.thread.endReplacing(read);
    this.isClosed = Boolean(answer['isClosed']);
    this.setUser(answer['user'] ?? null);
    if (first) this.bell.count = Number(answer['notificationCount'] ?? 0);
    this.moderation.fromAnswer(answer);
    const custom = answer['customConfig'] as Record<string, any> | undefined;
    if (custom) this.applyServerConfig(custom);
    if (latest) {
      this.loading = false;
      this.errors.delete('load');
    }
    this.changed();
    if (latest && !more) void this.moderation.loadHeld();
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

  /** Says `text` politely to screen readers (the widget's `role="status"` region). */
  announce(text: string): void {
    this.announcement = text;
    this.changed();
  }

  /** Shows `err` in words beside the control `where`. */
  fail(where: string, err: unknown): void {
    this.errors.set(where, this.errorText(err));
    this.changed();
  }

  /** A new broadcast id for an action, so its live echo is not applied twice. */
  broadcast(): string {
    const id = newBroadcastId();
    this.#sent.add(id);
    return id;
  }

  /** Changes fields of a held comment and re-renders. */
  patch(id: string, fields: Partial<WidgetComment>): void {
    if (this.thread.patch(id, fields)) this.changed();
  }

  /** Takes a comment out of the thread (a root one out of the count). */
  drop(id: string): void {
    const held = this.thread.drop(id);
    if (held && !held.parentId) this.commentCount = Math.max(0, this.commentCount - 1);
  }

  /** The live channel follows the reader's new identity (a guest's first post names it). */
  retargetLive(userIdWS: string): void {
    this.#live?.retarget(userIdWS);
  }

  setDirection(direction: SortDirection): void {
    this.direction = direction;
    this.loading = true;
    this.changed();
    void this.load(false, false);
  }

  /** Shows the waiting comments: all root ones, or the replies waiting under `parentId`. */
  reveal(parentId: string | null): void {
    this.thread.reveal(parentId);
    this.changed();
  }

  /** How many comments wait under `parentId` (null: the root level). */
  waitingUnder(parentId: string | null): number {
    return this.thread.waitingUnder(parentId);
  }

  onLive(event: LiveFrame): void {
    if (this.#destroyed) return;
    if (event.broadcastId && this.#sent.has(event.broadcastId)) return;
    if (applyLiveEvent(this, event)) this.changed();
  }

  /** Ends the live channel; the state is dropped with the view. */
  destroy(): void {
    this.#destroyed = true;
    this.#live?.close();
    this.onlineUsers.close();
  }
}

export { ApiFailure };
