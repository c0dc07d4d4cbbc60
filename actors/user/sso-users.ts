/**
 * Single sign-on users as the management API sees them (`APISSOUser`): the same documents the
 * widget's `sso` payload creates and updates (`kind: 'sso'`, id `<tenantId>:<id>`), so a user
 * made by either path is managed by both. Pure functions the user actor calls.
 *
 * Users the API creates count as made by secure single sign-on (`ssoSecure`): only a signed
 * payload may change them. Their profile activity is private unless told otherwise, as for
 * users single sign-on creates.
 */
import { ApiError } from '../../engine/errors.js';
import type { UserDoc } from './protocol.js';

/** Most global badges an SSO user's `badgeConfig` may name. */
export const MAX_BADGE_IDS = 30;

/** API field → stored field, for the flags (`isAdminAdmin` and `isCommentModeratorAdmin` are the payload's `isAdmin` and `isModerator`). */
const FLAGS = {
  isAccountOwner: 'isAccountOwner',
  isAdminAdmin: 'isAdmin',
  isCommentModeratorAdmin: 'isModerator',
  optedInNotifications: 'optedInNotifications',
  optedInSubscriptionNotifications: 'optedInSubscriptionNotifications',
  isProfileActivityPrivate: 'isProfileActivityPrivate',
  isProfileCommentsPrivate: 'isProfileCommentsPrivate',
  isProfileDMDisabled: 'isProfileDMDisabled',
  hasBlockedUsers: 'hasBlockedUsers',
} as const;

/** Text fields, stored under the same names. */
const TEXTS = ['username', 'email', 'displayName', 'displayLabel', 'avatarSrc', 'websiteUrl', 'createdFromUrlId'] as const;

/** The badge settings of an SSO user (`badgeConfig`). */
export interface BadgeConfig {
  badgeIds: string[];
  pageBadgeIds?: string[];
  override?: boolean;
  update?: boolean;
}

/** The id callers use: the stored id without its `<tenantId>:` prefix. */
export function ssoApiId(doc: Pick<UserDoc, '_id' | 'tenantId'>): string {
  const prefix = `${doc.tenantId}:`;
  return doc._id.startsWith(prefix) ? doc._id.slice(prefix.length) : doc._id;
}

/** The stored id of the SSO user `id` of a tenant. */
export function ssoStoredId(tenantId: string, id: string): string {
  return `${tenantId}:${id}`;
}

/** A sign-up date may not be in the future (a minute of clock skew allowed). */
export function checkSignUpDate(ms: unknown, nowMs: number): number | undefined {
  if (ms === undefined) return undefined;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) throw new ApiError('invalid-param', 'signUpDate must be milliseconds since 1970.');
  if (ms > nowMs + 60_000) throw new ApiError('sign-up-date-in-future');
  return Math.floor(ms);
}

function checkBadges(value: unknown): BadgeConfig | undefined {
  if (value === undefined || value === null) return undefined;
  const config = value as BadgeConfig;
  if (config.badgeIds.length > MAX_BADGE_IDS) throw new ApiError('too-many-badges', `badgeConfig.badgeIds may name at most ${MAX_BADGE_IDS} badges.`);
  return config;
}

/** A new SSO user made at `createdAt` (ISO): no names yet, profile activity private. (`ssoSecure` is set by whoever makes it.) */
export function freshSsoUser(base: Pick<UserDoc, '_id' | 'tenantId'>, createdAt: string): UserDoc {
  const user: UserDoc = {
    _id: base._id,
    tenantId: base.tenantId,
    kind: 'sso',
    username: '',
    email: null,
    displayName: null,
    avatarSrc: null,
    websiteUrl: null,
    isProfileActivityPrivate: true,
    createdAt,
  };
  const signUpDate = Date.parse(createdAt);
  if (Number.isFinite(signUpDate)) user.signUpDate = signUpDate;
  return user;
}

/**
 * The SSO user after an API write. `create` and `replace` start from the defaults (a
 * replacement keeps the identity, creation time and sign-up date unless given); `patch` starts
 * from the stored user. Given fields replace stored ones; a text sent as null or "" clears it.
 */
export function writeSsoUser(current: UserDoc | null, base: Pick<UserDoc, '_id' | 'tenantId'>, input: Readonly<Record<string, unknown>>, mode: 'create' | 'patch' | 'replace', nowMs: number): UserDoc {
  const signUpDate = checkSignUpDate(input['signUpDate'], nowMs);
  const badgeConfig = checkBadges(input['badgeConfig']);
  let next: UserDoc;
  if (mode === 'patch') next = { ...current! };
  else {
    next = freshSsoUser(base, new Date(nowMs).toISOString());
    if (current !== null) {
      next.createdAt = current.createdAt;
      next.signUpDate = current.signUpDate ?? Date.parse(current.createdAt);
    }
  }
  const target = next as Record<string, unknown>;
  for (const field of TEXTS) {
    if (!(field in input)) continue;
    const value = input[field];
    target[field] = typeof value === 'string' && value.trim() !== '' ? (field === 'email' ? value.trim().toLowerCase() : value) : null;
  }
  for (const [api, stored] of Object.entries(FLAGS)) if (typeof input[api] === 'boolean') target[stored] = input[api];
  if (typeof input['loginCount'] === 'number') next['loginCount'] = input['loginCount'];
  if ('groupIds' in input) next.groupIds = (input['groupIds'] as string[] | null) ?? null;
  if ('badgeConfig' in input) next['badgeConfig'] = badgeConfig ?? null;
  if (signUpDate !== undefined) next.signUpDate = signUpDate;
  if (!next.username) next.username = next.displayName ?? next.email ?? ssoApiId(next);
  // Managed through the API: a user an unsigned payload may not change from now on.
  next.ssoSecure = true;
  return next;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const flag = (value: unknown): boolean => value === true;

/**
 * The `APISSOUser` shape. Its text fields are required, non-nullable strings in the API
 * description, so an absent value is sent as "" (generated clients refuse null there).
 */
export function ssoUserView(doc: UserDoc): Record<string, unknown> {
  const view: Record<string, unknown> = {
    id: ssoApiId(doc),
    username: doc.username,
    websiteUrl: text(doc.websiteUrl),
    email: text(doc.email),
    signUpDate: doc.signUpDate ?? Date.parse(doc.createdAt),
    createdFromUrlId: text(doc['createdFromUrlId']),
    loginCount: typeof doc['loginCount'] === 'number' ? doc['loginCount'] : 0,
    avatarSrc: text(doc.avatarSrc),
    optedInNotifications: flag(doc.optedInNotifications),
    optedInSubscriptionNotifications: flag(doc['optedInSubscriptionNotifications']),
    displayLabel: text(doc.displayLabel),
    displayName: text(doc.displayName),
    isAccountOwner: flag(doc['isAccountOwner']),
    isAdminAdmin: flag(doc.isAdmin),
    isCommentModeratorAdmin: flag(doc.isModerator),
    isProfileActivityPrivate: doc.isProfileActivityPrivate !== false,
    isProfileCommentsPrivate: flag(doc['isProfileCommentsPrivate']),
    isProfileDMDisabled: flag(doc['isProfileDMDisabled']),
    hasBlockedUsers: flag(doc['hasBlockedUsers']),
    createdFromSimpleSSO: doc.ssoSecure === false || (doc.ssoSecure === undefined && ssoApiId(doc).startsWith('simple-')),
  };
  if (Array.isArray(doc.groupIds)) view['groupIds'] = doc.groupIds;
  if (doc['badgeConfig'] != null) view['badgeConfig'] = doc['badgeConfig'];
  return view;
}

/** The billing class of an SSO user: admins and moderators are billed apart from regular users. */
export function ssoBillingClass(doc: UserDoc): 'admin' | 'moderator' | 'regular' {
  if (doc['isAccountOwner'] === true || doc.isAdmin === true) return 'admin';
  if (doc.isModerator === true) return 'moderator';
  return 'regular';
}
