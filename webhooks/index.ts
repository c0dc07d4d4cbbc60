/**
 * Outbound webhooks, as the server starts them (docs/webhooks.md): the webhooks actors, the
 * sender, the listener that hands each page's newly durable events to its tenant's actor, and
 * the sweeps that find work after a start (or a lost announcement) and expire old events.
 */
import type { PendingWebhookEventDoc } from '../actors/webhook/protocol.js';
import { PendingEventsKind, WebhooksKind, WebhooksSweepKind } from '../actors/webhook/protocol.js';
import { PendingEventsActor } from '../actors/webhook/pending-events-actor.js';
import { WebhooksActor, type WebhookLimits } from '../actors/webhook/webhooks-actor.js';
import { WebhooksSweepActor } from '../actors/webhook/webhooks-sweep-actor.js';
import type { ActorSystem } from '../engine/actor-system.js';
import type { Config } from '../engine/config.js';
import type { EventBus } from '../engine/event-bus.js';
import { log } from '../engine/log.js';
import { clock } from '../engine/clock.js';
import { WebhookSender } from './sender.js';

/** How often tenants with deliveries due are looked for (besides at start and their own timers). */
const WAKE_EVERY_MS = 60_000;
/** How often events past their retention are looked for. */
const EXPIRE_EVERY_MS = 3_600_000;
/** Pending events are kept one year (the specification's retention of pending events). */
export const RETENTION_MS = 365 * 24 * 3_600_000;
/** Deliveries in flight in all, per process. */
const MAX_CONCURRENT = 256;
/** Pending events held in memory per receiver of a tenant. */
const WINDOW = 200;

const TOPIC_PREFIX = 'webhooks:';

export interface WebhookServices {
  readonly sender: WebhookSender;
  /** Starts the sweeps (once the server listens). */
  start(): void;
  /** Stops starting deliveries; unrecorded ones are sent again after the next start. */
  close(): void;
}

/** The delivery policy of a configuration. */
export function webhookLimits(config: Config): WebhookLimits {
  const perTenant = Math.max(1, config.webhookTenantConcurrency);
  return {
    perTenant,
    perReceiver: Math.max(1, Math.ceil(perTenant / 2)),
    retryMs: config.webhookRetryMs,
    maxAttempts: Math.max(1, config.webhookMaxAttempts),
    windowSize: WINDOW,
  };
}

/** Registers the webhook actors, and listens for the events page actors make durable. */
export function createWebhooks(system: ActorSystem, bus: EventBus, config: Config): WebhookServices {
  const sender = new WebhookSender(system, { maxConcurrent: MAX_CONCURRENT, timeoutMs: config.webhookTimeoutMs, allowPrivate: config.webhookAllowPrivate });
  const limits = webhookLimits(config);
  system.register(WebhooksKind, (ctx) => new WebhooksActor(ctx, sender, limits));
  system.register(WebhooksSweepKind, (ctx) => new WebhooksSweepActor(ctx));
  system.register(PendingEventsKind, (ctx) => new PendingEventsActor(ctx));

  // Announcements of one turn go to each tenant's actor as one message.
  let announced: Map<string, PendingWebhookEventDoc[]> | undefined;
  const flush = () => {
    const batch = announced!;
    announced = undefined;
    for (const [tenantId, events] of batch) system.tell(WebhooksKind, tenantId, 'enqueued', { events });
  };
  const unlisten = bus.listen((topic, event, remote) => {
    if (remote || !topic.startsWith(TOPIC_PREFIX) || !Array.isArray(event)) return;
    const tenantId = topic.slice(TOPIC_PREFIX.length);
    if (announced === undefined) {
      announced = new Map();
      queueMicrotask(flush);
    }
    const list = announced.get(tenantId);
    if (list === undefined) announced.set(tenantId, [...(event as PendingWebhookEventDoc[])]);
    else list.push(...(event as PendingWebhookEventDoc[]));
  });

  let timers: NodeJS.Timeout[] = [];
  const wake = () => system.ask(WebhooksSweepKind, '', 'wake', null).catch((err: unknown) => log.warn('webhook-wake-failed', { err }));
  const expire = () => system.ask(WebhooksSweepKind, '', 'expire', { cutoff: clock.now() - RETENTION_MS }).catch((err: unknown) => log.warn('webhook-expire-failed', { err }));
  return {
    sender,
    start() {
      void wake().then(expire);
      timers = [setInterval(() => void wake(), WAKE_EVERY_MS), setInterval(() => void expire(), EXPIRE_EVERY_MS)];
      for (const timer of timers) timer.unref();
    },
    close() {
      for (const timer of timers) clearInterval(timer);
      unlisten();
      sender.close();
    },
  };
}
