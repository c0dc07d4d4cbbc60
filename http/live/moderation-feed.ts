/**
 * The moderators' live feed (docs/moderation.md, "The moderation page"): a websocket at
 * `/auth/my-account/moderate-comments/live` that a signed-in moderator's page opens to hear of
 * new comments as they are stored, pending approval or not, so the queue fills without reloads.
 * The upgrade is checked as every moderation call is (the session cookie, `requireModerator`);
 * the browser's `Origin` must be this server's own, so another site cannot open it with the
 * moderator's cookie. A frame names the comment only (`{"type":"moderation-queued","commentId",
 * "urlId"}`): the page reads it through the moderation API, which applies the moderator's
 * groups again. Group-limited moderators hear only comments of their groups. A moderation
 * action that changes a comment sends `{"type":"moderation-updated","commentId","urlId",
 * "changed":[field names]}` (actors/moderation/update-event.ts) the same way, so every open
 * page follows the other moderators' decisions.
 */
import { isModerationQueued } from '../../actors/moderation/queue-event.js';
import { isModerationUpdated } from '../../actors/moderation/update-event.js';
import { ApiError } from '../../engine/errors.js';
import type { BusListener } from '../../engine/event-bus.js';
import { requireModerator } from '../moderation/moderator.js';
import { errorReply } from '../respond.js';
import type { RouteRequest } from '../route.js';
import type { AppServices } from '../services.js';
import type { LiveBehavior, LiveSocket } from '../uws/index.js';

/** Where the feed is served. */
export const MODERATION_FEED_PATH = '/auth/my-account/moderate-comments/live';

/** Open feeds of one tenant at most: moderators are few, so more is a client gone wrong. */
const MAX_PER_TENANT = 200;

interface FeedSocket {
  readonly tenantId: string;
  readonly groups: readonly string[] | null;
}

/** Whether `origin` is the host the request was sent to (scheme ignored: a proxy may end TLS). */
function sameOrigin(origin: string | undefined, host: string | undefined): boolean {
  if (!origin || !host) return false;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

/** The feed: its websocket behaviour and the bus listener that fills it. */
export class ModerationFeed {
  readonly #app: AppServices;
  readonly #open = new Map<string, Set<LiveSocket<FeedSocket>>>();

  constructor(app: AppServices) {
    this.#app = app;
  }

  readonly behavior: LiveBehavior<FeedSocket> = {
    maxBackpressure: 64 * 1024,
    // A moderator whose page cannot keep up is closed and reconnects, reading the queue anew.
    closeOnBackpressureLimit: true,
    idleTimeoutSeconds: 120,
    maxPayloadLength: 1024,
    upgrade: async (req) => {
      try {
        if (!sameOrigin(req.headers['origin'], req.headers['host'])) throw new ApiError('moderation-forbidden', 'The moderation feed is opened by this server\'s own moderation page only.');
        const moderator = await requireModerator({ app: this.#app, query: {}, headers: req.headers, ip: req.ip } as unknown as RouteRequest<Record<string, never>, unknown>);
        if ((this.#open.get(moderator.tenantId)?.size ?? 0) >= MAX_PER_TENANT) throw new ApiError('rate-limited', 'Too many moderation pages are open for this tenant.');
        return { accept: { tenantId: moderator.tenantId, groups: moderator.groups } };
      } catch (err) {
        return { refuse: errorReply(err) };
      }
    },
    open: (socket) => {
      let sockets = this.#open.get(socket.data.tenantId);
      if (sockets === undefined) {
        sockets = new Set();
        this.#open.set(socket.data.tenantId, sockets);
      }
      sockets.add(socket);
    },
    message: (socket, text) => {
      if (text === 'ping') socket.send('pong');
    },
    close: (socket) => {
      const sockets = this.#open.get(socket.data.tenantId);
      if (sockets === undefined || !sockets.delete(socket)) return;
      if (sockets.size === 0) this.#open.delete(socket.data.tenantId);
    },
  };

  /** Hears `moderation-queued` and `moderation-updated` on tenant topics, from this node or (cluster mode) another. */
  readonly onBusEvent: BusListener = (topic, event) => {
    if (!topic.startsWith('tenant:')) return;
    const updated = isModerationUpdated(event);
    if (!updated && !isModerationQueued(event)) return;
    const sockets = this.#open.get(event.tenantId);
    if (sockets === undefined) return;
    const frame = JSON.stringify(updated ? { type: event.type, commentId: event.commentId, urlId: event.urlId, changed: event.changed } : { type: event.type, commentId: event.commentId, urlId: event.urlId });
    for (const socket of sockets) {
      const groups = socket.data.groups;
      if (groups !== null && !(event.moderationGroupIds ?? []).some((g) => groups.includes(g))) continue;
      socket.send(frame);
    }
  };
}
