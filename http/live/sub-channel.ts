import { type AccessChanged, pageTopic, userTopic } from '../../actors/live/live-events.js';
import type { LiveIds } from '../../actors/live/live-ids.js';
import type { ActorSystem } from '../../engine/actor-system.js';
import type { BusListener } from '../../engine/event-bus.js';
import { clock } from '../../engine/clock.js';
import { log } from '../../engine/log.js';
import { LIVE_PING, LIVE_PONG } from '../../actors/live/live-wire.js';
import { ApiError } from '../../engine/errors.js';
import { parseQuery, type Query } from '../query.js';
import { errorReply } from '../respond.js';
import type { LiveBehavior, LiveSocket } from '../uws/index.js';
import { limitKey } from '../client-address.js';
import { checkSite, requestSite } from '../site-check.js';
import type { PublicLimits } from '../rate-limit.js';
import { assertMayListen } from './page-access.js';
import { liveClosed, liveOpened } from '../../engine/metrics/live-meters.js';
import { ANON_COOKIE, cookieValue } from '../anon-session.js';
import { anonPresenceId } from './presence.js';

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
  /**
   * Messages a client may send per second (clients ping once a minute); one that sends more is
   * closed with 1008: a flood of small frames would otherwise take the server's time from
   * everyone else.
   */
  maxMessagesPerSecond: 10,
} as const;

/** What a subscriber listens to, decided at upgrade. */
export interface Subscription {
  readonly tenantId: string;
  readonly urlId: string;
  /** The verified user, or null for an anonymous reader. */
  readonly userId: string | null;
  readonly topics: readonly string[];
  /** Messages received in the current one-second window (counted by the channel). */
  readonly traffic: { windowStart: number; count: number };
  /** The site of the page the browser connected from (`requestSite`), checked again when domains change. */
  readonly site: string | undefined;
  /** When the connection opened (ms, monotonic), and why the server closed it, once it did: for the close log. */
  readonly life: { openedAt: number; closedBecause: string | undefined };
  /** The reader as presence counts it (`http/live/presence.ts`); absent on the per-user channel. */
  readonly presenceId?: string;
}

/** The `tenantIdWS` of the per-user channel: `urlId` is then `__internal_profiles:<userIdWS>`. */
export const PROFILES_CHANNEL = '__internal_profiles';

/** What the channel tells presence of (`http/live/presence.ts`). */
export interface PresenceHooks {
  join(tenantId: string, urlId: string, id: string): void;
  leave(tenantId: string, urlId: string, id: string): void;
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
export function subscriptionFor(liveIds: LiveIds, query: Query, site?: string): Subscription {
  const tenantIdWS = single(query, 'tenantIdWS');
  const urlIdWS = single(query, 'urlId');
  const userIdWS = single(query, 'userIdWS');
  if (!tenantIdWS) throw new ApiError('missing-param', 'tenantIdWS is required.');
  if (!urlIdWS) throw new ApiError('missing-param', 'urlId (the urlIdWS of the page) is required.');
  if (tenantIdWS === PROFILES_CHANNEL) return profileSubscription(liveIds, urlIdWS, userIdWS, site);
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
  return { tenantId, urlId, userId, topics, traffic: { windowStart: 0, count: 0 }, site, life: { openedAt: 0, closedBecause: undefined } };
}

/**
 * The per-user channel: `tenantIdWS=__internal_profiles&urlId=__internal_profiles:<userIdWS>`
 * with the same `userIdWS`. It carries the user's own events (notifications) on every page;
 * the tenant is the one the `userIdWS` was issued for. Admission is checked as for a page
 * named `__internal_profiles` (single sign-on rules of the tenant).
 */
function profileSubscription(liveIds: LiveIds, urlIdWS: string, userIdWS: string | undefined, site: string | undefined): Subscription {
  const prefix = `${PROFILES_CHANNEL}:`;
  const named = urlIdWS.startsWith(prefix) ? urlIdWS.slice(prefix.length) : '';
  const given = userIdWS !== undefined && !isNoUser(userIdWS) ? userIdWS : named;
  if (given === '' || (named !== '' && named !== given)) throw new ApiError('invalid-live-id', `The per-user channel needs urlId=${prefix}<userIdWS> and that userIdWS.`);
  const user = liveIds.userOf(given);
  if (user === undefined) throw new ApiError('invalid-live-id', 'userIdWS was not issued by this server.');
  return { tenantId: user.tenantId, urlId: PROFILES_CHANNEL, userId: user.userId, topics: [userTopic(user.tenantId, user.userId)], traffic: { windowStart: 0, count: 0 }, site, life: { openedAt: 0, closedBecause: undefined } };
}

/** Close code for a reader whose page stopped admitting it (RFC 6455: policy violation). */
export const REFUSED_CLOSE = 1008;

/** Closes a reader with `REFUSED_CLOSE` and `reason` (a code clients can read), remembered for the close log. */
function closeBecause(socket: LiveSocket<Subscription>, reason: string): void {
  socket.data.life.closedBecause = reason;
  socket.close(REFUSED_CLOSE, reason);
}

/** Close codes a client sends when it leaves of its own accord (RFC 6455 §7.4.1). */
const CLIENT_CLOSES: ReadonlySet<number> = new Set([1000, 1001, 1005]);

/**
 * Logs how a reader's connection ended, where an operator sees it: closed by this server (a
 * refusal or the message rate: warn), ended without a close frame (1006: the client vanished,
 * it stayed silent past the idle timeout, or it read too slowly and was cut at the backpressure
 * limit: info), or left by the client (debug).
 */
function logClose(data: Subscription, code: number, reason: string): void {
  const fields = { tenantId: data.tenantId, urlId: data.urlId, code, reason, openMs: Math.round(performance.now() - data.life.openedAt) };
  if (data.life.closedBecause !== undefined) log.warn('live-closed-by-server', { ...fields, because: data.life.closedBecause });
  else if (CLIENT_CLOSES.has(code)) log.debug('live-closed-by-client', fields);
  else log.info('live-closed-abnormally', fields);
}

/**
 * The `/sub` websocket channel: upgrades only with valid ids, and with a user's on pages that
 * require single sign-on (otherwise an `APIError` reply with its HTTP status), subscribes the
 * socket to its page's and user's topics, and answers the client's keep-alive `ping` with
 * `pong`. Any other client message is ignored.
 *
 * Admission is also checked again when it may have changed: once a change of a tenant's or a
 * page's widget configuration, of a page's groups or of a user's groups is durable, every
 * reader concerned is checked as at upgrade, and closed (`REFUSED_CLOSE`, with the refusal's
 * code as reason) if it would now be refused. Otherwise a page switched to single sign-on
 * would go on showing its comments to readers it refuses.
 */
export class SubChannel {
  readonly #liveIds: LiveIds;
  readonly #system: ActorSystem;
  readonly #limits: PublicLimits;
  /** Open connections, by tenant: the ones a change of access may refuse. */
  readonly #open = new Map<string, Set<LiveSocket<Subscription>>>();
  readonly #follow: ((topics: readonly string[]) => Promise<void>) | undefined;
  readonly #presence: PresenceHooks | undefined;
  /** `OPEN_SITES_WITHOUT_DOMAINS`: any site may connect to a tenant with no domain configured. */
  readonly #openWithoutDomains: boolean;

  /**
   * @param follow cluster mode: makes events of other nodes on these topics reach this one
   * @param presence told of every page socket that opens and closes
   * @param openWithoutDomains see `assertSiteAllowed`
   */
  constructor(
    liveIds: LiveIds,
    system: ActorSystem,
    limits: PublicLimits,
    follow?: (topics: readonly string[]) => Promise<void>,
    presence?: PresenceHooks,
    openWithoutDomains = false,
  ) {
    this.#liveIds = liveIds;
    this.#system = system;
    this.#limits = limits;
    this.#follow = follow;
    this.#presence = presence;
    this.#openWithoutDomains = openWithoutDomains;
  }

  /** The websocket behaviour to serve `/sub` with. */
  readonly behavior: LiveBehavior<Subscription> = {
    maxBackpressure: SUB_LIMITS.maxBackpressureBytes,
    closeOnBackpressureLimit: true,
    idleTimeoutSeconds: SUB_LIMITS.idleTimeoutSeconds,
    maxPayloadLength: SUB_LIMITS.maxMessageBytes,
    upgrade: async (req) => {
      try {
        this.#limits.requests.spend(limitKey(req.ip), 'requests');
        const subscription = subscriptionFor(this.#liveIds, parseQuery(req.query), requestSite(req.headers));
        await checkSite(this.#system, subscription.tenantId, subscription.site, this.#openWithoutDomains);
        await assertMayListen(this.#system, subscription.tenantId, subscription.urlId, subscription.userId);
        if (this.#follow !== undefined) await this.#follow(subscription.topics);
        if (subscription.urlId === PROFILES_CHANNEL || this.#presence === undefined) return { accept: subscription };
        const presenceId = subscription.userId ?? anonPresenceId(cookieValue(req.headers['cookie'], ANON_COOKIE));
        return { accept: { ...subscription, presenceId } };
      } catch (err) {
        return { refuse: errorReply(err) };
      }
    },
    open: (socket) => {
      socket.data.life.openedAt = performance.now();
      for (const topic of socket.data.topics) socket.subscribe(topic);
      liveOpened(socket.data.topics[0]!, socket.data.topics[1]);
      let sockets = this.#open.get(socket.data.tenantId);
      if (sockets === undefined) {
        sockets = new Set();
        this.#open.set(socket.data.tenantId, sockets);
      }
      sockets.add(socket);
      if (socket.data.presenceId !== undefined) this.#presence?.join(socket.data.tenantId, socket.data.urlId, socket.data.presenceId);
    },
    message: (socket, text) => {
      const traffic = socket.data.traffic;
      const now = clock.now();
      if (now - traffic.windowStart >= 1000) {
        traffic.windowStart = now;
        traffic.count = 0;
      }
      if (++traffic.count > SUB_LIMITS.maxMessagesPerSecond) {
        if (traffic.count === SUB_LIMITS.maxMessagesPerSecond + 1) closeBecause(socket, 'message-rate');
        return;
      }
      if (text === LIVE_PING) socket.send(LIVE_PONG);
    },
    close: (socket, code, reason) => {
      liveClosed(socket.data.topics[0]!, socket.data.topics[1]);
      logClose(socket.data, code, reason);
      if (socket.data.presenceId !== undefined) this.#presence?.leave(socket.data.tenantId, socket.data.urlId, socket.data.presenceId);
      const sockets = this.#open.get(socket.data.tenantId);
      if (sockets === undefined || !sockets.delete(socket)) return;
      if (sockets.size === 0) this.#open.delete(socket.data.tenantId);
    },
  };

  /** The bus listener that checks readers again when who may read a page changed. */
  readonly onBusEvent: BusListener = (topic, event) => {
    if (!topic.startsWith('tenant:') || (event as AccessChanged | undefined)?.type !== 'access-changed') return;
    const { tenantId, urlId, userId } = event as AccessChanged;
    void this.#recheck(tenantId, urlId, userId);
  };

  async #recheck(tenantId: string, urlId: string | null, onlyUser: string | undefined): Promise<void> {
    const sockets = this.#open.get(tenantId);
    if (sockets === undefined) return;
    // One check per page and reader: many connections usually share a few.
    const readers = new Map<string, { urlId: string; userId: string | null; site: string | undefined; sockets: LiveSocket<Subscription>[] }>();
    for (const socket of sockets) {
      const { urlId: page, userId, site } = socket.data;
      if ((urlId !== null && page !== urlId) || (onlyUser !== undefined && userId !== onlyUser)) continue;
      const key = `${page}\n${userId ?? ''}\n${site ?? ''}`;
      const reader = readers.get(key);
      if (reader === undefined) readers.set(key, { urlId: page, userId, site, sockets: [socket] });
      else reader.sockets.push(socket);
    }
    for (const reader of readers.values()) {
      try {
        await checkSite(this.#system, tenantId, reader.site, this.#openWithoutDomains);
        await assertMayListen(this.#system, tenantId, reader.urlId, reader.userId);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500) {
          log.warn('live-recheck-failed', { tenantId, urlId: reader.urlId, err });
          continue;
        }
        // Connections closed meanwhile have left the set.
        for (const socket of reader.sockets) if (sockets.has(socket)) closeBecause(socket, err.code);
      }
    }
  }
}
