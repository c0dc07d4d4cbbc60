/**
 * The actors and collections of identity, teams and white-label tenancy (docs/identity.md),
 * registered in one place so the shared registries take one line each.
 */
import type { ActorSystem } from '../engine/actor-system.js';
import type { CollectionSpec } from '../storage/store.js';
import { jobCollections } from './jobs/jobs.js';
import { UserEraseActor, UserEraseKind } from './jobs/user-erase-actor.js';
import { DirectoryActor, DirectoryKind } from './user/directory-actor.js';

/** Registers the identity actors. */
export function identityActors(system: ActorSystem): void {
  system.register(DirectoryKind, (ctx) => new DirectoryActor(ctx));
  system.register(UserEraseKind, (ctx) => new UserEraseActor(ctx));
}

/** Collections the identity actors own (users' own are declared with the user actor). */
export const identityCollections: readonly CollectionSpec[] = [...jobCollections];
