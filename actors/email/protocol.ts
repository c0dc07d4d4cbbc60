/**
 * The email actors, as callers know them:
 * - `email-templates:<tenantId>`: a tenant's custom templates and their render errors;
 * - `email-outbox:<tenantId>`: a tenant's outbox, every email durable before it is sent;
 * - `email-outbox-sweep:` (one): finds outboxes with mail waiting after a start;
 * - `email-verify:<tenantId>:<userId>`: marks a user's comments verified, one link at a time.
 *
 * Deadlock rules: templates and outbox actors may ask tenant actors; the outbox asks the
 * templates actor; the verify actor asks tenant, webhooks and page actors. None of those ever asks them.
 */
import { defineKind } from '../../engine/actor.js';
import type { Doc } from '../../storage/store.js';

/** Collections of the email actors. */
export const EMAIL_COLLECTIONS = {
  templates: 'emailTemplates',
  renderErrors: 'emailTemplateRenderErrors',
  outbox: 'emailOutbox',
  suppressions: 'emailSuppressions',
} as const;

/** Translations by locale, then key. */
export type Translations = Record<string, Record<string, string>>;

/** A tenant's template as stored. `domain` null or `*`: every domain (the wildcard). */
export interface EmailTemplateDoc extends Doc {
  tenantId: string;
  emailTemplateId: string;
  displayName: string;
  createdAt: string;
  updatedAt: string | null;
  updatedByUserId: string | null;
  domain: string | null;
  ejs: string;
  translationOverridesByLocale: Translations;
  testData: Record<string, unknown>;
  /** `<emailTemplateId> <domain or *>`: unique per tenant. */
  slot: string;
}

/** Fields a caller sets (`CreateEmailTemplateBody`, `UpdateEmailTemplateBody`). */
export interface EmailTemplateInput {
  emailTemplateId?: string;
  displayName?: string;
  ejs?: string;
  domain?: string | null;
  translationOverridesByLocale?: Translations;
  testData?: Record<string, unknown>;
}

/** One kind of failure of one template, counted (`EmailTemplateRenderErrorResponse`). */
export interface RenderErrorDoc extends Doc {
  tenantId: string;
  customTemplateId: string;
  error: string;
  count: number;
  createdAt: string;
  lastOccurredAt: string;
}

/** Every message of a tenant's templates actor. */
export type EmailTemplatesProtocol = {
  list: { in: { skip: number; limit: number }; out: EmailTemplateDoc[] };
  get: { in: { id: string }; out: EmailTemplateDoc };
  /** Checks, renders with the test data, then stores. */
  create: { in: { input: EmailTemplateInput & { emailTemplateId: string; displayName: string; ejs: string }; byUserId: string | null }; out: EmailTemplateDoc };
  /** Applies the changed fields, checks and renders the result like `create`, then stores. */
  update: { in: { id: string; changes: EmailTemplateInput; byUserId: string | null }; out: EmailTemplateDoc };
  remove: { in: { id: string }; out: null };
  /** The template to send for an id and the related object's domain: that domain's, else the wildcard's, else none. */
  select: { in: { emailTemplateId: string; domain: string | null }; out: EmailTemplateDoc | null };
  /** Counts a failure of a template met while sending. */
  recordRenderError: { in: { id: string; error: string }; out: null };
  listRenderErrors: { in: { id: string; skip: number; limit: number }; out: RenderErrorDoc[] };
  removeRenderError: { in: { id: string; errorId: string }; out: null };
};

export const EmailTemplatesKind = defineKind<EmailTemplatesProtocol>('email-templates');

/** What a sender asks for: one email to one address, rendered from a template when sent. */
export interface EmailRequest {
  readonly to: string;
  readonly emailTemplateId: string;
  /** Domain of the related object (a comment's site): picks the template and domain settings. */
  readonly domain: string | null;
  readonly locale: string | null;
  /** The template's locals (JSON). `TEXT`, `domain` and `unsubscribeUrl` are added when sent. */
  readonly data: Record<string, unknown>;
  /** Sent even to an address that unsubscribed (verification, sign-in links). */
  readonly transactional?: boolean;
  /** While an email with this key is in the outbox, another with the same key is not added. */
  readonly dedupeKey?: string;
}

/** States of an outbox entry. Sent entries are removed. */
export const OUTBOX_STATES = { queued: 'queued', failed: 'failed' } as const;
export type OutboxState = (typeof OUTBOX_STATES)[keyof typeof OUTBOX_STATES];

/** An email in the outbox. Times are epoch ms. */
export interface OutboxDoc extends Doc {
  tenantId: string;
  state: OutboxState;
  createdAt: number;
  to: string;
  emailTemplateId: string;
  domain: string | null;
  locale: string | null;
  data: Record<string, unknown>;
  transactional: boolean;
  dedupeKey: string | null;
  /** Stable across attempts and restarts, so receivers can drop duplicates. */
  messageId: string;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
}

/** How one delivery attempt ended. */
export type AttemptResult = { readonly ok: true } | { readonly ok: false; readonly permanent: boolean; readonly error: string };

/** Every message of a tenant's outbox actor. */
export type EmailOutboxProtocol = {
  /** Whether `count` more emails fit in the queue now (checked before the work that sends them). */
  admit: { in: { count: number }; out: boolean };
  /** Makes the email durable in the outbox; answers once it is. */
  enqueue: { in: { email: EmailRequest; admitted: boolean }; out: { id: string; messageId: string; added: boolean } };
  /** Starts the deliveries that are due (told by its own timer and at start-up). */
  pump: { in: null; out: null };
  /** Records how a delivery attempt ended: sent (removed), retried later, or failed for good. */
  attempted: { in: { id: string; result: AttemptResult }; out: null };
  /** Stops non-transactional email to this address. */
  unsubscribe: { in: { email: string }; out: null };
  /** Entries waiting or failed, oldest first (operators and tests). */
  list: { in: { state: OutboxState }; out: OutboxDoc[] };
};

export const EmailOutboxKind = defineKind<EmailOutboxProtocol>('email-outbox');

export type EmailOutboxSweepProtocol = {
  /** Tells every outbox that has queued email to pump. */
  wake: { in: null; out: { outboxes: number } };
};

export const EmailOutboxSweepKind = defineKind<EmailOutboxSweepProtocol>('email-outbox-sweep');

export type EmailVerifyProtocol = {
  /** Marks every comment of the user verified; answers how many changed. */
  verify: { in: null; out: { verifiedCount: number } };
};

export const EmailVerifyKind = defineKind<EmailVerifyProtocol>('email-verify');

/** The id of a verify actor. */
export function emailVerifyId(tenantId: string, userId: string): string {
  return `${tenantId}:${userId}`;
}
