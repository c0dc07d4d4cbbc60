/** The reader's notification bell: the unread count, the list, mark read, following the page. */
import type { Api, Query } from '../shared/api.js';

/** What the bell needs of the widget (the controller). */
export interface BellHost {
  readonly api: Api;
  readonly tenantId: string;
  readonly urlId: string;
  readonly config: { url?: string; pageTitle?: string };
  readonly errors: Map<string, string>;
  identity(): Query;
  t(key: string, values?: Record<string, string | number>): string;
  fail(where: string, err: unknown): void;
  changed(): void;
}

/** Notification types and their strings (the others read as a reply). */
const TEXTS: Readonly<Record<number, string>> = { 1: 'NOTIFICATION_THREAD_REPLY', 2: 'NOTIFICATION_VOTE', 3: 'NOTIFICATION_SUBSCRIPTION', 7: 'NOTIFICATION_MENTION' };

export class NotificationBell {
  /** Unread notifications. */
  count = 0;
  /** The list, once opened. */
  items: Array<Record<string, any>> | undefined;
  open = false;
  isSubscribed = false;

  constructor(readonly host: BellHost) {}

  /** The words for one notification. */
  text(n: Record<string, any>): string {
    return this.host.t(TEXTS[Number(n['type'])] ?? 'NOTIFICATION_REPLY', { name: String(n['fromUserName'] ?? '—'), page: String(n['pageTitle'] || n['url'] || '') });
  }

  /** A live `notification`: counted, listed when the list is open; answers its words. */
  received(n: Record<string, any> | undefined): string | undefined {
    this.count++;
    if (!n) return undefined;
    if (this.items && !this.items.some((x) => x['_id'] === n['_id'])) this.items.unshift(n);
    return this.text(n);
  }

  /** Opens or closes the list (read from the server when opened). */
  async toggle(): Promise<void> {
    const h = this.host;
    this.open = !this.open;
    h.errors.delete('bell');
    h.changed();
    if (!this.open) return;
    try {
      const answer = await h.api.call('GET', '/user-notifications', { tenantId: h.tenantId, urlId: h.urlId, ...h.identity() });
      this.items = answer['notifications'] ?? [];
      this.isSubscribed = Boolean(answer['isSubscribed']);
      h.changed();
    } catch (err) {
      h.fail('bell', err);
    }
  }

  async markRead(n: Record<string, any>): Promise<void> {
    const h = this.host;
    try {
      await h.api.call('POST', `/user-notifications/${encodeURIComponent(n['_id'])}/mark/read`, { tenantId: h.tenantId, ...h.identity() });
      if (!n['viewed']) this.count = Math.max(0, this.count - 1);
      n['viewed'] = 'true';
      h.changed();
    } catch (err) {
      h.fail('bell', err);
    }
  }

  /** Follows (or stops following) the page: new comments on it notify the reader. */
  async setSubscribed(on: boolean): Promise<void> {
    const h = this.host;
    try {
      await h.api.call('POST', `/user-notifications/set-subscription-state/${on ? 'subscribe' : 'unsubscribe'}`, {
        tenantId: h.tenantId,
        urlId: h.urlId,
        url: h.config.url ?? location.href,
        pageTitle: h.config.pageTitle ?? document.title,
        ...h.identity(),
      });
      this.isSubscribed = on;
      h.changed();
    } catch (err) {
      h.fail('bell', err);
    }
  }
}
