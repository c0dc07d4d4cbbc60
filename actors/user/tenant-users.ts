/**
 * Tenant users: people fully managed by one tenant (its administrators, with permission
 * flags). Stored as users of `kind: 'tenant'`, so `GET /api/v1/users/:id` finds them too.
 * Their username and email are unique across the whole service (global claims). Pure
 * functions the user actor calls.
 */
import { ApiError } from '../../engine/errors.js';
import { hasUnsafeCharacters } from '../text-rules.js';
import { type ClaimDoc, claimsOf } from './claims.js';
import { checkSignUpDate } from './sso-users.js';
import type { UserDoc } from './protocol.js';

/** The locales a tenant user may have (FastComments' supported locales). */
export const SUPPORTED_LOCALES = ['zh_cn', 'zh_tw', 'en_us', 'fr_fr', 'de_de', 'it_it', 'ja_jp', 'pl_pl', 'pt_br', 'ru_ru', 'es_es', 'tr_tr'] as const;

/** Permission flags and settings, stored under their API names. */
export const TENANT_USER_FLAGS = [
  'verified',
  'optedInNotifications',
  'optedInTenantNotifications',
  'hideAccountCode',
  'isHelpRequestAdmin',
  'isAccountOwner',
  'isAdminAdmin',
  'isBillingAdmin',
  'isAnalyticsAdmin',
  'isCustomizationAdmin',
  'isManageDataAdmin',
  'isCommentModeratorAdmin',
  'isAPIAdmin',
] as const;

/** Other fields stored under their API names (texts, numbers, lists). */
const OTHERS = ['displayLabel', 'locale', 'loginCount', 'moderatorIds', 'digestEmailFrequency', 'createdFromUrlId', 'createdFromTenantId', 'lastLoginDate', 'karma'] as const;
/** Nullable texts of every user. */
const TEXTS = ['displayName', 'websiteUrl', 'avatarSrc'] as const;

/** A username a tenant user may have: 1 to 100 characters, no control or bidirectional-override characters. */
function checkUsername(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw new ApiError('username-required');
  if (hasUnsafeCharacters(value)) throw new ApiError('invalid-name', 'The username may not hold control or bidirectional-override characters.');
  return value.trim();
}

function checkLocale(value: unknown): void {
  if (value !== undefined && value !== null && !(SUPPORTED_LOCALES as readonly unknown[]).includes(value)) {
    throw new ApiError('unsupported-locale', `locale must be one of ${SUPPORTED_LOCALES.join(', ')}.`);
  }
}

/**
 * The tenant user after an API write: `create` and `replace` start from the defaults (a
 * replacement keeps id, tenant and creation time), `patch` from the stored user. The tenant of
 * a user never changes (`tenant-id-immutable`).
 */
export function writeTenantUser(current: UserDoc | null, base: Pick<UserDoc, '_id' | 'tenantId'>, input: Readonly<Record<string, unknown>>, mode: 'create' | 'patch' | 'replace', nowMs: number): UserDoc {
  if (input['tenantId'] !== undefined && input['tenantId'] !== base.tenantId) throw new ApiError('tenant-id-immutable');
  const signUpDate = checkSignUpDate(input['signUpDate'], nowMs);
  checkLocale(input['locale']);
  let next: UserDoc;
  if (mode === 'patch') next = { ...current! };
  else {
    if (input['email'] === undefined || input['email'] === null || input['email'] === '') throw new ApiError('email-required');
    next = {
      _id: base._id,
      tenantId: base.tenantId,
      kind: 'tenant',
      username: '',
      email: null,
      displayName: null,
      avatarSrc: null,
      websiteUrl: null,
      isProfileActivityPrivate: false,
      createdAt: current?.createdAt ?? new Date(nowMs).toISOString(),
      signUpDate: current?.signUpDate ?? nowMs,
      locale: 'en_us',
    };
  }
  if (mode !== 'patch' || 'username' in input) next.username = checkUsername(input['username']);
  if ('email' in input) {
    const email = input['email'];
    if (typeof email !== 'string' || email.trim() === '') throw new ApiError('email-required');
    next.email = email.trim().toLowerCase();
  }
  const target = next as Record<string, unknown>;
  for (const field of TEXTS) {
    if (!(field in input)) continue;
    const value = input[field];
    target[field] = typeof value === 'string' && value !== '' ? value : null;
  }
  for (const field of TENANT_USER_FLAGS) if (typeof input[field] === 'boolean') target[field] = input[field];
  for (const field of OTHERS) if (input[field] !== undefined) target[field] = input[field];
  if (signUpDate !== undefined) next.signUpDate = signUpDate;
  return next;
}

/** The global claims of a tenant user: its username and its email. */
export function tenantUserClaims(user: UserDoc | null): ClaimDoc[] {
  if (user === null || user.kind !== 'tenant') return [];
  return claimsOf({ 'tenant-user-username': user.username, 'tenant-user-email': user.email }, user.tenantId, user._id);
}
