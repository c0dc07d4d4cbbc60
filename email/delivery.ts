/**
 * The background sender. An outbox actor hands it the emails that are due; it has each rendered
 * and built (in the render host, one round trip), sends it, and tells the outbox how the
 * attempt ended. It keeps no email of its own: the outbox is the durable record, and an email
 * whose delivery was never confirmed there is sent again after a restart (at-least-once, with
 * the same Message-ID). Each attempt renders afresh: a retry after a template was fixed sends
 * the fixed one.
 *
 * Bounds: sends in flight per tenant (the outbox starts no more than `perTenant`) and in total
 * (`maxConcurrent`; the rest wait here, at most `perTenant` per tenant).
 */
import { EmailOutboxKind, EmailTemplatesKind, type AttemptResult, type OutboxDoc } from '../actors/email/protocol.js';
import { domainConfigFor, renderInput, requireDefinition } from '../actors/email/template-model.js';
import type { DomainConfigDoc } from '../actors/tenant/domain-configs.js';
import { TenantKind } from '../actors/tenant/tenant-actor.js';
import type { ActorSystem } from '../engine/actor-system.js';
import { ApiError } from '../engine/errors.js';
import { log } from '../engine/log.js';
import type { EmailLinks } from './links.js';
import type { RenderPool } from './render-pool.js';
import { type MailTransport, SendError } from './transport.js';

export interface DeliveryOptions {
  readonly mailFrom: string;
  /** Sends in flight per tenant. */
  readonly perTenant: number;
  /** Sends in flight in total. */
  readonly maxConcurrent: number;
  /** Delay before the first retry; doubles with each attempt, at most an hour. */
  readonly retryMs: number;
  /** Attempts before an email that keeps failing temporarily is given up. */
  readonly maxAttempts: number;
}

/** Headers a domain configuration may not set: the ones the sender owns. */
const RESERVED_HEADERS = new Set(['from', 'to', 'cc', 'bcc', 'subject', 'date', 'message-id', 'mime-version', 'content-type', 'content-transfer-encoding', 'list-unsubscribe', 'list-unsubscribe-post']);

/** A domain configuration's `emailHeaders`, without line breaks, invalid names or reserved headers. */
export function extraHeaders(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!/^[!-9;-~]+$/.test(name) || RESERVED_HEADERS.has(name.toLowerCase())) continue;
    out[name] = String(value).replace(/[\r\n]+/g, ' ');
  }
  return out;
}

/** The delay before attempt `attempts + 1`, after `attempts` failed ones. */
export function retryDelay(retryMs: number, attempts: number): number {
  return Math.min(retryMs * 2 ** Math.max(0, attempts - 1), 3_600_000);
}

export class EmailDelivery {
  readonly options: DeliveryOptions;
  readonly #system: ActorSystem;
  readonly #renderer: RenderPool;
  readonly #transport: MailTransport;
  readonly #links: EmailLinks;
  /** Ids being sent, by tenant: an outbox starts none of these again, whichever activation asks. */
  readonly #inFlight = new Map<string, Set<string>>();
  readonly #waiting: (() => void)[] = [];
  #sending = 0;
  #closed = false;

  constructor(system: ActorSystem, renderer: RenderPool, transport: MailTransport, links: EmailLinks, options: DeliveryOptions) {
    this.#system = system;
    this.#renderer = renderer;
    this.#transport = transport;
    this.#links = links;
    this.options = options;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The Message-ID of an outbox entry (stable: made from its id). */
  messageId(tenantId: string, id: string): string {
    return `<${id}.${tenantId}@${this.#links.host}>`;
  }

  /** Ids of a tenant's emails being sent now. */
  inFlight(tenantId: string): ReadonlySet<string> {
    return this.#inFlight.get(tenantId) ?? new Set();
  }

  /** Sends one email in the background, then tells its outbox how it went. */
  start(doc: OutboxDoc): void {
    if (this.#closed) return;
    let ids = this.#inFlight.get(doc.tenantId);
    if (ids === undefined) this.#inFlight.set(doc.tenantId, (ids = new Set()));
    if (ids.has(doc._id)) return;
    ids.add(doc._id);
    void this.#attempt(doc)
      .then((result) => this.#system.ask(EmailOutboxKind, doc.tenantId, 'attempted', { id: doc._id, result }))
      .catch((err: unknown) => log.warn('email-attempt-unrecorded', { tenantId: doc.tenantId, id: doc._id, err }))
      .finally(() => {
        ids.delete(doc._id);
        if (ids.size === 0 && this.#inFlight.get(doc.tenantId) === ids) this.#inFlight.delete(doc.tenantId);
      });
  }

  /** Stops starting sends; those under way finish or are retried after the next start. */
  close(): void {
    this.#closed = true;
    this.#transport.close();
    for (const wake of this.#waiting.splice(0)) wake();
  }

  async #attempt(doc: OutboxDoc): Promise<AttemptResult> {
    let built: { raw: Buffer; subject: string; from: string };
    try {
      built = await this.#build(doc);
    } catch (err) {
      // A template that cannot render will not render later either; anything else may pass.
      const permanent = err instanceof ApiError && err.code === 'does-not-render';
      return { ok: false, permanent, error: `Rendering failed: ${(err as Error).message}` };
    }
    await this.#slot();
    try {
      if (this.#closed) return { ok: false, permanent: false, error: 'The server stopped before sending.' };
      await this.#transport.send({ from: built.from, to: doc.to, messageId: doc.messageId, subject: built.subject }, built.raw);
      log.debug('email-sent', { tenantId: doc.tenantId, id: doc._id, to: doc.to });
      return { ok: true };
    } catch (err) {
      const permanent = err instanceof SendError && err.permanent;
      log.warn('email-send-failed', { tenantId: doc.tenantId, id: doc._id, attempt: doc.attempts + 1, permanent, error: (err as Error).message });
      return { ok: false, permanent, error: (err as Error).message };
    } finally {
      this.#sending--;
      this.#waiting.shift()?.();
    }
  }

  /** Waits for one of the `maxConcurrent` sending slots. */
  async #slot(): Promise<void> {
    while (this.#sending >= this.options.maxConcurrent && !this.#closed) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#sending++;
  }

  /**
   * Renders and builds an email: the tenant's template for the domain (else the wildcard's,
   * else the built-in one), with its domain settings. A tenant template that fails is recorded
   * as a render error of that template, and the built-in one is sent instead.
   */
  async #build(doc: OutboxDoc): Promise<{ raw: Buffer; subject: string; from: string }> {
    const { tenantId } = doc;
    const definition = requireDefinition(doc.emailTemplateId);
    const configs = await this.#system.ask(TenantKind, tenantId, 'listDomainConfigs', null);
    const config: DomainConfigDoc | undefined = domainConfigFor(configs, doc.domain);
    const template = await this.#system.ask(EmailTemplatesKind, tenantId, 'select', { emailTemplateId: doc.emailTemplateId, domain: config?.domain ?? doc.domain });
    const footer = config?.footerUnsubscribeURL;
    const unsubscribeUrl = footer === undefined || footer === '' ? this.#links.unsubscribeUrl(tenantId, doc.to) : footer;
    const data = { ...doc.data, domain: doc.domain, unsubscribeUrl };
    const headers: Record<string, string> = { ...extraHeaders(config?.emailHeaders), 'List-Unsubscribe': `<${unsubscribeUrl}>` };
    const from = config?.emailFromEmail ? (config.emailFromName ? `"${config.emailFromName.replace(/["\\\r\n]/g, '')}" <${config.emailFromEmail}>` : config.emailFromEmail) : this.options.mailFrom;
    const builtIn = { tenantId, ...renderInput(definition, null, data, doc.locale) };
    const job = { from, to: doc.to, messageId: doc.messageId, headers, builtIn };
    let built = await this.#renderer.buildEmail({ ...job, custom: template === null ? null : { tenantId, ...renderInput(definition, template, data, doc.locale) } });
    if (built.customFailure !== null && template !== null) {
      const failure = built.customFailure;
      const error = `${failure.failure}: ${failure.message}${failure.line === null ? '' : ` (line ${failure.line})`}`;
      log.warn('email-template-render-failed', { tenantId, templateId: template._id, error });
      await this.#system.ask(EmailTemplatesKind, tenantId, 'recordRenderError', { id: template._id, error });
      // A template that ended the render host comes back with nothing built: the built-in alone.
      if (built.raw === null && built.builtInFailure === null) built = await this.#renderer.buildEmail({ ...job, custom: null });
    }
    if (built.raw === null) throw new ApiError('does-not-render', `The built-in ${doc.emailTemplateId} template failed: ${built.builtInFailure?.message ?? 'no answer'}`);
    return { raw: Buffer.from(built.raw), subject: built.subject, from };
  }
}
