import { LIVE_EVENT_TYPES, type LiveEvent, parseTopic } from '../../actors/live/live-events.js';
import { encodeLiveEvent } from '../../actors/live/live-wire.js';
import { publicEvent } from '../../actors/live/public-projection.js';
import { clock } from '../../engine/clock.js';
import type { BusListener } from '../../engine/event-bus.js';
import { log } from '../../engine/log.js';
import type { EventLogFeeder } from './event-log-feeder.js';

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
 */
export function liveFanout(transport: LiveTransport, feeder: EventLogFeeder): BusListener {
  let lastStamp = 0;
  return (topic, published) => {
    const address = parseTopic(topic);
    if (address === undefined) return;
    if (typeof published !== 'object' || published === null || typeof (published as LiveEvent).type !== 'string') {
      log.warn('live-event-invalid', { topic });
      return;
    }
    lastStamp = Math.max(clock.now(), lastStamp);
    // Everything past this point is public: the channel and the event log get the projection only.
    const event: LiveEvent = { ...publicEvent(published as LiveEvent), timestamp: lastStamp };
    if (address.kind === 'user') {
      if (transport.subscribers(topic) > 0) transport.publish(topic, encodeLiveEvent(event));
      return;
    }
    // Encoded only for a page someone listens to; the log encodes an entry when it is read.
    if (transport.subscribers(topic) > 0) transport.publish(topic, encodeLiveEvent(event));
    if (event.type !== LIVE_EVENT_TYPES.presenceUpdate) feeder.add(address.tenantId, address.id, event);
  };
}
