import { LIVE_EVENT_TYPES, type LiveEvent, parseTopic } from '../../actors/live/live-events.js';
import { encodeLiveEvent } from '../../actors/live/live-wire.js';
import { publicEvent } from '../../actors/live/public-projection.js';
import { clock } from '../../engine/clock.js';
import type { BusListener } from '../../engine/event-bus.js';
import { log } from '../../engine/log.js';
import { livePublished } from '../../engine/metrics/live-meters.js';
import type { EventLogFeeder } from './event-log-feeder.js';
import { VoteCoalescer } from './vote-coalescer.js';

/** Cluster mode: carries this node's events, stamped, to the other nodes (`engine/cluster/live-relay.ts`). */
export type LiveRelaySend = (topic: string, event: unknown) => void;

/** When vote frames of a page are folded into `cvc` frames (vote-coalescer.ts). */
export interface CoalesceOptions {
  /** Vote events per second × subscribers of a page from which its votes are folded; 0: never. */
  readonly threshold: number;
  /** How long one `cvc` frame sums votes, ms. */
  readonly windowMs: number;
}

const NO_COALESCING: CoalesceOptions = { threshold: 0, windowMs: 0 };

/** Where fanned-out events go: the websocket server's topics (`HttpServer` is one). */
export interface LiveTransport {
  publish(topic: string, message: string): void;
  subscribers(topic: string): number;
}

/**
 * The bus listener behind `/sub`. The bus calls it once per event, after the event's writes
 * are durable and in commit order per actor; it serialises the event once and hands that one
 * string to uWebSockets.js, which writes it to every socket subscribed to the topic. Page
 * events also go to the page's event log (presence updates excepted: clients never catch up
 * on them).
 *
 * Each event's `timestamp` is set here, to when it was published, never decreasing. Clients
 * remember the newest `timestamp` they saw and, after a reconnect, ask the event log for
 * everything from it: that misses nothing only if a topic's timestamps never go backwards
 * along its stream. Stamps taken by the publishing actors could (two actors publish to a page:
 * its page actor and its polls' actors; and clocks step back).
 *
 * In cluster mode, `relay` sends each local event (stamped, so every node shows the same stamp
 * and the log holds it) to the other nodes; their events arrive as `remote` and only go to this
 * node's sockets: the publishing node alone logs them. A remote stamp also advances this
 * node's, so an event published here after one seen from elsewhere is stamped later.
 */
export function liveFanout(transport: LiveTransport, feeder: EventLogFeeder, relay?: LiveRelaySend, coalesce: CoalesceOptions = NO_COALESCING): BusListener {
  let lastStamp = 0;
  // Page frames go through the coalescer, which folds the vote frames of hot pages (vote-coalescer.ts).
  const pages = new VoteCoalescer((topic, event) => transport.publish(topic, encodeLiveEvent(event)), coalesce.threshold, coalesce.windowMs);
  return (topic, published, remote) => {
    const address = parseTopic(topic);
    if (address === undefined) {
      if (!remote) relay?.(topic, published);
      return;
    }
    if (typeof published !== 'object' || published === null || typeof (published as LiveEvent).type !== 'string') {
      log.warn('live-event-invalid', { topic });
      return;
    }
    if (remote) {
      const stamp = (published as LiveEvent).timestamp;
      if (typeof stamp === 'number' && stamp > lastStamp) lastStamp = stamp;
      const listening = transport.subscribers(topic);
      livePublished(address.kind, true, listening);
      if (address.kind === 'page') pages.deliver(topic, published as LiveEvent, listening);
      else if (listening > 0) transport.publish(topic, encodeLiveEvent(published as LiveEvent));
      return;
    }
    lastStamp = Math.max(clock.now(), lastStamp);
    // Everything past this point is public: the channel and the event log get the projection only.
    const event: LiveEvent = { ...publicEvent(published as LiveEvent), timestamp: lastStamp };
    const listening = transport.subscribers(topic);
    livePublished(address.kind, false, listening);
    if (address.kind === 'user') {
      if (listening > 0) transport.publish(topic, encodeLiveEvent(event));
      relay?.(topic, event);
      return;
    }
    // Encoded only for a page someone listens to; the log encodes an entry when it is read.
    pages.deliver(topic, event, listening);
    if (event.type !== LIVE_EVENT_TYPES.presenceUpdate) feeder.add(address.tenantId, address.id, event);
    relay?.(topic, event);
  };
}
