import { PageKind, pageActorId } from '../../actors/page/protocol.js';
import { tenantSettings } from '../../actors/tenant/tenant-actor.js';
import { UserKind, userActorId } from '../../actors/user/protocol.js';
import type { ActorSystem } from '../../engine/actor-system.js';
import { ApiError } from '../../engine/errors.js';

/**
 * Refuses to let a reader listen to, or catch up on, a page it may not view. On a page that
 * requires single sign-on (`requireSSO`): an anonymous reader gets `sso-required` (a
 * `userIdWS` is only issued to identified users, so holding a valid one is the proof), and a
 * user outside the page's groups (`accessibleByGroupIds`, when it has any) gets
 * `page-forbidden`, as for the page's reaction lists. Also refuses ids of a tenant that no
 * longer exists (`invalid-tenant-id`).
 */
export async function assertMayListen(system: ActorSystem, tenantId: string, urlId: string, userId: string | null): Promise<void> {
  const settings = await tenantSettings(system, tenantId, urlId);
  if (!settings.requireSSO) return;
  if (userId === null) {
    throw new ApiError('sso-required', 'This page requires single sign-on: give the userIdWS of a signed-on user.');
  }
  const page = await system.ask(PageKind, pageActorId(tenantId, urlId), 'getPage', null);
  const groups = page?.accessibleByGroupIds ?? [];
  if (groups.length === 0) return;
  const user = await system.ask(UserKind, userActorId(tenantId, userId), 'get', null);
  const mine = user?.groupIds ?? [];
  if (!groups.some((group) => mine.includes(group))) throw new ApiError('page-forbidden', 'This page is restricted to groups this user is not in.');
}
