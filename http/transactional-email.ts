/**
 * Emails that carry a link to act on (login links, moderator invitations): room is reserved in
 * the tenant's outbox first, so a full outbox refuses the call before anything is recorded;
 * the email then goes in as transactional (sent even to an address that unsubscribed), durable
 * before the call is answered (docs/email.md).
 */
import { admitEmails, enqueueEmail } from '../email/index.js';
import { ApiError } from '../engine/errors.js';
import type { AppServices } from './services.js';

/** Reserves room for one email; `email-queue-full` when the tenant's outbox has none. */
export async function reserveEmail(app: AppServices, tenantId: string): Promise<void> {
  if (!(await admitEmails(app.system, tenantId, 1))) throw new ApiError('email-queue-full');
}

/** Queues the reserved email. */
export async function sendReserved(app: AppServices, tenantId: string, to: string, emailTemplateId: string, locale: string | null, data: Record<string, unknown>): Promise<void> {
  await enqueueEmail(app.system, tenantId, { to, emailTemplateId, domain: null, locale, data, transactional: true }, { admitted: true });
}
