/**
 * Fixtures for the live-channel tests: a real websocket client (the `ws` package) and a small
 * actor that publishes live events through the output gate, as the page actor does.
 */
import WebSocket from 'ws';
import { SERVER_STATE } from '../../../actors/live/live-secret.js';
import { LIVE_EVENT_TYPES, type LiveEvent } from '../../../actors/live/live-events.js';
import { Actor, defineKind, type Handlers } from '../../../engine/actor.js';
import type { ActorSystem } from '../../../engine/actor-system.js';
import { clock } from '../../../engine/clock.js';
import type { TestServer } from '../../fixtures/server.js';
import { EVENT_LOG, type EventLogChunk } from '../../../actors/live/event-log-model.js';
import type { Doc, Filter } from '../../../storage/store.js';

const PRESENCE_FRAME = `{"type":"${LIVE_EVENT_TYPES.presenceUpdate}"`;
const CONFIG_FRAME = `{"type":"${LIVE_EVENT_TYPES.newConfig}"`;

/** A refused upgrade: the HTTP status and the parsed `APIError` body. */
export class Refused extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(`upgrade refused with ${status}: ${JSON.stringify(body)}`);
  }
}

/** A websocket subscriber that keeps every message it receives, in order. */
export class LiveClient {
  readonly socket: WebSocket;
  /** Messages not yet taken (and a few taken ones). */
  readonly messages: string[] = [];
  /** Resolves with the close code once the connection is closed (by either side). */
  readonly closed: Promise<number>;
  #read = 0;
  #wake: (() => void) | undefined;
  #closedWith = '';
  #error: string | undefined;

  private constructor(socket: WebSocket, keep: { presence?: boolean; config?: boolean }) {
    this.socket = socket;
    socket.on('message', (data: Buffer) => {
      const text = data.toString('utf8');
      // Presence and configuration frames come as readers join and leave and as settings change; tests of other events do not count them.
      if (keep.presence !== true && text.startsWith(PRESENCE_FRAME)) return;
      if (keep.config !== true && text.startsWith(CONFIG_FRAME)) return;
      this.messages.push(text);
      this.#wake?.();
    });
    socket.on('error', (err: Error) => (this.#error = err.message));
    this.closed = new Promise((resolve) =>
      socket.once('close', (code: number, reason: Buffer) => {
        this.#closedWith = `code ${code}${reason.length > 0 ? ` ${reason.toString()}` : ''}${this.#error ? `, client error: ${this.#error}` : ''}`;
        resolve(code);
        this.#wake?.();
      }),
    );
  }

  /**
   * Connects; rejects with `Refused` when the server answers the upgrade with an error. Presence
   * frames (`p-u`) are kept only with `options.presence`, `new-config` frames with `options.config`.
   */
  static connect(url: string, headers: Record<string, string> = {}, options: { presence?: boolean; config?: boolean } = {}): Promise<LiveClient> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { headers });
      const client = new LiveClient(socket, options);
      socket.once('open', () => resolve(client));
      socket.once('unexpected-response', (_req, res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => {
          socket.terminate();
          reject(new Refused(res.statusCode ?? 0, JSON.parse(text) as Record<string, unknown>));
        });
      });
      socket.once('error', (err) => reject(err));
    });
  }

  /** The next `count` messages not read yet, waiting for them; rejects if the socket closes first. */
  async take(count: number): Promise<string[]> {
    while (this.messages.length - this.#read < count) {
      if (this.socket.readyState === WebSocket.CLOSED) throw new Error(`closed (${this.#closedWith}) after ${this.messages.length} messages, wanted ${this.#read + count}`);
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
    const out = this.messages.slice(this.#read, this.#read + count);
    this.#read += count;
    if (this.#read >= 1024) {
      // Read messages are let go, so a long-running subscriber holds only what it has not read.
      this.messages.splice(0, this.#read);
      this.#read = 0;
    }
    return out;
  }

  /** The next message, parsed. */
  async next(): Promise<LiveEvent> {
    const [text] = await this.take(1);
    return JSON.parse(text!) as LiveEvent;
  }

  close(): void {
    this.socket.close();
  }
}

/** The `/sub` URL of a server for the given (already opaque) ids. */
export function subUrl(t: TestServer, ids: { tenantIdWS?: string; urlId?: string; userIdWS?: string }): string {
  const params = new URLSearchParams();
  if (ids.urlId !== undefined) params.set('urlId', ids.urlId);
  if (ids.userIdWS !== undefined) params.set('userIdWS', ids.userIdWS);
  if (ids.tenantIdWS !== undefined) params.set('tenantIdWS', ids.tenantIdWS);
  return `${t.url.replace('http://', 'ws://')}/sub?${params}`;
}

/** Connects a subscriber to a page of a tenant (and a user, if given) with ids the server issued. */
export function subscribe(t: TestServer, tenantId: string, urlId: string, userId?: string, keep: { presence?: boolean; config?: boolean } = {}): Promise<LiveClient> {
  const ids = t.server.services.liveIds;
  return LiveClient.connect(
    subUrl(t, {
      tenantIdWS: ids.tenantIdWS(tenantId),
      urlId: ids.urlIdWS(tenantId, urlId),
      ...(userId === undefined ? {} : { userIdWS: ids.userIdWS(tenantId, userId) }),
    }),
    {},
    keep,
  );
}

export type ProbeProtocol = {
  /** Writes one document, then publishes `events` on `topic`: they go out once the write is durable. */
  emit: { in: { topic: string; events: LiveEvent[] }; out: null };
};

export const ProbeKind = defineKind<ProbeProtocol>('live-probe');

class ProbeActor extends Actor<ProbeProtocol> {
  #count = 0;

  override async onStart(): Promise<void> {}

  readonly handlers: Handlers<ProbeProtocol> = {
    emit: ({ topic, events }) => {
      this.#count++;
      this.put(SERVER_STATE, { _id: `live-probe:${this.id}`, count: this.#count });
      for (const event of events) this.publish(topic, event);
      return null;
    },
  };
}

const registered = new WeakSet<ActorSystem>();

/** Publishes events through a probe actor of the server (one actor per `probeId`, so one commit order). */
export function emit(t: TestServer, topic: string, events: LiveEvent[], probeId = 'p'): Promise<null> {
  const system = t.server.services.system;
  if (!registered.has(system)) {
    system.register(ProbeKind, (ctx) => new ProbeActor(ctx));
    registered.add(system);
  }
  return system.ask(ProbeKind, probeId, 'emit', { topic, events });
}

/** A `new-vote` event numbered `seq` (also its vote id), with optional extra fields. */
export function voteEvent(seq: number, extra: Record<string, unknown> = {}): LiveEvent {
  return {
    type: LIVE_EVENT_TYPES.newVote,
    timestamp: clock.now(),
    broadcastId: `b${seq}`,
    vote: { _id: `v${seq}`, commentId: 'c1', direction: 1 },
    seq,
    ...extra,
  };
}

/** How many entries the event log holds in storage for a filter (entries are stored in chunks). */
export async function storedEntries(store: { find<T extends Doc>(collection: string, filter: Filter): Promise<T[]> }, filter: Filter): Promise<number> {
  const chunks = await store.find<EventLogChunk>(EVENT_LOG, filter);
  return chunks.reduce((sum, chunk) => sum + chunk.count, 0);
}
