import { pageTopic, userTopic } from '../../actors/live/live-events.js';
import type { LiveIds } from '../../actors/live/live-ids.js';
import type { ActorSystem } from '../../engine/actor-system.js';
import { LIVE_PING, LIVE_PONG } from '../../actors/live/live-wire.js';
import { ApiError } from '../../engine/errors.js';
import { parseQuery, type Query } from '../query.js';
import { errorReply } from '../respond.js';
import type { LiveBehavior } from '../uws.js';
import { assertMayListen } from './page-access.js';

/** Limits of the `/sub` channel, documented in docs/live.md. */
export const SUB_LIMITS = {
  /**
   * Bytes a subscriber may have waiting in its send buffer. Beyond it the server closes the
   * connection instead of skipping messages, so a slow client never silently misses an
   * event: it reconnects and catches up from the event log.
   */
  maxBackpressureBytes: 128 * 1024,
  /** Clients ping every 60 s; a connection silent for twice that is dead. */
  idleTimeoutSeconds: 120,
  /** Clients only ever send `ping`. */
  maxMessageBytes: 1024,
} as const;

/** What a subscriber listens to, decided at upgrade. */
export interface Subscription {
  readonly tenantId: string;
  readonly urlId: string;
  /** The verified user, or null for an anonymous reader. */
  readonly userId: string | null;
  readonly topics: readonly string[];
}

const NO_USER = new Set(['', 'null', 'undefined']);

/** True for the values clients send when they have no user id (`'&userIdWS=' + undefined`). */
export function isNoUser(userIdWS: string): boolean {
  return NO_USER.has(userIdWS);
}

function single(query: Query, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw new ApiError('invalid-param', `${name} must be given once.`);
  return value;
}

/**
 * Decides what a `/sub?urlId=<urlIdWS>&userIdWS=<..>&tenantIdWS=<..>` connection may listen
 * to. The ids are the opaque ones the server handed out; each is bound to its tenant, so ids
 * forged or taken from another tenant are refused. Without a user id the connection gets the
 * page's events only.
 */
export function subscriptionFor(liveIds: LiveIds, query: Query): Subscription {
  const tenantIdWS = single(query, 'tenantIdWS');
  const urlIdWS = single(query, 'urlId');
  const userIdWS = single(query, 'userIdWS');
  if (!tenantIdWS) throw new ApiError('missing-param', 'tenantIdWS is required.');
  if (!urlIdWS) throw new ApiError('missing-param', 'urlId (the urlIdWS of the page) is required.');
  const tenantId = liveIds.tenantOf(tenantIdWS);
  if (tenantId === undefined) throw new ApiError('invalid-live-id', 'tenantIdWS was not issued by this server.');
  const urlId = liveIds.urlIdOf(tenantId, urlIdWS);
  if (urlId === undefined) throw new ApiError('invalid-live-id', 'urlId is not a urlIdWS issued for this tenant.');
  let userId: string | null = null;
  if (userIdWS !== undefined && !isNoUser(userIdWS)) {
    userId = liveIds.userIdOf(tenantId, userIdWS) ?? null;
    if (userId === null) throw new ApiError('invalid-live-id', 'userIdWS was not issued for this tenant.');
  }
  const topics = [pageTopic(tenantId, urlId)];
  if (userId !== null) topics.push(userTopic(tenantId, userId));
  return { tenantId, urlId, userId, topics };
}

/**
 * The `/sub` websocket channel: upgrades only with valid ids, and with a user's on pages that
 * require single sign-on (otherwise an `APIError` reply with its HTTP status), subscribes the
 * socket to its page's and user's topics, and answers the client's keep-alive `ping` with
 * `pong`. Any other client message is ignored.
 */
export function subChannel(liveIds: LiveIds, system: ActorSystem): LiveBehavior<Subscription> {
  return {
    maxBackpressure: SUB_LIMITS.maxBackpressureBytes,
    closeOnBackpressureLimit: true,
    idleTimeoutSeconds: SUB_LIMITS.idleTimeoutSeconds,
    maxPayloadLength: SUB_LIMITS.maxMessageBytes,
    async upgrade(req) {
      try {
        const subscription = subscriptionFor(liveIds, parseQuery(req.query));
        await assertMayListen(system, subscription.tenantId, subscription.urlId, subscription.userId);
        return { accept: subscription };
      } catch (err) {
        return { refuse: errorReply(err) };
      }
    },
    open(socket) {
      for (const topic of socket.data.topics) socket.subscribe(topic);
    },
    message(socket, text) {
      if (text === LIVE_PING) socket.send(LIVE_PONG);
    },
  };
}
