/**
 * The `badgeConfig` of a signed single sign-on payload (docs/badges.md): `badgeIds` (global
 * badges, at most 30), `pageBadgeIds` (badges of the page the payload came with), `override`
 * and `update`. Only signed payloads carry it: an unsigned one could give anyone any badge.
 */
import { MAX_SSO_BADGES } from '../actors/badge/badge-model.js';
import type { BadgeConfigInput } from '../actors/badge/protocol.js';
import { ApiError } from '../engine/errors.js';

function ids(value: unknown, field: string, max: number): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((id) => typeof id === 'string' && id.length > 0 && id.length <= 128)) {
    throw new ApiError('invalid-sso', `badgeConfig.${field} must be a list of badge ids.`);
  }
  if (value.length > max) throw new ApiError('too-many-badges', `badgeConfig.${field} may name at most ${max} badges.`);
  return value as string[];
}

/** The payload's badge settings, checked; undefined when it has none. */
export function badgeConfigOf(value: unknown, urlId: string | null): BadgeConfigInput | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw new ApiError('invalid-sso', 'badgeConfig must be an object.');
  const config = value as Record<string, unknown>;
  return {
    badgeIds: ids(config['badgeIds'], 'badgeIds', MAX_SSO_BADGES),
    pageBadgeIds: ids(config['pageBadgeIds'], 'pageBadgeIds', MAX_SSO_BADGES),
    override: config['override'] === true,
    update: config['update'] === true,
    urlId,
  };
}
