import { TenantKind } from '../../actors/tenant/tenant-actor.js';
import type { ActorSystem } from '../../engine/actor-system.js';
import { ApiError } from '../../engine/errors.js';

/**
 * Refuses to let an anonymous reader listen to, or catch up on, a page that requires single
 * sign-on (`requireSSO`): its events would show comments the page does not show anonymously.
 * A `userIdWS` is only issued to identified users, so holding a valid one is the proof. Also
 * refuses ids of a tenant that no longer exists (`invalid-tenant-id`).
 */
export async function assertMayListen(system: ActorSystem, tenantId: string, urlId: string, userId: string | null): Promise<void> {
  const settings = await system.ask(TenantKind, tenantId, 'settings', { urlId });
  if (settings.requireSSO && userId === null) {
    throw new ApiError('sso-required', 'This page requires single sign-on: give the userIdWS of a signed-on user.');
  }
}
