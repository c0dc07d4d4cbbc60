import type { ActorSystem } from '../engine/actor-system.js';
import { TenantKind } from './tenant/tenant-actor.js';

/** Registers every kind of actor with the system. */
export function registerActors(system: ActorSystem): void {
  system.register(TenantKind);
}
