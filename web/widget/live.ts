/**
 * The page's live channel (`/sub`) with reconnect and catch-up: after any drop it reopens and
 * reads the event log from the last event it saw, so nothing is missed. Events can arrive twice
 * (the log's start is inclusive, and the socket may deliver what the log also answers), so each
 * is handed on once, keyed by its type, time and subject; the handlers apply them idempotently.
 */
import type { Api } from '../shared/api.js';

/** One live event as the server frames it. */
export type LiveFrame = Record<string, any> & { type: string; timestamp?: number };

/** The ids a page read hands out, and where to connect. */
export interface LiveTarget {
  wsHost: string;
  tenantId: string;
  urlId: string;
  tenantIdWS: string;
  urlIdWS: string;
  userIdWS: string;
}

/** How often `usePolling` reads the event log. */
const POLL_MS = 2_000;

/** Remembered event keys (a bound: catch-up windows are short). */
const SEEN_LIMIT = 2000;

/** A live subscription that survives drops. */
export class LiveChannel {
  #socket: WebSocket | undefined;
  #closed = false;
  #cursor: number;
  #seen = new Set<string>();
  #retry: ReturnType<typeof setTimeout> | undefined;
  #catchingUp: Promise<void> = Promise.resolve();

  constructor(
    readonly api: Api,
    readonly target: LiveTarget,
    readonly onEvent: (event: LiveFrame) => void,
    readonly onStatus: (connected: boolean) => void,
    since: number,
    /** `usePolling`: no socket; the event log is read every 2 s, each read after the last ends. */
    readonly polling = false,
  ) {
    this.#cursor = since;
    if (polling) void this.#poll();
    else this.#open();
  }

  async #poll(): Promise<void> {
    if (this.#closed) return;
    await this.#catchUp();
    if (!this.#closed) this.#retry = setTimeout(() => void this.#poll(), POLL_MS);
  }

  #open(): void {
    if (this.#closed) return;
    const t = this.target;
    const params = new URLSearchParams({ urlId: t.urlIdWS, userIdWS: t.userIdWS, tenantIdWS: t.tenantIdWS });
    const socket = new WebSocket(`${t.wsHost.replace(/^http/, 'ws')}/sub?${params}`);
    this.#socket = socket;
    socket.onopen = () => {
      this.onStatus(true);
      this.#catchingUp = this.#catchUp();
    };
    socket.onmessage = (message) => {
      let frame: LiveFrame;
      try {
        frame = JSON.parse(String(message.data));
      } catch {
        return;
      }
      // Frames that come while the log is read wait for it, so the order holds.
      void this.#catchingUp.then(() => this.#deliver(frame));
    };
    socket.onclose = () => {
      if (this.#socket !== socket) return;
      this.#socket = undefined;
      this.onStatus(false);
      // A first reconnect after a retarget is at once; after a drop, spread over up to 2 s.
      if (!this.#closed) this.#retry = setTimeout(() => this.#open(), 250 + Math.random() * 1750);
    };
  }

  /** Reads the event log from the cursor (inclusive), page by page. */
  async #catchUp(): Promise<void> {
    for (let round = 0; round < 20 && !this.#closed; round++) {
      let answer: { events?: Array<{ data: string }>; hasMore?: boolean };
      try {
        answer = await this.api.call('GET', `/event-log/${encodeURIComponent(this.target.tenantId)}`, {
          urlId: this.target.urlId,
          userIdWS: this.target.userIdWS,
          startTime: Math.max(0, Math.floor(this.#cursor)),
        });
      } catch {
        return;
      }
      const before = this.#cursor;
      for (const entry of answer.events ?? []) {
        try {
          this.#deliver(JSON.parse(entry.data));
        } catch {
          // An entry that is not JSON is skipped, as clients do.
        }
      }
      if (!answer.hasMore || this.#cursor === before) return;
    }
  }

  #deliver(frame: LiveFrame): void {
    // `p-u` and `cvc` carry absolute figures: one seen twice changes nothing.
    if (typeof frame.timestamp === 'number' && frame.type !== 'p-u' && frame.type !== 'cvc') {
      const key = `${frame.type}|${frame.timestamp}|${frame.comment?._id ?? frame.commentId ?? ''}|${frame.vote?._id ?? frame.vote?.id ?? frame.reactId ?? ''}|${frame.broadcastId ?? ''}|${frame.count ?? frame.poll?.totalVotes ?? ''}`;
      if (this.#seen.has(key)) return;
      this.#seen.add(key);
      if (this.#seen.size > SEEN_LIMIT) this.#seen.delete(this.#seen.values().next().value as string);
      this.#cursor = Math.max(this.#cursor, frame.timestamp);
    }
    this.onEvent(frame);
  }

  /**
   * Reopens as another reader (`userIdWS` after the reader's first write): the new socket
   * catches up from the cursor, so nothing falls between the two.
   */
  retarget(userIdWS: string): void {
    if (userIdWS === this.target.userIdWS) return;
    this.target.userIdWS = userIdWS;
    this.#socket?.close();
  }

  /** Whether the socket is open now. */
  get connected(): boolean {
    return this.#socket?.readyState === WebSocket.OPEN;
  }

  /** Closes for good: no reconnect. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#retry);
    const socket = this.#socket;
    this.#socket = undefined;
    socket?.close();
  }
}
