/**
 * Daily usage and the monthly credit allowance: pure functions the tenant actor calls.
 * Days are calendar days in UTC.
 */
import type { Doc } from '../../storage/store.js';

/** Counters kept per tenant per day, named as in the API's TenantDailyUsage. */
export const USAGE_COUNTERS = [
  'commentFetchCount',
  'commentCreateCount',
  'conversationCreateCount',
  'voteCount',
  'accountCreatedCount',
  'userMentionSearch',
  'hashTagSearch',
  'gifSearchTrending',
  'gifSearch',
  'apiCreditsUsed',
  'apiErrorCount',
] as const;

export type UsageCounter = (typeof USAGE_COUNTERS)[number];
export type UsageCounts = Partial<Record<UsageCounter, number>>;

export interface DailyUsageDoc extends Doc, Record<UsageCounter, number> {
  tenantId: string;
  yearNumber: number;
  monthNumber: number;
  dayNumber: number;
  createdAt: string;
  billed: boolean;
  ignored: boolean;
  /** Credits spent beyond a flex package's monthly allowance (flex packages only). */
  overageCredits?: number;
  /**
   * Billable single sign-on users by class, as counted at the day's last change of users or
   * moderators (docs/identity.md): regular, admins, moderators; one person once.
   */
  ssoUserCount?: number;
  ssoAdminCount?: number;
  ssoModeratorCount?: number;
  /**
   * Charge senders (one per server process) and the last sequence number of theirs this day
   * holds: a charge sent again after a failover is recognised and applied once. Never shown.
   */
  chargeMarks?: Record<string, number>;
}

/** Identifies one charge: who sent it and its number among that sender's charges (increasing per tenant). */
export interface ChargeMark {
  readonly sender: string;
  readonly seq: number;
}

/** The SSO user counts of a day (`DailyUsageDoc`). */
export type SsoBillingCounts = Pick<Required<DailyUsageDoc>, 'ssoUserCount' | 'ssoAdminCount' | 'ssoModeratorCount'>;

export interface Day {
  readonly yearNumber: number;
  readonly monthNumber: number;
  readonly dayNumber: number;
}

export function dayOf(nowMs: number): Day {
  const d = new Date(nowMs);
  return { yearNumber: d.getUTCFullYear(), monthNumber: d.getUTCMonth() + 1, dayNumber: d.getUTCDate() };
}

export function usageId(tenantId: string, day: Day): string {
  const mm = String(day.monthNumber).padStart(2, '0');
  const dd = String(day.dayNumber).padStart(2, '0');
  return `${tenantId}:${day.yearNumber}-${mm}-${dd}`;
}

export function emptyUsage(tenantId: string, day: Day, nowMs: number): DailyUsageDoc {
  const doc = {
    _id: usageId(tenantId, day),
    tenantId,
    ...day,
    createdAt: new Date(nowMs).toISOString(),
    billed: false,
    ignored: false,
  } as DailyUsageDoc;
  for (const counter of USAGE_COUNTERS) doc[counter] = 0;
  return doc;
}

/** The API shape of a usage document. */
export function usageView(doc: DailyUsageDoc): Record<string, unknown> {
  const { _id, chargeMarks: _marks, ...rest } = doc;
  return { id: _id, ...rest };
}

/** What a package allows per month; absent means unlimited. */
export interface Allowance {
  readonly maxMonthlyAPICredits: number;
  readonly hasFlexPricing: boolean;
}

/**
 * The overage part of changing the month's credits from `used` by `credits` (either sign: a
 * refund is negative): the part of that change lying above a flex package's allowance, signed
 * like `credits`. Fixed packages never run into overage; they are refused before.
 */
export function overageDelta(allowance: Allowance | undefined, used: number, credits: number): number {
  if (allowance === undefined || !allowance.hasFlexPricing) return 0;
  const lo = Math.min(used, used + credits);
  const hi = Math.max(used, used + credits);
  const above = Math.max(0, hi - Math.max(lo, allowance.maxMonthlyAPICredits));
  return credits < 0 ? -above : above;
}

/** True when a fixed-price package has no credits left this month. */
export function allowanceSpent(allowance: Allowance | undefined, usedThisMonth: number): boolean {
  return allowance !== undefined && !allowance.hasFlexPricing && usedThisMonth >= allowance.maxMonthlyAPICredits;
}
