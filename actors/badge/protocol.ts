/**
 * The badge actors. `badges:<tenantId>` keeps the tenant's catalog and answers tenant-wide
 * reads of users' badges and progress (from durable storage). `badge-user:<tenantId>:<userId>`
 * owns one user's progress and badges: every change to them, automatic or by the API, is one
 * of its messages, so a threshold is crossed, and its badge awarded, exactly once.
 */
import { defineKind } from '../../engine/actor.js';
import type { BadgeEventDoc, ProgressDoc, TenantBadgeDoc, UserBadgeDoc } from './badge-model.js';

/** Catalog fields the API may set. */
export type BadgeInput = Partial<
  Pick<
    TenantBadgeDoc,
    | 'enabled'
    | 'urlId'
    | 'type'
    | 'threshold'
    | 'name'
    | 'description'
    | 'displayLabel'
    | 'displaySrc'
    | 'backgroundColor'
    | 'borderColor'
    | 'textColor'
    | 'cssClass'
    | 'veteranUserThresholdMillis'
    | 'createdByUserId'
  >
>;

/** Filters of `GET /api/v1/user-badges`. */
export interface UserBadgeFilter {
  readonly userId?: string;
  readonly badgeId?: string;
  readonly type?: number;
  readonly displayedOnComments?: boolean;
}

/** Every message of a tenant's badge catalog. */
export type BadgeCatalogProtocol = {
  list: { in: null; out: TenantBadgeDoc[] };
  get: { in: { id: string }; out: TenantBadgeDoc | null };
  create: { in: { input: BadgeInput }; out: TenantBadgeDoc };
  patch: { in: { id: string; input: BadgeInput }; out: TenantBadgeDoc };
  remove: { in: { id: string }; out: null };
  /** Users' badges, newest first. */
  listUserBadges: { in: { filter: UserBadgeFilter; skip: number; limit: number }; out: UserBadgeDoc[] };
  getUserBadge: { in: { id: string }; out: UserBadgeDoc | null };
  listProgress: { in: { userId: string | null; skip: number; limit: number }; out: ProgressDoc[] };
  getProgress: { in: { id: string }; out: ProgressDoc | null };
};

/** An SSO payload's `badgeConfig`, with the page it was sent from. */
export interface BadgeConfigInput {
  readonly badgeIds: readonly string[];
  readonly pageBadgeIds: readonly string[];
  readonly override: boolean;
  readonly update: boolean;
  readonly urlId: string | null;
}

/** Every message of one user's badge actor. */
export type BadgeUserProtocol = {
  /**
   * Progress events (already durable in the outbox): each is applied once and removed in the
   * same batch as the progress it makes. `checkStored`: events found by a sweep, applied only
   * if still stored.
   */
  apply: { in: { events: readonly BadgeEventDoc[]; checkStored: boolean }; out: null };
  /** The badges shown on the user's comments (of `urlId`'s page and global ones). */
  displayed: { in: { urlId: string | null }; out: Record<string, unknown>[] };
  progress: { in: null; out: ProgressDoc | null };
  /** Awards a badge of the catalog by the API (the user must be the tenant's or have commented). */
  award: { in: { badgeId: string; displayedOnComments: boolean }; out: UserBadgeDoc };
  setDisplayed: { in: { id: string; displayedOnComments: boolean }; out: null };
  remove: { in: { id: string }; out: null };
  /** Honours an SSO payload's `badgeConfig`. */
  applyConfig: { in: BadgeConfigInput; out: null };
  /** The user was deleted: their badges, progress and owed events go (idempotent). */
  erase: { in: null; out: null };
};

/** `badges:<tenantId>` */
export const BadgeCatalogKind = defineKind<BadgeCatalogProtocol>('badges');
/** `badge-user:<tenantId>:<userId>` */
export const BadgeUserKind = defineKind<BadgeUserProtocol>('badge-user');

/** Bus topic on which page actors announce the progress events they made durable. */
export function badgeEventsTopic(tenantId: string): string {
  return `badge-events:${tenantId}`;
}
