import { EventLogSweeperKind, SWEEPER_ID } from '../../actors/live/event-log-protocol.js';
import type { AppServices } from '../services.js';
import type { HttpServer } from '../uws/index.js';
import { EventLogFeeder } from './event-log-feeder.js';
import { liveFanout, type LiveRelaySend } from './fanout.js';
import { SubChannel } from './sub-channel.js';
import { configPush } from './config-push.js';
import { MODERATION_FEED_PATH, ModerationFeed } from './moderation-feed.js';

/** How often pages gone quiet have their expired event-log entries dropped. */
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/** Cluster mode: how live events reach and come from the other nodes (`engine/cluster/live-relay.ts`). */
export interface LiveCluster {
  readonly send: LiveRelaySend;
  /** Resolves once events other nodes publish on `topics` will reach this node. */
  follow(topics: readonly string[]): Promise<void>;
}

/** The running live channels. */
export interface LiveChannels {
  /**
   * Stops the sweeper and the fan-out. Call after the actor system has shut down and before
   * storage closes: event-log entries of the last moments are written then.
   */
  stop(): Promise<void>;
}

/**
 * Starts the live channels on `http`: the `/sub` websocket endpoint, the bus listener that
 * fans events out to it and feeds the event log, and the event-log sweeper. Call before
 * `http.onRequest`, which takes every path not claimed before it.
 */
export function startLive(http: HttpServer, services: AppServices, cluster?: LiveCluster): LiveChannels {
  const sub = new SubChannel(services.liveIds, services.system, services.limits, cluster?.follow, services.presence, services.config.openSitesWithoutDomains);
  http.live('/sub', sub.behavior);
  const feeder = new EventLogFeeder(services.system);
  const unlisten = services.bus.listen(liveFanout(http, feeder, cluster?.send, { threshold: services.config.liveVoteCoalesce, windowMs: services.config.liveVoteWindowMs }));
  const unlistenSub = services.bus.listen(sub.onBusEvent);
  const unlistenPresence = services.bus.listen(services.presence.onBusEvent);
  const unlistenConfig = services.bus.listen(configPush(services.system, services.bus, services.presence));
  const moderationFeed = new ModerationFeed(services);
  http.live(MODERATION_FEED_PATH, moderationFeed.behavior);
  const unlistenModeration = services.bus.listen(moderationFeed.onBusEvent);
  const sweep = setInterval(() => services.system.tell(EventLogSweeperKind, SWEEPER_ID, 'sweep', null), SWEEP_INTERVAL_MS);
  sweep.unref();
  return {
    async stop() {
      clearInterval(sweep);
      unlisten();
      unlistenSub();
      unlistenPresence();
      unlistenConfig();
      unlistenModeration();
      services.presence.stop();
      await feeder.stop(services.store);
    },
  };
}
