/**
 * The background sender of webhook deliveries. A tenant's webhooks actor hands it the events
 * that are due; it has each signed by the tenant's actor (the API secret never leaves it),
 * sends it, and tells the webhooks actor how the attempt ended. It keeps no event of its own:
 * storage is the record, and an event whose delivery was not recorded there before a crash is
 * sent again after the restart (at-least-once, with the same `webhook-id`).
 *
 * Bounds: the webhooks actor starts at most its per-tenant and per-receiver numbers; here at
 * most `maxConcurrent` are sent at once in all (the rest wait their turn in arrival order).
 * Each attempt has its own deadline, so a receiver that never answers holds its tenant's slots
 * for that long and no one else's.
 */
import { TenantKind } from '../actors/tenant/tenant-actor.js';
import { type DeliveryResult, type PendingWebhookEventDoc, WebhooksKind } from '../actors/webhook/protocol.js';
import type { DeliveryPort } from '../actors/webhook/webhooks-actor.js';
import { deliveryBody } from '../actors/webhook/webhook-model.js';
import type { LookupFunction } from 'node:net';
import type { ActorSystem } from '../engine/actor-system.js';
import { clock } from '../engine/clock.js';
import { log } from '../engine/log.js';
import { assertDeliverable, guardedLookup } from './address-policy.js';
import { closeIdleConnections, send, type SendAnswer } from './http-send.js';

export interface SenderOptions {
  /** Deliveries in flight in all. */
  readonly maxConcurrent: number;
  /** How long one attempt may take, connection to last byte. */
  readonly timeoutMs: number;
  /** Deliver to loopback and private addresses too (tests, closed networks). */
  readonly allowPrivate: boolean;
}

const USER_AGENT = 'realtime-comments-webhooks/1';
const NONE: ReadonlySet<string> = new Set();

/** The `lastError` of an answer that was not a success. */
function answerError(answer: SendAnswer): Record<string, unknown> {
  return { statusCode: answer.status, body: answer.body, headers: answer.headers };
}

export class WebhookSender implements DeliveryPort {
  readonly #system: ActorSystem;
  readonly #options: SenderOptions;
  readonly #lookup: LookupFunction;
  /** Ids being delivered, by tenant: no activation of the tenant's actor starts them again. */
  readonly #inFlight = new Map<string, Set<string>>();
  /** The attempt number of each id in flight, so a finished attempt never unmarks a newer one. */
  readonly #attemptOf = new Map<string, number>();
  #started = 0;
  readonly #waiting: (() => void)[] = [];
  #sending = 0;
  #closed = false;
  /** Attempts finished since start (benchmarks, operators). */
  attempts = 0;

  constructor(system: ActorSystem, options: SenderOptions) {
    this.#system = system;
    this.#options = options;
    this.#lookup = guardedLookup(options.allowPrivate);
  }

  get closed(): boolean {
    return this.#closed;
  }

  inFlight(tenantId: string): ReadonlySet<string> {
    return this.#inFlight.get(tenantId) ?? NONE;
  }

  finished(tenantId: string, id: string): void {
    const ids = this.#inFlight.get(tenantId);
    if (ids === undefined) return;
    ids.delete(id);
    if (ids.size === 0) this.#inFlight.delete(tenantId);
  }

  start(doc: PendingWebhookEventDoc): void {
    if (this.#closed) return;
    let ids = this.#inFlight.get(doc.tenantId);
    if (ids === undefined) this.#inFlight.set(doc.tenantId, (ids = new Set()));
    if (ids.has(doc._id)) return;
    ids.add(doc._id);
    const attempt = (this.#started = (this.#started + 1) % Number.MAX_SAFE_INTEGER);
    this.#attemptOf.set(doc._id, attempt);
    void this.#attempt(doc)
      .then((result) => {
        this.attempts++;
        return this.#system.ask(WebhooksKind, doc.tenantId, 'attempted', { id: doc._id, result });
      })
      // Unrecorded, the event stays pending and is attempted again (at-least-once).
      .catch((err: unknown) => (this.#closed ? log.debug : log.warn)('webhook-attempt-unrecorded', { tenantId: doc.tenantId, id: doc._id, err }))
      .finally(() => {
        // Unless the actor recorded the attempt and started the next one meanwhile.
        if (this.#attemptOf.get(doc._id) !== attempt) return;
        this.#attemptOf.delete(doc._id);
        this.finished(doc.tenantId, doc._id);
      });
  }

  /** Stops starting deliveries; those under way finish, or are sent again after the next start. */
  close(): void {
    this.#closed = true;
    for (const wake of this.#waiting.splice(0)) wake();
    closeIdleConnections();
  }

  async #attempt(doc: PendingWebhookEventDoc): Promise<DeliveryResult> {
    const body = JSON.stringify(deliveryBody(doc.comment, doc.domain));
    await this.#slot();
    try {
      if (this.#closed) return { outcome: 'failed', error: { error: 'The server stopped before sending.' } };
      const timestamp = Math.floor(clock.now() / 1000);
      const signed = await this.#system.ask(TenantKind, doc.tenantId, 'signWebhook', { id: doc._id, timestamp, body });
      const url = new URL(doc.url);
      assertDeliverable(url, this.#options.allowPrivate);
      const bytes = Buffer.from(body, 'utf8');
      const answer = await send(
        url,
        doc.method,
        {
          'content-type': 'application/json',
          'content-length': String(bytes.length),
          'user-agent': USER_AGENT,
          'x-fastcomments-timestamp': String(timestamp),
          'x-fastcomments-signature': signed.fastComments,
          'webhook-id': doc._id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signed.standard,
        },
        bytes,
        { timeoutMs: this.#options.timeoutMs, lookup: this.#lookup },
      );
      if (answer.status >= 200 && answer.status < 300) return { outcome: 'delivered' };
      log.debug('webhook-refused', { tenantId: doc.tenantId, id: doc._id, status: answer.status });
      return answer.status === 410 ? { outcome: 'gone', error: answerError(answer) } : { outcome: 'failed', error: answerError(answer) };
    } catch (err) {
      log.debug('webhook-send-failed', { tenantId: doc.tenantId, id: doc._id, error: (err as Error).message });
      return { outcome: 'failed', error: { error: (err as Error).message } };
    } finally {
      this.#sending--;
      this.#waiting.shift()?.();
    }
  }

  /** Waits for one of the `maxConcurrent` sending slots. */
  async #slot(): Promise<void> {
    while (this.#sending >= this.#options.maxConcurrent && !this.#closed) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#sending++;
  }
}
