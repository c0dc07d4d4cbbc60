/**
 * The `sso` parameter of widget endpoints: who the reader is.
 *
 * - Secure SSO: `{userDataJSONBase64, verificationHash, timestamp}`. `verificationHash` is the
 *   hex HMAC-SHA256, under the tenant's API secret, of `String(timestamp) + userDataJSONBase64`;
 *   `timestamp` (ms) may be neither in the future (a minute of clock skew is allowed) nor older
 *   than 2 days. The user data carries `id` (required), `email`, `username`, `avatar`,
 *   `displayName`, `displayLabel`, `websiteUrl`, `groupIds`, `isAdmin`, `isModerator`,
 *   `optedInNotifications`, `optedInSubscriptionNotifications`, `isProfileActivityPrivate`. The user id is `<tenantId>:<id>`.
 * - Simple SSO: `{username, email, avatarSrc, websiteUrl}`, unverified. The user id is
 *   `<tenantId>:simple-<hash of the email, or of the username without one>`.
 *
 * Either way the user is created or updated (only on change) as an SSO user, whose profile
 * activity is private unless the payload sets `isProfileActivityPrivate` to false.
 */
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { TenantKind } from '../actors/tenant/tenant-actor.js';
import { type SsoUserFields, type UserDoc, UserKind, userActorId } from '../actors/user/protocol.js';
import { clock } from '../engine/clock.js';
import { ApiError } from '../engine/errors.js';
import { hasUnsafeCharacters, isHttpUrl, isImageSrc } from '../actors/text-rules.js';
import { assertStorable } from './input-guard.js';
import { badgeConfigOf } from './sso-badges.js';
import { badgeUserActorId } from '../actors/badge/badge-model.js';
import { BadgeUserKind, type BadgeConfigInput } from '../actors/badge/protocol.js';
import type { AppServices } from './services.js';

const MAX_AGE_MS = 2 * 24 * 60 * 60 * 1000;
const SKEW_MS = 60_000;
const MAX_SSO_LENGTH = 16_384;

/** A reader identified by single sign-on. */
export interface SsoUser {
  readonly user: UserDoc;
  /** Whether the payload was signed (secure SSO). */
  readonly secure: boolean;
}

function str(value: unknown, max = 1000): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  if (typeof value === 'string') return value.slice(0, max);
  if (typeof value === 'number') return String(value);
  throw new ApiError('invalid-sso', 'A single sign-on user field has the wrong type.');
}

/** A name shown to other readers: no control or bidirectional-override characters. */
function name(value: unknown, field: string): string | null | undefined {
  const text = str(value);
  if (typeof text === 'string' && hasUnsafeCharacters(text)) {
    throw new ApiError('invalid-sso', `The single sign-on ${field} may not hold control or bidirectional-override characters.`);
  }
  return text;
}

/** A link of the user: http(s) only (an avatar may also be a path on the site). */
function linkOf(value: unknown, field: string, image: boolean): string | null | undefined {
  const text = str(value, 2048);
  if (typeof text === 'string' && text !== '' && !(image ? isImageSrc(text) : isHttpUrl(text))) {
    throw new ApiError('invalid-url', `The single sign-on ${field} must be an absolute http(s) URL${image ? ' or a path starting with /' : ''}.`);
  }
  return text;
}

function flag(value: unknown): boolean | null | undefined {
  if (value === undefined || value === null) return value;
  if (typeof value === 'boolean') return value;
  throw new ApiError('invalid-sso', 'A single sign-on flag must be true or false.');
}

function groups(value: unknown): string[] | null | undefined {
  if (value === undefined || value === null) return value;
  if (Array.isArray(value) && value.length <= 100 && value.every((g) => typeof g === 'string')) return value as string[];
  throw new ApiError('invalid-sso', 'groupIds must be a list of strings.');
}

/** Only the fields the payload names: absent ones leave the stored user alone. */
function fieldsOf(data: Record<string, unknown>, avatarField: 'avatar' | 'avatarSrc'): SsoUserFields {
  const fields: Record<string, unknown> = {
    username: name(data['username'], 'username'),
    email: str(data['email']),
    displayName: name(data['displayName'], 'displayName'),
    displayLabel: name(data['displayLabel'], 'displayLabel'),
    avatarSrc: linkOf(data[avatarField], avatarField, true),
    websiteUrl: linkOf(data['websiteUrl'], 'websiteUrl', false),
    groupIds: groups(data['groupIds']),
    isAdmin: flag(data['isAdmin']),
    isModerator: flag(data['isModerator']),
    optedInNotifications: flag(data['optedInNotifications']),
    optedInSubscriptionNotifications: flag(data['optedInSubscriptionNotifications']),
    isProfileActivityPrivate: flag(data['isProfileActivityPrivate']),
  };
  for (const key of Object.keys(fields)) if (fields[key] === undefined) delete fields[key];
  return fields as SsoUserFields;
}

function parse(raw: string): Record<string, unknown> {
  if (raw.length > MAX_SSO_LENGTH) throw new ApiError('invalid-sso', 'The sso parameter is too long.');
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ApiError('invalid-sso', 'The sso parameter must be URI-encoded JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ApiError('invalid-sso', 'The sso parameter must be a JSON object.');
  assertStorable(value, 'sso');
  return value as Record<string, unknown>;
}

/** Checks a secure payload and returns its user data. */
async function verify(app: AppServices, tenantId: string, sso: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { userDataJSONBase64: data, verificationHash: hash, timestamp } = sso;
  if (typeof data !== 'string' || typeof hash !== 'string' || (typeof timestamp !== 'number' && typeof timestamp !== 'string')) {
    throw new ApiError('invalid-sso', 'Secure single sign-on needs userDataJSONBase64, verificationHash and timestamp.');
  }
  const at = Number(timestamp);
  const now = clock.now();
  if (!Number.isFinite(at) || at > now + SKEW_MS) throw new ApiError('invalid-sso', 'The single sign-on timestamp is in the future.');
  if (at < now - MAX_AGE_MS) throw new ApiError('invalid-sso', 'The single sign-on timestamp is older than 2 days.');
  const ok = await app.system.ask(TenantKind, tenantId, 'verifySso', { message: `${String(timestamp)}${data}`, hash });
  if (!ok) throw new ApiError('invalid-sso', 'The single sign-on verificationHash does not match.');
  const bytes = Buffer.from(data, 'base64');
  if (!isUtf8(bytes)) throw new ApiError('invalid-unicode', 'userDataJSONBase64 is not base64 of UTF-8 text.');
  let user: unknown;
  try {
    user = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new ApiError('invalid-sso', 'userDataJSONBase64 is not base64 of JSON.');
  }
  if (typeof user !== 'object' || user === null || Array.isArray(user)) throw new ApiError('invalid-sso', 'The single sign-on user data must be a JSON object.');
  assertStorable(user, 'sso.userDataJSONBase64');
  return user as Record<string, unknown>;
}

/**
 * The single sign-on user of a request (created or updated), or undefined when there is no
 * `sso` parameter. A malformed or badly signed payload is refused with `invalid-sso`.
 */
export async function ssoUser(app: AppServices, tenantId: string, raw: string | undefined, urlId: string | null = null): Promise<SsoUser | undefined> {
  if (raw === undefined || raw.trim() === '') return undefined;
  const sso = parse(raw);
  let id: string;
  let fields: SsoUserFields;
  let secure: boolean;
  let badges: BadgeConfigInput | undefined;
  if ('userDataJSONBase64' in sso || 'verificationHash' in sso) {
    const data = await verify(app, tenantId, sso);
    const given = str(data['id'], 256);
    if (!given) throw new ApiError('invalid-sso', 'The single sign-on user data needs an id.');
    id = `${tenantId}:${given}`;
    fields = fieldsOf(data, 'avatar');
    secure = true;
    badges = badgeConfigOf(data['badgeConfig'], urlId);
  } else {
    // Unsigned: anyone can send it, so it carries no privileges and no groups.
    const { isAdmin: _admin, isModerator: _moderator, groupIds: _groups, ...unprivileged } = sso;
    fields = fieldsOf(unprivileged, 'avatarSrc');
    const basis = fields.email?.trim().toLowerCase() || fields.username?.trim();
    if (!basis) throw new ApiError('invalid-sso', 'Simple single sign-on needs a username or an email.');
    id = `${tenantId}:simple-${createHash('sha256').update(basis).digest('hex').slice(0, 24)}`;
    secure = false;
  }
  const user = await app.system.ask(UserKind, userActorId(tenantId, id), 'upsertSso', { fields, secure });
  // Off the request path: the badges reach the user's comments once durable.
  if (badges !== undefined) app.system.tell(BadgeUserKind, badgeUserActorId(tenantId, id), 'applyConfig', badges);
  return { user, secure };
}
