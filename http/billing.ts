/**
 * Charging one call to its tenant's ledger.
 *
 * A fixed-cost call is charged while it runs, in parallel with its work, so its reply waits for
 * one durable write rather than two in a row; if the call is refused, the charge is reversed.
 * A variable-cost call (lists: so many credits per object returned) is charged once its result
 * is known, and the cost is reported as `creditsCost`. A charge that cannot be recorded never
 * turns a completed call into an error: the call's own writes are already durable.
 *
 * Reads (GET) do not wait for their charge to be durable: it is in the ledger at once (a later
 * call sees it) and on disk within one commit. Waiting would put a disk flush on every read;
 * the cost is that a crash can forget the read charges of its last few milliseconds.
 */
import { TenantKind } from '../actors/tenant/tenant-actor.js';
import { USAGE_COUNTERS, type UsageCounts } from '../actors/tenant/usage.js';
import { clock } from '../engine/clock.js';
import { log } from '../engine/log.js';
import { RawJson, type AnyRoute, type RouteRequest, type RouteResult } from './route.js';
import type { AppServices } from './services.js';

export interface CallCharge {
  /** Settles the charge of a call that succeeded; returns the result, with `creditsCost` if variable. */
  succeeded(result: RouteResult): Promise<RouteResult>;
  /** Reverses what was charged up front and counts the error. */
  failed(): Promise<void>;
}

function negate(counts: UsageCounts | undefined): UsageCounts {
  const out: UsageCounts = {};
  if (counts) for (const counter of USAGE_COUNTERS) if (counts[counter]) out[counter] = -counts[counter];
  return out;
}

/** Starts charging `request` (already authenticated and validated) to `tenantId`. */
export function beginCharge(app: AppServices, tenantId: string, spec: AnyRoute, request: RouteRequest): CallCharge {
  const at = clock.now();
  const charge = async (credits: number, counts: UsageCounts | undefined): Promise<boolean> => {
    try {
      await app.system.ask(TenantKind, tenantId, 'charge', counts ? { credits, counts, at } : { credits, at });
      return true;
    } catch (err) {
      log.error('charge-not-recorded', { tenantId, path: spec.path, credits, err });
      return false;
    }
  };
  const variable = typeof spec.credits === 'function' || typeof spec.usage === 'function';
  const fixedCredits = typeof spec.credits === 'number' ? spec.credits : 1;
  const fixedCounts = typeof spec.usage === 'object' ? spec.usage : undefined;
  const upfront = variable ? undefined : charge(fixedCredits, fixedCounts);
  const waits = request.method !== 'GET';

  return {
    async succeeded(result) {
      if (upfront !== undefined) {
        if (waits) await upfront;
        return result;
      }
      const credits = typeof spec.credits === 'function' ? spec.credits(request, result) : fixedCredits;
      const counts = typeof spec.usage === 'function' ? spec.usage(request, result) : fixedCounts;
      const recorded = charge(credits, counts);
      if (waits) await recorded;
      return typeof spec.credits === 'function' && !(result instanceof RawJson) ? { ...result, creditsCost: credits } : result;
    },
    async failed() {
      const charged = upfront !== undefined && (await upfront);
      await charge(charged ? -fixedCredits : 0, { ...(charged ? negate(fixedCounts) : {}), apiErrorCount: 1 });
    },
  };
}
