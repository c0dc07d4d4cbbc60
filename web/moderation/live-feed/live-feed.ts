/**
 * The moderators' live feed (a websocket to this server, docs/moderation.md): it names each new
 * comment as it is stored, and each comment a moderation action changed (`moderation-updated`). After a drop it reconnects, waiting longer each time up to 30 s, and
 * tells the page, which reads its queue again so that nothing posted meanwhile is missed.
 */

const MAX_WAIT_MS = 30_000;

export interface LiveFeedHandlers {
  onQueued(commentId: string): void;
  /** A moderator (this one or another) changed the comment: `changed` names the fields. */
  onUpdated(commentId: string, changed: readonly string[]): void;
  /** Connected (again: `again` is true after a drop) or not. */
  onState(connected: boolean, again: boolean): void;
}

export class LiveFeed {
  #socket: WebSocket | undefined;
  #wait = 1000;
  #closed = false;
  #opened = false;
  #retry: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly path: string,
    readonly handlers: LiveFeedHandlers,
  ) {
    this.#connect();
  }

  #connect(): void {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const socket = new WebSocket(`${scheme}://${location.host}${this.path}`);
    this.#socket = socket;
    socket.onopen = () => {
      this.#wait = 1000;
      this.handlers.onState(true, this.#opened);
      this.#opened = true;
    };
    socket.onmessage = (e) => {
      try {
        const frame = JSON.parse(String(e.data)) as { type?: string; commentId?: string; changed?: unknown };
        if (typeof frame.commentId !== 'string') return;
        if (frame.type === 'moderation-queued') this.handlers.onQueued(frame.commentId);
        else if (frame.type === 'moderation-updated') this.handlers.onUpdated(frame.commentId, Array.isArray(frame.changed) ? frame.changed.filter((f): f is string => typeof f === 'string') : []);
      } catch {
        // Not a frame of ours (a pong): nothing to do.
      }
    };
    socket.onclose = () => {
      if (this.#closed) return;
      this.handlers.onState(false, false);
      this.#retry = setTimeout(() => this.#connect(), this.#wait);
      this.#wait = Math.min(this.#wait * 2, MAX_WAIT_MS);
    };
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#retry);
    this.#socket?.close();
  }
}
