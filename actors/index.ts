import type { ActorSystem } from '../engine/actor-system.js';
import { TenantActor, TenantKind } from './tenant/tenant-actor.js';
import { UserKind } from './user/protocol.js';
import { UserActor } from './user/user-actor.js';

/** Registers every kind of actor with the system. */
export function registerActors(system: ActorSystem): void {
  system.register(TenantKind, (ctx) => new TenantActor(ctx));
  system.register(UserKind, (ctx) => new UserActor(ctx));
}
