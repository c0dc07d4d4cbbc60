/**
 * The email subsystem, as the server starts it and other code uses it. Send an email with
 * `enqueueEmail` (docs/email.md): it is durable in the tenant's outbox when the call resolves,
 * and delivered in the background with retries.
 */
import { EmailOutboxActor, EmailOutboxSweepActor } from '../actors/email/outbox-actor.js';
import { EmailOutboxKind, EmailOutboxSweepKind, EmailTemplatesKind, EmailVerifyKind, type EmailRequest } from '../actors/email/protocol.js';
import { EmailTemplatesActor } from '../actors/email/templates-actor.js';
import { EmailVerifyActor } from '../actors/email/verify-actor.js';
import type { ActorSystem } from '../engine/actor-system.js';
import type { Config } from '../engine/config.js';
import { log } from '../engine/log.js';
import { EmailDelivery } from './delivery.js';
import { EmailLinks } from './links.js';
import { RenderPool } from './render-pool.js';
import { createMailTransport } from './transport.js';

/** How often outboxes with email waiting are looked for (besides at start and their own timers). */
const SWEEP_EVERY_MS = 60_000;

/** What routes and actors use of the email subsystem. */
export interface EmailServices {
  readonly renderer: RenderPool;
  readonly links: EmailLinks;
  readonly delivery: EmailDelivery;
  /**
   * Starts sending, once the server listens: the public URL is then known (when PUBLIC_URL is
   * not set), and the links' key is derived from the server's stored secret.
   */
  start(port: number, serverSecret: string): void;
  close(): Promise<void>;
}

/** Creates the email services and registers the email actors with the system. */
export function createEmail(system: ActorSystem, config: Config): EmailServices {
  const renderer = new RenderPool({ threads: config.templateWorkers, memoryMb: config.templateMemoryMb });
  const links = new EmailLinks(config.publicUrl ?? `http://localhost:${config.port}`);
  const transport = createMailTransport(config.smtpUrl, config.dataDir);
  const delivery = new EmailDelivery(system, renderer, transport, links, {
    mailFrom: config.mailFrom,
    perTenant: Math.max(1, config.emailTenantConcurrency),
    maxConcurrent: 16,
    retryMs: config.emailRetryMs,
    maxAttempts: Math.max(1, config.emailMaxAttempts),
  });
  system.register(EmailTemplatesKind, (ctx) => new EmailTemplatesActor(ctx, renderer));
  system.register(EmailOutboxKind, (ctx) => new EmailOutboxActor(ctx, delivery, { queueLimit: config.emailTenantQueueLimit }));
  system.register(EmailOutboxSweepKind, (ctx) => new EmailOutboxSweepActor(ctx));
  system.register(EmailVerifyKind, (ctx) => new EmailVerifyActor(ctx));
  let sweep: NodeJS.Timeout | undefined;
  const wake = () => system.ask(EmailOutboxSweepKind, '', 'wake', null).catch((err: unknown) => log.warn('email-sweep-failed', { err }));
  return {
    renderer,
    links,
    delivery,
    start(port, serverSecret) {
      links.setSecret(serverSecret);
      if (config.publicUrl === undefined) links.baseUrl = `http://localhost:${port}`;
      void wake();
      sweep = setInterval(() => void wake(), SWEEP_EVERY_MS);
      sweep.unref();
    },
    async close() {
      clearInterval(sweep);
      delivery.close();
      await renderer.close();
    },
  };
}

/**
 * Puts one email in the tenant's outbox; resolves once it is durable there (`added` false: an
 * email with the same `dedupeKey` is already waiting, or the address unsubscribed and the email
 * is not transactional). Refused with 429 `email-queue-full` when the tenant's queue is full,
 * unless `admitted` by an earlier `admitEmails`.
 */
export function enqueueEmail(system: ActorSystem, tenantId: string, email: EmailRequest, options: { admitted?: boolean } = {}): Promise<{ id: string; messageId: string; added: boolean }> {
  return system.ask(EmailOutboxKind, tenantId, 'enqueue', { email, admitted: options.admitted === true });
}

/** Whether `count` more emails fit in the tenant's outbox now: ask before work that will send them. */
export function admitEmails(system: ActorSystem, tenantId: string, count: number): Promise<boolean> {
  return system.ask(EmailOutboxKind, tenantId, 'admit', { count });
}
