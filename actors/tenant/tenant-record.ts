/**
 * A tenant's record as the API reads and writes it (`APITenant`): the rules of creating and
 * changing one, and its answer shape. Pure functions the tenant actor calls.
 */
import { checkEmail } from '../page/comment-rules.js';
import { ApiError } from '../../engine/errors.js';
import type { Doc } from '../../storage/store.js';
import { checkSignUpDate } from '../user/sso-users.js';
import { type DomainConfigDoc, domainConfigView } from './domain-configs.js';
import type { TenantPackageDoc } from './packages.js';

export interface TenantDoc extends Doc {
  name: string;
  email?: string | null;
  /** ISO date-time. */
  signUpDate: string;
  packageId?: string | null;
  /** Shared secret for secure SSO payloads and webhook signatures (API keys are stored hashed). */
  apiSecret: string;
  /** The white-label tenant that manages this one (absent: none). */
  managedByTenantId?: string | null;
  /** ms since 1970: set when its deletion began (it refuses every call from then on). */
  deletingAt?: number | null;
  meta?: Record<string, string | null> | null;
}

/** Fields the API may set, stored under their API names (`name`, `email`, `signUpDate` and the rest are checked apart). */
export const TENANT_SETTABLE = [
  'paymentFrequency',
  'billingInfoValid',
  'billingHandledExternally',
  'createdBy',
  'isSetup',
  'billingInfo',
  'stripeCustomerId',
  'stripeSubscriptionId',
  'stripePlanId',
  'enableProfanityFilter',
  'enableSpamFilter',
  'removeUnverifiedComments',
  'unverifiedCommentsTTLms',
  'commentsRequireApproval',
  'autoApproveCommentOnVerification',
  'sendProfaneToSpam',
  'deAnonIpAddr',
  'meta',
] as const;

/** Fields only the server sets (read only through the API). */
export const TENANT_READ_ONLY = ['hasFlexPricing', 'lastBillingIssueReminderDate', 'flexLastBilledAmount'] as const;

/** Who is writing: the tenant itself (its own key), or the tenant managing it. */
export interface TenantWriter {
  readonly own: boolean;
}

/** Checks and applies a create or change; `current` null for a new tenant. Never touches packageId or domains (the actor does). */
export function writeTenant(current: TenantDoc | null, base: Pick<TenantDoc, '_id' | 'apiSecret'>, input: Readonly<Record<string, unknown>>, writer: TenantWriter, nowMs: number): TenantDoc {
  for (const field of TENANT_READ_ONLY) if (input[field] !== undefined) throw new ApiError('unexpected-param', `${field} is set by the server.`);
  const managedBy = input['managedByTenantId'];
  if (managedBy !== undefined && managedBy !== (current?.managedByTenantId ?? null)) throw new ApiError('cannot-move-tenant');
  if (writer.own && input['paymentFrequency'] !== undefined && input['paymentFrequency'] !== (current?.['paymentFrequency'] ?? 0)) throw new ApiError('cannot-change-payment-frequency');
  if (input['paymentFrequency'] !== undefined && input['paymentFrequency'] !== 0 && input['paymentFrequency'] !== 1) throw new ApiError('payment-frequency-invalid');
  if (input['billingInfoValid'] === true && input['billingInfo'] === undefined) throw new ApiError('invalid-billing-info');
  const next: TenantDoc = current !== null ? { ...current } : { _id: base._id, apiSecret: base.apiSecret, name: '', signUpDate: new Date(nowMs).toISOString(), packageId: null };
  if (current === null || input['name'] !== undefined) {
    const name = typeof input['name'] === 'string' ? input['name'].trim() : '';
    if (name.length === 0 || name.length > 200) throw new ApiError('name-invalid');
    next.name = name;
  }
  if (input['email'] !== undefined) {
    const email = input['email'];
    if (email === null || email === '') next.email = null;
    else {
      if (typeof email !== 'string' || email.length > 300) throw new ApiError('invalid-email', 'A tenant email must be at most 300 characters.');
      next.email = checkEmail(email)!.toLowerCase();
    }
  }
  const signUpDate = checkSignUpDate(input['signUpDate'], nowMs);
  if (signUpDate !== undefined) next.signUpDate = new Date(signUpDate).toISOString();
  const target = next as Record<string, unknown>;
  for (const field of TENANT_SETTABLE) if (input[field] !== undefined) target[field] = input[field];
  return next;
}

/** Whether a tenant's `meta` has every key/value of `filter`. */
export function metaMatches(doc: TenantDoc, filter: Readonly<Record<string, unknown>>): boolean {
  const meta = doc.meta ?? {};
  return Object.entries(filter).every(([key, value]) => Object.hasOwn(meta, key) && meta[key] === value);
}

/**
 * The API shape (`APITenant`): its required fields always present (absent values as their
 * defaults: `packageId` "" while it has none), the package's flags, its domain configurations.
 * Never the API secret.
 */
export function tenantView(doc: TenantDoc, domains: readonly DomainConfigDoc[], pkg: TenantPackageDoc | null): Record<string, unknown> {
  const view: Record<string, unknown> = {
    id: doc._id,
    name: doc.name,
    signUpDate: Date.parse(doc.signUpDate),
    packageId: doc.packageId ?? '',
    paymentFrequency: doc['paymentFrequency'] ?? 0,
    billingInfoValid: doc['billingInfoValid'] === true,
    createdBy: doc['createdBy'] ?? '',
    isSetup: doc['isSetup'] === true,
    domainConfiguration: domains.map(domainConfigView),
    enableProfanityFilter: doc['enableProfanityFilter'] === true,
    enableSpamFilter: doc['enableSpamFilter'] !== false,
    hasFlexPricing: pkg?.hasFlexPricing === true,
    hasAuditing: pkg?.hasAuditing === true,
  };
  if (doc.email) view['email'] = doc.email;
  if (doc.managedByTenantId) view['managedByTenantId'] = doc.managedByTenantId;
  for (const field of TENANT_SETTABLE) if (view[field] === undefined && doc[field] !== undefined && doc[field] !== null) view[field] = doc[field];
  return view;
}
