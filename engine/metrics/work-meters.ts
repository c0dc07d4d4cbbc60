/**
 * Background-work families: outbox emails and webhook deliveries (queued, sent, retried, given
 * up), notification fan-out steps, and the worker pools' queue and run times (aggregations,
 * template renders).
 */
import { CountFamily, TimingFamily, WORK_BUCKETS } from './families.js';
import { PREFIX, register } from './registry.js';

const emails = register(new CountFamily('counter', `${PREFIX}email_outbox_total`, 'Outbox emails by what happened: queued, sent, retried (failed temporarily), given_up.', ['event']));
const webhooks = register(new CountFamily('counter', `${PREFIX}webhook_deliveries_total`, 'Webhook deliveries by what happened: queued, sent, retried, given_up.', ['event']));
const steps = register(new CountFamily('counter', `${PREFIX}notification_fanout_steps_total`, 'Steps of notification fan-outs (one batch of recipients each), by outcome: done, retried.', ['outcome']));
const poolQueue = register(new TimingFamily(`${PREFIX}pool_queue_seconds`, 'Time work waited for a worker, by pool (aggregation).', WORK_BUCKETS, ['pool']));
const poolRun = register(new TimingFamily(`${PREFIX}pool_run_seconds`, 'Time work ran in a worker, by pool (aggregation, template: a render or an email built, queueing in the render host included).', WORK_BUCKETS, ['pool']));
const poolOutcomes = register(new CountFamily('counter', `${PREFIX}pool_jobs_total`, 'Work finished by pool and outcome (ok, or the error code).', ['pool', 'outcome'], 100));

/** What happens to an outbox email or a webhook delivery. */
export type DeliveryEvent = 'queued' | 'sent' | 'retried' | 'given_up';

const EVENTS: readonly DeliveryEvent[] = ['queued', 'sent', 'retried', 'given_up'];
const EMAIL = Object.fromEntries(EVENTS.map((e) => [e, emails.child(e)])) as Record<DeliveryEvent, { n: number }>;
const WEBHOOK = Object.fromEntries(EVENTS.map((e) => [e, webhooks.child(e)])) as Record<DeliveryEvent, { n: number }>;
const STEP = { done: steps.child('done'), retried: steps.child('retried') };

/** Counts an outbox email's event. */
export function countEmail(event: DeliveryEvent, by = 1): void {
  EMAIL[event].n += by;
}

/** Counts webhook deliveries' event. */
export function countWebhook(event: DeliveryEvent, by = 1): void {
  WEBHOOK[event].n += by;
}

/** Counts a notification fan-out step. */
export function countFanoutStep(outcome: 'done' | 'retried'): void {
  STEP[outcome].n++;
}

/** The children of one worker pool. */
export class PoolMeter {
  readonly #pool: string;
  readonly #queue;
  readonly #run;

  constructor(pool: string) {
    this.#pool = pool;
    this.#queue = poolQueue.child(pool);
    this.#run = poolRun.child(pool);
  }

  queued(seconds: number): void {
    this.#queue.observe(seconds);
  }

  ran(seconds: number, outcome: string): void {
    this.#run.observe(seconds);
    poolOutcomes.child(this.#pool, outcome).n++;
  }
}

/** The template render pool's meter. */
export const TEMPLATE_POOL = new PoolMeter('template');
/** The aggregation pool's meter. */
export const AGGREGATION_POOL = new PoolMeter('aggregation');
