/**
 * Page loads of the widget API, counted in the tenant's daily usage (`commentFetchCount`):
 * summed per tenant in memory and handed to the charge batcher (which sends them to the
 * ledger in batches) a tenth of a second later, so a page view costs one map update.
 */
import { clock } from '../../engine/clock.js';
import type { AppServices } from '../services.js';

const FLUSH_MS = 100;

interface Counts {
  readonly byTenant: Map<string, number>;
  timer: NodeJS.Timeout | undefined;
}

const counts = new WeakMap<AppServices, Counts>();

/** Counts one page load of the tenant. */
export function countPageLoad(app: AppServices, tenantId: string): void {
  let c = counts.get(app);
  if (c === undefined) counts.set(app, (c = { byTenant: new Map(), timer: undefined }));
  c.byTenant.set(tenantId, (c.byTenant.get(tenantId) ?? 0) + 1);
  if (c.timer !== undefined) return;
  const pending = c;
  pending.timer = setTimeout(() => {
    pending.timer = undefined;
    const at = clock.now();
    for (const [tenant, n] of pending.byTenant) app.charges.add(tenant, 0, { commentFetchCount: n }, at, false);
    pending.byTenant.clear();
  }, FLUSH_MS);
  pending.timer.unref();
}
