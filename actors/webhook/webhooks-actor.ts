import { Actor, type ActorContext, type Handlers } from '../../engine/actor.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { newId } from '../../engine/ids.js';
import { log } from '../../engine/log.js';
import { WakeTimer } from '../../engine/wake-timer.js';
import type { CollectionSpec } from '../../storage/store.js';
import {
  type DeliveryResult,
  MAX_API_SUBSCRIPTIONS,
  PENDING_STATES,
  type PendingWebhookEventDoc,
  WEBHOOK_COLLECTIONS as C,
  type WebhookDoc,
  WebhooksKind,
  type WebhooksProtocol,
} from './protocol.js';
import { ReceiverQueues } from './receiver-queues.js';
import { sameSubscription, targetOf } from './webhook-model.js';
import { countWebhook } from '../../engine/metrics/work-meters.js';

/** Subscriptions by tenant; pending events by tenant and receiver in delivery order, by due time, by age. */
export const webhookCollections: readonly CollectionSpec[] = [
  { name: C.subscriptions, indexes: [{ name: 'by_tenant', fields: ['tenantId'] }] },
  {
    name: C.pending,
    indexes: [
      { name: 'by_tenant_created', fields: ['tenantId', 'createdAt'] },
      { name: 'by_tenant_url_state', fields: ['tenantId', 'url', 'state', 'createdAt'] },
      { name: 'by_tenant_webhook', fields: ['tenantId', 'webhookId'] },
      { name: 'by_state_due', fields: ['state', 'nextAttemptAt'] },
      { name: 'by_created', fields: ['createdAt'] },
    ],
  },
];

/** What the actor hands deliveries to (the process's sender). */
export interface DeliveryPort {
  readonly closed: boolean;
  /** Ids of the tenant's events being delivered now, by any activation. */
  inFlight(tenantId: string): ReadonlySet<string>;
  /** Delivers one event in the background, then tells the actor `attempted`. */
  start(doc: PendingWebhookEventDoc): void;
  /** An attempt was recorded: the event may be started again (a no-op for another node's attempt). */
  finished(tenantId: string, id: string): void;
}

/** The delivery policy. */
export interface WebhookLimits {
  /** Deliveries of one tenant in flight at once. */
  readonly perTenant: number;
  /** Deliveries to one receiver (URL) of a tenant in flight at once. */
  readonly perReceiver: number;
  /** The delay after the n-th failed attempt is `retryMs × n`. */
  readonly retryMs: number;
  /** Attempts before an event is given up (kept, listed, no longer tried). */
  readonly maxAttempts: number;
  /** Pending events held in memory per receiver. */
  readonly windowSize: number;
}

/** Events removed per batch when a subscription goes (the rest follow in further messages). */
const DROP_BATCH = 1000;
/** Ids removed lately, so that an announcement arriving after the removal does not bring them back. */
const REMOVED_REMEMBERED = 10_000;

/**
 * One tenant's webhooks: its subscriptions, and the delivery of its pending events.
 *
 * Events are written by page actors in the same batch as the comment change they announce;
 * once durable, the page announces them on the bus and this actor is told (`enqueued`). After a
 * start, or if an announcement was lost, the events are found in storage (the windows are read
 * at activation, and the sweep wakes tenants with deliveries due). Deliveries run in the
 * background (the sender), come back as `attempted`: delivered events are removed, failed ones
 * wait `retryMs × attemptCount` and are given up after `maxAttempts`. A timer of its own, which
 * outlives passivation, wakes the actor when a retry falls due.
 */
export class WebhooksActor extends Actor<WebhooksProtocol> {
  readonly #delivery: DeliveryPort;
  readonly #limits: WebhookLimits;
  readonly #subs = new Map<string, WebhookDoc>();
  readonly #queues: ReceiverQueues;
  readonly #removed = new Set<string>();
  /** Pending events of removed subscriptions may be left in storage (a crash while removing them). */
  #checkOrphans = true;
  readonly #timer = new WakeTimer();

  constructor(ctx: ActorContext, delivery: DeliveryPort, limits: WebhookLimits) {
    super(ctx);
    this.#delivery = delivery;
    this.#limits = limits;
    this.#queues = new ReceiverQueues(limits.windowSize);
  }

  override async onStart(): Promise<void> {
    const subs = await this.store.find<WebhookDoc>(C.subscriptions, { tenantId: this.id });
    for (const doc of subs) this.#subs.set(doc._id, doc);
    const urls = [...new Set(subs.map((s) => s.url))];
    const windows = await Promise.all(urls.map((url) => this.#storedWindow(url)));
    for (const [i, url] of urls.entries()) this.#queues.refill(url, windows[i]!);
    if (this.#queues.size > 0 || this.#subs.size > 0) this.#wakeAt(clock.now());
  }

  override onStop(): void {
    // A retry still due must wake a later activation: the timer stays then.
    if (this.#queues.size === 0) this.#timer.clear();
  }

  readonly handlers: Handlers<WebhooksProtocol> = {
    targets: () => {
      // Page writes read subscriptions on every comment change: they must not wait for this
      // actor's delivery bookkeeping to reach storage.
      this.allowUnconfirmed();
      return [...this.#subs.values()].map(targetOf);
    },

    subscribe: ({ url, event, domain, method }) => {
      for (const doc of this.#subs.values()) if (sameSubscription(doc, url, event, domain)) return { webhook: doc, created: false };
      if (this.#subs.size >= MAX_API_SUBSCRIPTIONS) throw new ApiError('webhook-limit');
      const now = clock.now();
      const doc: WebhookDoc = { _id: newId(now), tenantId: this.id, url, event, domain, method, source: 'api', createdAt: new Date(now).toISOString() };
      this.insert(C.subscriptions, doc);
      this.#subs.set(doc._id, doc);
      return { webhook: doc, created: true };
    },

    list: ({ event, domain, source }) =>
      [...this.#subs.values()]
        .filter((d) => (event === undefined || d.event === event) && (domain === undefined || d.domain === domain.toLowerCase()) && (source === undefined || d.source === source))
        .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a._id < b._id ? -1 : 1)),

    unsubscribe: async ({ id }) => {
      if (!this.#subs.has(id)) throw new ApiError('not-found', `No webhook ${id}.`);
      await this.#unsubscribe(id);
      return null;
    },

    dropEvents: async ({ webhookId }) => {
      if (!this.#subs.has(webhookId)) await this.#dropEventsOf(webhookId);
      return null;
    },

    enqueued: ({ events }) => {
      for (const doc of events) {
        if (doc.tenantId !== this.id || this.#removed.has(doc._id) || this.#queues.get(doc._id) !== undefined) continue;
        // Queued for a subscription removed meanwhile: never delivered.
        if (!this.#subs.has(doc.webhookId)) this.#forget(doc._id);
        else {
          this.#queues.offer(doc);
          countWebhook('queued');
        }
      }
      this.#pump();
      return null;
    },

    pump: async () => {
      await this.#refill();
      if (this.#checkOrphans) await this.#dropOrphans();
      this.#pump();
      return null;
    },

    attempted: async ({ id, result }) => {
      this.#delivery.finished(this.id, id);
      const doc = this.#queues.get(id);
      if (doc !== undefined) this.#record(doc, result);
      if (result.outcome === 'gone' && doc !== undefined && this.#subs.has(doc.webhookId)) {
        log.info('webhook-gone', { tenantId: this.id, webhookId: doc.webhookId, url: doc.url });
        await this.#unsubscribe(doc.webhookId);
      }
      await this.#refill();
      this.#pump();
      return null;
    },

    removePending: async ({ id }) => {
      if (this.#queues.get(id) === undefined) {
        await this.commitNow([]);
        const stored = await this.store.get<PendingWebhookEventDoc>(C.pending, id);
        if (stored === undefined || stored.tenantId !== this.id) throw new ApiError('not-found', `No pending webhook event ${id}.`);
      }
      this.#forget(id);
      this.#pump();
      return null;
    },

    expire: async ({ cutoff }) => {
      await this.commitNow([]);
      const old = await this.store.find<PendingWebhookEventDoc>(C.pending, { tenantId: this.id, createdAt: { $lt: cutoff } }, { limit: DROP_BATCH });
      for (const doc of old) this.#forget(doc._id);
      if (old.length > 0) this.#pump();
      return old.length;
    },
  };

  /** Applies the outcome of an attempt to a held event. */
  #record(doc: PendingWebhookEventDoc, result: DeliveryResult): void {
    if (result.outcome === 'delivered') {
      countWebhook('sent');
      this.#forget(doc._id);
      return;
    }
    const attemptCount = doc.attemptCount + 1;
    const now = clock.now();
    const givenUp = result.outcome === 'failed' && attemptCount >= this.#limits.maxAttempts;
    const next: PendingWebhookEventDoc = {
      ...doc,
      attemptCount,
      lastError: result.error,
      nextAttemptAt: givenUp ? doc.nextAttemptAt : now + this.#limits.retryMs * attemptCount,
      state: givenUp ? PENDING_STATES.givenUp : doc.state,
    };
    this.patch(C.pending, doc._id, { attemptCount, lastError: next.lastError, nextAttemptAt: next.nextAttemptAt, state: next.state });
    countWebhook(givenUp ? 'given_up' : 'retried');
    if (givenUp) {
      log.warn('webhook-given-up', { tenantId: this.id, id: doc._id, url: doc.url, attempts: attemptCount });
      this.#queues.remove(doc._id);
    } else this.#queues.update(next);
  }

  /** Removes a pending event from memory and storage, remembering it against late announcements. */
  #forget(id: string): void {
    this.#queues.remove(id);
    this.remove(C.pending, id);
    if (this.#removed.size >= REMOVED_REMEMBERED) this.#removed.clear();
    this.#removed.add(id);
  }

  async #unsubscribe(webhookId: string): Promise<void> {
    this.#subs.delete(webhookId);
    this.remove(C.subscriptions, webhookId);
    for (const id of this.#queues.idsOf(webhookId)) this.#forget(id);
    await this.#dropEventsOf(webhookId);
  }

  /** Removes stored events of a removed subscription, a batch now and the rest in later messages. */
  async #dropEventsOf(webhookId: string): Promise<void> {
    await this.commitNow([]);
    const docs = await this.store.find<PendingWebhookEventDoc>(C.pending, { tenantId: this.id, webhookId }, { limit: DROP_BATCH });
    for (const doc of docs) this.#forget(doc._id);
    if (docs.length >= DROP_BATCH) this.system.tell(WebhooksKind, this.id, 'dropEvents', { webhookId });
  }

  /** Once per activation: events of subscriptions removed before a crash finished removing them. */
  async #dropOrphans(): Promise<void> {
    this.#checkOrphans = false;
    const orphans = await this.store.find<PendingWebhookEventDoc>(
      C.pending,
      { tenantId: this.id, webhookId: { $nin: [...this.#subs.keys()] } },
      { limit: DROP_BATCH },
    );
    for (const webhookId of new Set(orphans.map((d) => d.webhookId))) this.system.tell(WebhooksKind, this.id, 'dropEvents', { webhookId });
  }

  /** Reads back from storage the windows that emptied while storage held more. */
  async #refill(): Promise<void> {
    const urls = this.#queues.refillable();
    if (urls.length === 0) return;
    // Storage must first hold what this actor changed, or a removed event could come back.
    await this.commitNow([]);
    for (const url of urls) this.#queues.refill(url, await this.#storedWindow(url));
  }

  #storedWindow(url: string): Promise<PendingWebhookEventDoc[]> {
    return this.store.find<PendingWebhookEventDoc>(
      C.pending,
      { tenantId: this.id, url, state: PENDING_STATES.pending },
      { sort: [['createdAt', 1], ['_id', 1]], limit: this.#queues.windowSize },
    );
  }

  /** Starts what is due within the tenant's limits; sets the timer for the next one due. */
  #pump(): void {
    if (this.#delivery.closed) return;
    const now = clock.now();
    const inFlight = this.#delivery.inFlight(this.id);
    const { start, nextAt } = this.#queues.due(now, { free: this.#limits.perTenant - inFlight.size, perReceiver: this.#limits.perReceiver, inFlight });
    for (const doc of start) {
      if (this.#subs.has(doc.webhookId)) this.#delivery.start(doc);
      else this.#forget(doc._id);
    }
    this.#timer.forget();
    if (this.#queues.refillable().length > 0) this.#wakeAt(now);
    else if (nextAt !== Infinity) this.#wakeAt(nextAt);
  }

  /** Has the actor pump at `at` (or sooner, if already set for sooner). */
  #wakeAt(at: number): void {
    const { system } = this;
    const tenantId = this.id;
    const delivery = this.#delivery;
    this.#timer.set(at, clock.now(), () => {
      if (!delivery.closed) system.tell(WebhooksKind, tenantId, 'pump', null);
    });
  }
}
