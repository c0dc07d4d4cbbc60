/**
 * Deleting a tenant (`tenant-purge:<tenantId>`): every document of the tenant in every
 * collection the registry names (`storage/tenant-data.ts`), and every actor of the tenant on
 * every node. The tenant refuses all work from the moment its deletion began (`beginDelete`,
 * durable: `deletingAt` on its record); its actors are then passivated everywhere, so nothing
 * they held is written back; its documents are deleted a chunk per step; the actors are
 * passivated again and the collections checked once more; the tenant's record goes last. The
 * record with `deletingAt` is the job: a crash midway leaves it, and the next start (or a
 * retried DELETE) carries the deletion on.
 */
import { Actor, defineKind, type Handlers } from '../../engine/actor.js';
import type { ActorSystem } from '../../engine/actor-system.js';
import type { WriteOp } from '../../storage/store.js';
import type { TenantScopes } from '../../storage/tenant-data.js';
import { TenantKind } from '../tenant/tenant-actor.js';

/** Documents deleted per step (one batch). */
export const PURGE_CHUNK = 500;
/** How long passivation waits for the tenant's actors to go idle before dropping them. */
const PASSIVATE_MS = 10_000;

export type TenantPurgeProtocol = {
  /** One chunk of the deletion; `done` once nothing of the tenant is left. */
  step: { in: null; out: { done: boolean; deleted: number } };
};

/** `tenant-purge:<tenantId>` */
export const TenantPurgeKind = defineKind<TenantPurgeProtocol>('tenant-purge');

export class TenantPurgeActor extends Actor<TenantPurgeProtocol> {
  readonly #scopes: TenantScopes;
  /** Whether the tenant's actors were passivated during this activation, and whether the collections were found empty once since. */
  #passivated = false;
  #checkedOnce = false;

  constructor(ctx: ConstructorParameters<typeof Actor>[0], scopes: TenantScopes) {
    super(ctx);
    this.#scopes = scopes;
  }

  override async onStart(): Promise<void> {}

  readonly handlers: Handlers<TenantPurgeProtocol> = {
    step: async () => {
      const tenantId = this.id;
      if (!this.#passivated) {
        await this.system.passivateTenant(tenantId, TenantPurgeKind.name, PASSIVATE_MS);
        this.#passivated = true;
      }
      for (const scope of this.#scopes.byField) {
        const docs = await this.store.find(scope.collection, { [scope.field]: tenantId }, { limit: PURGE_CHUNK });
        if (docs.length === 0) continue;
        const ops: WriteOp[] = [];
        for (const doc of docs) {
          ops.push({ op: 'delete', collection: scope.collection, id: doc._id });
          for (const companion of scope.companions) ops.push({ op: 'delete', collection: companion, id: doc._id });
        }
        await this.commitNow(ops);
        this.#checkedOnce = false;
        return { done: false, deleted: docs.length };
      }
      if (!this.#checkedOnce) {
        // Anything an actor wrote while being passivated is found by one more pass.
        await this.system.passivateTenant(tenantId, TenantPurgeKind.name, PASSIVATE_MS);
        this.#checkedOnce = true;
        return { done: false, deleted: 0 };
      }
      await this.commitNow(this.#scopes.byId.map((collection): WriteOp => ({ op: 'delete', collection, id: tenantId })));
      // The tenant's own actor held its record (deleting): from now on it finds none.
      await this.system.passivateTenant(tenantId, TenantPurgeKind.name, PASSIVATE_MS);
      this.#passivated = false;
      this.#checkedOnce = false;
      return { done: true, deleted: 0 };
    },
  };
}

/**
 * Deletes a tenant and all its data, returning once that is durable: marks it deleted (it
 * refuses every call from then on), then steps the purge to the end. Safe to call again.
 */
export async function purgeTenant(system: ActorSystem, tenantId: string): Promise<void> {
  await system.ask(TenantKind, tenantId, 'beginDelete', null);
  await drivePurge(system, tenantId);
}

/** Steps the purge of `tenantId` until it is done. */
export async function drivePurge(system: ActorSystem, tenantId: string): Promise<void> {
  while (!(await system.ask(TenantPurgeKind, tenantId, 'step', null)).done);
}
