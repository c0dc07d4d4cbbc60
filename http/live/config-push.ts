/**
 * `new-config`: when a tenant's or a page's widget configuration changes, every page with
 * readers (on any node, as presence knows them) gets a `new-config` frame carrying the page's
 * configuration as it now is (the tenant's, with the page's own over it), which widgets apply
 * over their current one. The tenant actor announces the change (`access-changed`, also sent
 * for other changes of who may read); the node that hears it first-hand (the tenant actor's)
 * sends the frames, so each is sent once in a cluster. A page whose configuration is the one
 * this node last sent it gets none (the first announcement after a start is always sent).
 */
import { LRUCache } from 'lru-cache';
import { type AccessChanged, LIVE_EVENT_TYPES, pageTopic } from '../../actors/live/live-events.js';
import { tenantSettings } from '../../actors/tenant/tenant-actor.js';
import type { ActorSystem } from '../../engine/actor-system.js';
import { clock } from '../../engine/clock.js';
import type { BusListener, EventBus } from '../../engine/event-bus.js';
import { log } from '../../engine/log.js';
import type { Presence } from './presence.js';

/** Settings readers' widgets never need and spammers would like to read: left out of the frames. */
const PRIVATE_SETTINGS: readonly string[] = ['spamRules'];

/** A page's widget configuration as every reader may see it. */
export function publicWidgetConfig(config: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...config };
  for (const key of PRIVATE_SETTINGS) delete out[key];
  return out;
}

/** The listener that sends `new-config` frames. */
export function configPush(system: ActorSystem, bus: EventBus, presence: Presence): BusListener {
  const sent = new LRUCache<string, string>({ max: 10_000 });
  const push = async (tenantId: string, urlId: string): Promise<void> => {
    const config = publicWidgetConfig((await tenantSettings(system, tenantId, urlId)).config);
    const json = JSON.stringify(config);
    const topic = pageTopic(tenantId, urlId);
    if (sent.get(topic) === json) return;
    sent.set(topic, json);
    bus.publish(topic, { type: LIVE_EVENT_TYPES.newConfig, timestamp: clock.now(), config });
  };
  return (topic, event, remote) => {
    if (remote || !topic.startsWith('tenant:') || (event as AccessChanged | undefined)?.type !== 'access-changed') return;
    const { tenantId, urlId, userId } = event as AccessChanged;
    if (userId !== undefined) return;
    const pages = presence.pagesOf(tenantId).filter((page) => urlId === null || page === urlId);
    for (const page of pages) push(tenantId, page).catch((err: unknown) => log.warn('new-config-failed', { tenantId, urlId: page, err }));
  };
}

