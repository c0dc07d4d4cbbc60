/**
 * Which tenants a request may act on. A credential works for its own tenant and, when that
 * tenant is white-labelled, for the tenants it manages, named by `tenantId` (auth checks that
 * much). Beyond the tenant named, a request reaches only the tenants the named tenant manages,
 * and only with the named tenant's own credential: a managed tenant's key reaches neither its
 * manager nor its siblings, and a manager's key used for one managed tenant reaches nothing
 * else. Anything out of reach is answered as if it did not exist (404 `not-found`).
 */
import { TenantKind } from '../actors/tenant/tenant-actor.js';
import type { TenantSnapshot } from '../actors/tenant/tenant-admin.js';
import { ApiError } from '../engine/errors.js';
import type { RouteRequest } from './route.js';

const TENANT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Whether the request was made with the named tenant's own credential (not its manager's). */
export function ownCredential(req: RouteRequest<unknown, unknown>): boolean {
  return req.auth?.keyTenantId === req.tenantId;
}

/**
 * The tenant `targetId` when the request may act on it: the named tenant, or one it manages.
 * `deleting`: also while its deletion is under way.
 */
export async function reachTenant(req: RouteRequest<unknown, unknown>, targetId: string, deleting = false): Promise<TenantSnapshot> {
  const missing = () => new ApiError('not-found', `No tenant ${targetId} within reach of this credential.`);
  if (!TENANT_ID.test(targetId)) throw missing();
  if (targetId !== req.tenantId && !ownCredential(req)) throw missing();
  let snapshot: TenantSnapshot;
  try {
    snapshot = await req.app.system.ask(TenantKind, targetId, 'read', { deleting });
  } catch (err) {
    if (err instanceof ApiError && err.code === 'invalid-tenant-id') throw missing();
    throw err;
  }
  if (targetId !== req.tenantId && snapshot.tenant.managedByTenantId !== req.tenantId) throw missing();
  return snapshot;
}
