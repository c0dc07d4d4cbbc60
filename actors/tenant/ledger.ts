/**
 * A tenant's credit ledger: daily usage documents and the running total of the month the
 * allowance is judged on. Owned by the tenant actor, which writes what this returns.
 *
 * Charges carry the time of their call and can arrive late (after midnight) or out of order
 * with the clock; each lands on its own day's document, loaded from storage when it is not in
 * memory, so no day is ever overwritten by a fresh one.
 */
import type { StoreReader } from '../../engine/actor.js';
import { TENANT_COLLECTIONS as C } from './collections.js';
import {
  type Allowance,
  allowanceSpent,
  type ChargeMark,
  type DailyUsageDoc,
  dayOf,
  emptyUsage,
  overageDelta,
  USAGE_COUNTERS,
  type UsageCounts,
  usageId,
} from './usage.js';

export interface UsageFilter {
  yearNumber?: number;
  monthNumber?: number;
  dayNumber?: number;
}

/** Day documents kept in memory before the oldest are dropped (they are all in storage). */
const CACHED_DAYS = 64;

/** A month as one number: year × 12 + month (1 to 12). */
export function monthKey(year: number, month: number): number {
  return year * 12 + month;
}

export class Ledger {
  readonly #tenantId: string;
  readonly #store: StoreReader;
  #allowance: Allowance | undefined;
  /** Day documents by id: the latest version, durable or on its way. */
  readonly #days = new Map<string, DailyUsageDoc>();
  #month = -1;
  #monthCredits = 0;

  constructor(tenantId: string, store: StoreReader, allowance: Allowance | undefined) {
    this.#tenantId = tenantId;
    this.#store = store;
    this.#allowance = allowance;
  }

  /** True when a fixed-price package has spent this month's allowance (the month of `now`). */
  async spent(now: number): Promise<boolean> {
    await this.#useMonth(now);
    return allowanceSpent(this.#allowance, this.#monthCredits);
  }

  get allowance(): Allowance | undefined {
    return this.#allowance;
  }

  /** The package in use changed: its allowance applies from now on (to the month's credits so far). */
  set allowance(allowance: Allowance | undefined) {
    this.#allowance = allowance;
  }

  /** The month (year × 12 + month) the allowance is tracked for. */
  get month(): number {
    return this.#month;
  }

  /** Credits left this month under a fixed-price package; null when nothing refuses calls. */
  get remaining(): number | null {
    const allowance = this.#allowance;
    if (allowance === undefined || allowance.hasFlexPricing) return null;
    return allowance.maxMonthlyAPICredits - this.#monthCredits;
  }

  /**
   * The day document after a charge made at `at`; the caller stores it. With a `mark`, a charge
   * this day already holds (sent again because its answer was lost) changes nothing: undefined.
   * A sender's charges to one tenant are sent one at a time, so its last number is enough.
   */
  async record(credits: number, counts: UsageCounts | undefined, at: number, mark?: ChargeMark): Promise<DailyUsageDoc | undefined> {
    const day = dayOf(at);
    const before = await this.#dayDoc(at);
    if (mark !== undefined && (before.chargeMarks?.[mark.sender] ?? 0) >= mark.seq) return undefined;
    // Refunds are negative; a refund landing on a later day than its charge must not go below zero.
    const next: DailyUsageDoc = { ...before, apiCreditsUsed: Math.max(0, before.apiCreditsUsed + credits) };
    if (mark !== undefined) next.chargeMarks = { ...before.chargeMarks, [mark.sender]: mark.seq };
    if (counts) {
      for (const counter of USAGE_COUNTERS) {
        const n = counts[counter];
        if (n) next[counter] = Math.max(0, next[counter] + n);
      }
    }
    if (monthKey(day.yearNumber, day.monthNumber) === this.#month) {
      const overage = overageDelta(this.#allowance, this.#monthCredits, credits);
      if (overage !== 0) next.overageCredits = Math.max(0, (before.overageCredits ?? 0) + overage);
      this.#monthCredits = Math.max(0, this.#monthCredits + credits);
    }
    this.#remember(next);
    return next;
  }

  /** The day document of `at` with these counts set (not added: they are totals counted at that moment). */
  async gauge(values: Readonly<Record<string, number>>, at: number): Promise<DailyUsageDoc> {
    const next = { ...(await this.#dayDoc(at)), ...values } as DailyUsageDoc;
    this.#remember(next);
    return next;
  }

  /**
   * Usage documents matching the filter, oldest first, with `skip` and at most `limit`. Days
   * in memory replace their stored versions: their latest charges may still be on the way to
   * storage (the actor's reply waits for them).
   */
  async list(filter: UsageFilter, skip: number, limit: number): Promise<DailyUsageDoc[]> {
    const query: Record<string, string | number> = { tenantId: this.#tenantId, ...filter };
    const stored = await this.#store.find<DailyUsageDoc>(C.dailyUsage, query);
    const byId = new Map(stored.map((doc) => [doc._id, doc]));
    for (const doc of this.#days.values()) {
      if (Object.entries(filter).every(([k, v]) => doc[k] === v)) byId.set(doc._id, doc);
    }
    return [...byId.values()]
      .sort((a, b) => a.yearNumber - b.yearNumber || a.monthNumber - b.monthNumber || a.dayNumber - b.dayNumber)
      .slice(skip, skip + limit);
  }

  /** Makes the month of `now` the one the allowance is judged on, loading its total if new. */
  async #useMonth(now: number): Promise<void> {
    const day = dayOf(now);
    const key = monthKey(day.yearNumber, day.monthNumber);
    if (key === this.#month) return;
    const docs = await this.list({ yearNumber: day.yearNumber, monthNumber: day.monthNumber }, 0, 31);
    this.#month = key;
    this.#monthCredits = docs.reduce((sum, doc) => sum + doc.apiCreditsUsed, 0);
  }

  async #dayDoc(at: number): Promise<DailyUsageDoc> {
    const day = dayOf(at);
    const id = usageId(this.#tenantId, day);
    const cached = this.#days.get(id);
    if (cached) return cached;
    const stored = await this.#store.get<DailyUsageDoc>(C.dailyUsage, id);
    return stored ?? emptyUsage(this.#tenantId, day, at);
  }

  #remember(doc: DailyUsageDoc): void {
    this.#days.delete(doc._id);
    this.#days.set(doc._id, doc);
    if (this.#days.size > CACHED_DAYS) this.#days.delete(this.#days.keys().next().value!);
  }
}
