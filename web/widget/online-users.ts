/** Who is online on the page: the names under the "N viewing" count, read again as readers come and go. */
import type { Api } from '../shared/api.js';

/** What the list needs of the widget (the controller). */
export interface OnlineHost {
  readonly api: Api;
  readonly tenantId: string;
  readonly urlId: string;
  changed(): void;
}

/** One reader online, as `/pages/{tenantId}/users/online` lists them. */
export interface OnlineUser {
  id: string;
  displayName: string;
  isPrivate: boolean;
}

/** Presence frames come in bursts when many readers arrive: one read per quiet half second. */
const DEBOUNCE_MS = 500;

export class OnlineUsers {
  /** Named readers online (the first page of them), in the server's order. */
  users: OnlineUser[] = [];
  /** Readers online without a name. */
  anonCount = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(readonly host: OnlineHost) {}

  /** The page's presence changed (a `p-u` frame, a reconnect): read the list again soon. */
  stale(): void {
    if (this.#closed) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#read(), DEBOUNCE_MS);
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  async #read(): Promise<void> {
    const h = this.host;
    try {
      // Presence reads carry no identity (widget-api.md, step 1): the list is the same for everyone.
      const answer = await h.api.call('GET', `/pages/${encodeURIComponent(h.tenantId)}/users/online`, { urlId: h.urlId });
      if (this.#closed) return;
      this.users = ((answer['users'] ?? []) as OnlineUser[]).map((u) => ({ id: u.id, displayName: u.displayName, isPrivate: u.isPrivate }));
      this.anonCount = Number(answer['anonCount'] ?? 0);
      h.changed();
    } catch {
      // The list is a courtesy: the count still shows, and the next presence change reads again.
    }
  }
}
