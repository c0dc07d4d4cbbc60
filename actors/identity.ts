/**
 * The actors of identity, teams and white-label tenancy (docs/identity.md), registered in one
 * place so the shared registry takes one line.
 */
import type { ActorSystem } from '../engine/actor-system.js';
import { COLLECTIONS } from '../storage/collections.js';
import { tenantScopes } from '../storage/tenant-data.js';
import { TenantPurgeActor, TenantPurgeKind } from './jobs/tenant-purge-actor.js';
import { UserEraseActor, UserEraseKind } from './jobs/user-erase-actor.js';
import { AuditActor, AuditKind, AuditSweeperActor, AuditSweeperKind } from './audit/audit-actor.js';
import { ModeratorsActor } from './moderator/moderators-actor.js';
import { ModeratorsKind } from './moderator/protocol.js';
import { DirectoryActor, DirectoryKind } from './user/directory-actor.js';

/** Registers the identity actors. */
export function identityActors(system: ActorSystem): void {
  const scopes = tenantScopes(COLLECTIONS);
  system.register(DirectoryKind, (ctx) => new DirectoryActor(ctx));
  system.register(UserEraseKind, (ctx) => new UserEraseActor(ctx));
  system.register(TenantPurgeKind, (ctx) => new TenantPurgeActor(ctx, scopes));
  system.register(ModeratorsKind, (ctx) => new ModeratorsActor(ctx));
  system.register(AuditKind, (ctx) => new AuditActor(ctx));
  system.register(AuditSweeperKind, (ctx) => new AuditSweeperActor(ctx));
}
