import { createHash } from 'node:crypto';
import { Actor, type ActorContext, type Handlers } from '../../engine/actor.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { newId } from '../../engine/ids.js';
import { WakeTimer } from '../../engine/wake-timer.js';
import { type EmailDelivery, retryDelay } from '../../email/delivery.js';
import type { CollectionSpec, Doc } from '../../storage/store.js';
import {
  EMAIL_COLLECTIONS as C,
  EmailOutboxKind,
  type EmailOutboxProtocol,
  type EmailOutboxSweepProtocol,
  type OutboxDoc,
  OUTBOX_STATES,
} from './protocol.js';
import { requireDefinition } from './template-model.js';
import { countEmail } from '../../engine/metrics/work-meters.js';

/** The outbox (findable by state, for the start-up sweep) and unsubscribed addresses. */
export const emailOutboxCollections: readonly CollectionSpec[] = [
  {
    name: C.outbox,
    indexes: [
      { name: 'by_state', fields: ['state'] },
      { name: 'by_tenant_state', fields: ['tenantId', 'state'] },
    ],
  },
  { name: C.suppressions, indexes: [{ name: 'by_tenant', fields: ['tenantId'] }] },
];

/** Failed emails kept per tenant (for operators); the oldest go first. */
export const MAX_FAILED_PER_TENANT = 1000;

/** Outboxes woken per sweep. */
const SWEEP_LIMIT = 10_000;

interface SuppressionDoc extends Doc {
  tenantId: string;
  createdAt: string;
}

function suppressionId(tenantId: string, email: string): string {
  return `${tenantId}:${createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32)}`;
}

/** What an outbox is bounded by. */
export interface OutboxLimits {
  /** Emails waiting per tenant before new ones are refused. */
  readonly queueLimit: number;
}

/**
 * One tenant's outbox. An email is stored (under the output gate, like any write) before
 * `enqueue` answers; deliveries start only once it is durable, run in the background (the
 * delivery service), and come back as `attempted`: sent emails are removed, temporary failures
 * are retried with a doubling delay, permanent ones (SMTP 5xx, too many attempts) are kept as
 * failed. Its own timer, which outlives passivation, wakes it when a retry is due.
 */
export class EmailOutboxActor extends Actor<EmailOutboxProtocol> {
  readonly #delivery: EmailDelivery;
  readonly #limits: OutboxLimits;
  readonly #queued = new Map<string, OutboxDoc>();
  readonly #byDedupe = new Map<string, string>();
  /** Failed entries, oldest first. */
  #failed: string[] = [];
  readonly #suppressed = new Map<string, boolean>();
  readonly #timer = new WakeTimer();

  constructor(ctx: ActorContext, delivery: EmailDelivery, limits: OutboxLimits) {
    super(ctx);
    this.#delivery = delivery;
    this.#limits = limits;
  }

  override async onStart(): Promise<void> {
    const queued = await this.store.find<OutboxDoc>(C.outbox, { tenantId: this.id, state: OUTBOX_STATES.queued });
    for (const doc of queued.sort((a, b) => a.nextAttemptAt - b.nextAttemptAt)) {
      this.#queued.set(doc._id, doc);
      if (doc.dedupeKey !== null) this.#byDedupe.set(doc.dedupeKey, doc._id);
    }
    const failed = await this.store.find<OutboxDoc>(C.outbox, { tenantId: this.id, state: OUTBOX_STATES.failed });
    this.#failed = failed.sort((a, b) => a.createdAt - b.createdAt).map((d) => d._id);
    if (this.#queued.size > 0) this.#wakeAt(clock.now());
  }

  override onStop(): void {
    // A retry still due must wake a later activation: keep the timer then.
    if (this.#queued.size === 0) this.#timer.clear();
  }

  readonly handlers: Handlers<EmailOutboxProtocol> = {
    admit: ({ count }) => this.#queued.size + count <= this.#limits.queueLimit,
    enqueue: async ({ email, admitted }) => {
      requireDefinition(email.emailTemplateId);
      const to = email.to.trim();
      if (!/^[^\s@<>",;]+@[^\s@<>",;]+$/.test(to)) throw new ApiError('invalid-email', `"${email.to}" is not an email address.`);
      const known = email.dedupeKey === undefined ? undefined : this.#byDedupe.get(email.dedupeKey);
      if (known !== undefined) return { id: known, messageId: this.#queued.get(known)!.messageId, added: false };
      // A check made before the work that sends this email already counted it (`admit`), so
      // such an email may pass the limit by the few admitted at the same time, never beyond twice.
      const limit = admitted ? this.#limits.queueLimit * 2 : this.#limits.queueLimit;
      if (this.#queued.size >= limit) throw new ApiError('email-queue-full');
      if (email.transactional !== true && (await this.#isSuppressed(to))) return { id: '', messageId: '', added: false };
      const now = clock.now();
      const id = newId(now);
      const doc: OutboxDoc = {
        _id: id,
        tenantId: this.id,
        state: OUTBOX_STATES.queued,
        createdAt: now,
        to,
        emailTemplateId: email.emailTemplateId,
        domain: email.domain,
        locale: email.locale,
        data: email.data,
        transactional: email.transactional === true,
        dedupeKey: email.dedupeKey ?? null,
        messageId: this.#delivery.messageId(this.id, id),
        attempts: 0,
        nextAttemptAt: now,
        lastError: null,
      };
      this.insert(C.outbox, doc);
      countEmail('queued');
      this.#queued.set(id, doc);
      if (doc.dedupeKey !== null) this.#byDedupe.set(doc.dedupeKey, id);
      this.#wakeAt(now);
      return { id, messageId: doc.messageId, added: true };
    },
    pump: async () => {
      // Nothing is sent before it is durable.
      await this.commitNow([]);
      this.#pump();
      return null;
    },
    attempted: ({ id, result }) => {
      const doc = this.#queued.get(id);
      if (doc === undefined) return null;
      const attempts = doc.attempts + 1;
      if (result.ok) {
        countEmail('sent');
        this.#forget(doc);
        this.remove(C.outbox, id);
      } else if (result.permanent || attempts >= this.#delivery.options.maxAttempts) {
        countEmail('given_up');
        this.#forget(doc);
        this.put(C.outbox, { ...doc, state: OUTBOX_STATES.failed, attempts, lastError: result.error });
        this.#failed.push(id);
        while (this.#failed.length > MAX_FAILED_PER_TENANT) this.remove(C.outbox, this.#failed.shift()!);
      } else {
        countEmail('retried');
        const next: OutboxDoc = { ...doc, attempts, lastError: result.error, nextAttemptAt: clock.now() + retryDelay(this.#delivery.options.retryMs, attempts) };
        // To the back: entries stay in the order they fall due.
        this.#queued.delete(id);
        this.#queued.set(id, next);
        this.put(C.outbox, next);
      }
      this.#wakeAt(clock.now());
      return null;
    },
    unsubscribe: async ({ email }) => {
      const id = suppressionId(this.id, email);
      if (await this.#isSuppressed(email)) return null;
      const doc: SuppressionDoc = { _id: id, tenantId: this.id, createdAt: new Date(clock.now()).toISOString() };
      this.put(C.suppressions, doc);
      this.#suppressed.set(id, true);
      return null;
    },
    list: async ({ state }) => {
      if (state === OUTBOX_STATES.queued) return [...this.#queued.values()].sort((a, b) => a.createdAt - b.createdAt);
      await this.commitNow([]);
      const docs = await this.store.find<OutboxDoc>(C.outbox, { tenantId: this.id, state });
      return docs.sort((a, b) => a.createdAt - b.createdAt);
    },
  };

  #forget(doc: OutboxDoc): void {
    this.#queued.delete(doc._id);
    if (doc.dedupeKey !== null && this.#byDedupe.get(doc.dedupeKey) === doc._id) this.#byDedupe.delete(doc.dedupeKey);
  }

  async #isSuppressed(email: string): Promise<boolean> {
    const id = suppressionId(this.id, email);
    let found = this.#suppressed.get(id);
    if (found === undefined) {
      if (this.#suppressed.size >= 10_000) this.#suppressed.clear();
      found = (await this.store.get(C.suppressions, id)) !== undefined;
      this.#suppressed.set(id, found);
    }
    return found;
  }

  /**
   * Starts what is due, up to the tenant's concurrency; sets the timer for the next due one.
   * Entries are kept in the order they became due (a retry goes to the back), so this looks at
   * only as many as it starts while there is a backlog.
   */
  #pump(): void {
    const now = clock.now();
    const sending = this.#delivery.inFlight(this.id);
    let free = this.#delivery.options.perTenant - sending.size;
    let nextAt = Infinity;
    for (const doc of this.#queued.values()) {
      if (free <= 0) break;
      if (sending.has(doc._id)) continue;
      if (doc.nextAttemptAt <= now) {
        free--;
        this.#delivery.start(doc);
      } else {
        nextAt = Math.min(nextAt, doc.nextAttemptAt);
      }
    }
    this.#timer.forget();
    if (nextAt !== Infinity && free > 0) this.#wakeAt(nextAt);
  }

  /** Has the outbox pumped at `at` (or sooner, if already set for sooner). */
  #wakeAt(at: number): void {
    const { system } = this;
    const tenantId = this.id;
    const delivery = this.#delivery;
    this.#timer.set(at, clock.now(), () => {
      if (!delivery.closed) system.tell(EmailOutboxKind, tenantId, 'pump', null);
    });
  }
}

/** Wakes, after a start, every outbox with email waiting (one storage query, by state). */
export class EmailOutboxSweepActor extends Actor<EmailOutboxSweepProtocol> {
  override async onStart(): Promise<void> {}

  readonly handlers: Handlers<EmailOutboxSweepProtocol> = {
    wake: async () => {
      this.allowUnconfirmed();
      const docs = await this.store.find<OutboxDoc>(C.outbox, { state: OUTBOX_STATES.queued }, { limit: SWEEP_LIMIT });
      const tenants = new Set(docs.map((d) => d.tenantId));
      for (const tenantId of tenants) this.system.tell(EmailOutboxKind, tenantId, 'pump', null);
      return { outboxes: tenants.size };
    },
  };
}
