/**
 * Charging one call to its tenant's ledger.
 *
 * A fixed-cost call is charged while it runs, in parallel with its work, so its reply waits for
 * one durable write rather than two in a row; if the call is refused, the charge is reversed.
 * A variable-cost call (lists: so many credits per object returned) is charged once its result
 * is known, and the cost is reported as `creditsCost`. A charge that cannot be recorded never
 * turns a completed call into an error: the call's own writes are already durable. Charges of
 * one event-loop turn travel to the ledger together (`ChargeBatcher`).
 *
 * Reads (GET) do not wait for their charge to be durable: it reaches the ledger within 10 ms
 * (at once for a usage listing, which sends what is gathered first) and disk with the ledger's
 * next commit. Waiting would put a disk flush on every read; the cost is that a crash can
 * forget the read charges of its last few milliseconds.
 */
import { USAGE_COUNTERS, type UsageCounts } from '../actors/tenant/usage.js';
import { clock } from '../engine/clock.js';
import { RawJson, type AnyRoute, type RouteRequest, type RouteResult } from './route.js';
import type { AppServices } from './services.js';

export interface CallCharge {
  /** Settles the charge of a call that succeeded; gives the result, with `creditsCost` if variable. */
  succeeded(result: RouteResult): RouteResult | Promise<RouteResult>;
  /** Reverses what was charged up front and counts the error. */
  failed(): Promise<void>;
}

function negate(counts: UsageCounts | undefined): UsageCounts {
  const out: UsageCounts = {};
  if (counts) for (const counter of USAGE_COUNTERS) if (counts[counter]) out[counter] = -counts[counter];
  return out;
}

/** The charge of one call; a class rather than closures, since every call makes one. */
class Charge implements CallCharge {
  readonly #app: AppServices;
  readonly #tenantId: string;
  readonly #spec: AnyRoute;
  readonly #request: RouteRequest;
  readonly #at = clock.now();
  readonly #waits: boolean;
  readonly #variable: boolean;
  readonly #upfront: Promise<boolean> | undefined;

  constructor(app: AppServices, tenantId: string, spec: AnyRoute, request: RouteRequest) {
    this.#app = app;
    this.#tenantId = tenantId;
    this.#spec = spec;
    this.#request = request;
    this.#waits = request.method !== 'GET';
    this.#variable = typeof spec.credits === 'function' || typeof spec.usage === 'function';
    this.#upfront = this.#variable ? undefined : app.charges.add(tenantId, this.#fixedCredits, this.#fixedCounts, this.#at, this.#waits);
  }

  get #fixedCredits(): number {
    return typeof this.#spec.credits === 'number' ? this.#spec.credits : 1;
  }

  get #fixedCounts(): UsageCounts | undefined {
    return typeof this.#spec.usage === 'object' ? this.#spec.usage : undefined;
  }

  succeeded(result: RouteResult): RouteResult | Promise<RouteResult> {
    if (!this.#variable) return this.#upfront === undefined ? result : this.#upfront.then(() => result);
    const spec = this.#spec;
    const credits = typeof spec.credits === 'function' ? spec.credits(this.#request, result) : this.#fixedCredits;
    const counts = typeof spec.usage === 'function' ? spec.usage(this.#request, result) : this.#fixedCounts;
    const shown = typeof spec.credits === 'function' && !(result instanceof RawJson) ? { ...result, creditsCost: credits } : result;
    const recorded = this.#app.charges.add(this.#tenantId, credits, counts, this.#at, this.#waits);
    return recorded === undefined ? shown : recorded.then(() => shown);
  }

  async failed(): Promise<void> {
    // A read's charge is reversed as it was added; a write's only once it was recorded.
    const charged = !this.#variable && (this.#upfront === undefined || (await this.#upfront));
    const counts: UsageCounts = { ...(charged ? negate(this.#fixedCounts) : {}), apiErrorCount: 1 };
    await this.#app.charges.add(this.#tenantId, charged ? -this.#fixedCredits : 0, counts, this.#at, true);
  }
}

/** Starts charging `request` (already authenticated and validated) to `tenantId`. */
export function beginCharge(app: AppServices, tenantId: string, spec: AnyRoute, request: RouteRequest): CallCharge {
  return new Charge(app, tenantId, spec, request);
}
