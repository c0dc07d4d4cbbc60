import { Actor, type Handlers } from '../../engine/actor.js';
import { clock, isoTime } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { newId } from '../../engine/ids.js';
import type { Filter } from '../../storage/store.js';
import { BADGE_COLLECTIONS as C, MAX_CATALOG, type ProgressDoc, type TenantBadgeDoc, type UserBadgeDoc } from './badge-model.js';
import type { BadgeCatalogProtocol, BadgeInput, UserBadgeFilter } from './protocol.js';
import { forgetCatalog } from './catalog-cache.js';

/** A new catalog badge: defaults for what the input leaves out. */
export function newBadge(tenantId: string, input: BadgeInput, nowMs: number, id: string = newId(nowMs)): TenantBadgeDoc {
  return {
    _id: id,
    tenantId,
    createdByUserId: input.createdByUserId ?? null,
    createdAt: isoTime(nowMs),
    enabled: input.enabled ?? true,
    urlId: input.urlId ?? null,
    type: input.type ?? 0,
    threshold: input.threshold ?? 0,
    uses: 0,
    name: input.name ?? '',
    description: input.description ?? '',
    displayLabel: input.displayLabel ?? input.name ?? '',
    displaySrc: input.displaySrc ?? null,
    backgroundColor: input.backgroundColor ?? null,
    borderColor: input.borderColor ?? null,
    textColor: input.textColor ?? null,
    cssClass: input.cssClass ?? null,
    veteranUserThresholdMillis: input.veteranUserThresholdMillis ?? 0,
    isAwaitingReprocess: false,
    isAwaitingDeletion: false,
    replacesBadgeId: null,
  };
}

/**
 * A tenant's badge catalog (`badges:<tenantId>`): the API's writer of it (the operator's command
 * line also writes it, so nothing is cached: reads come from storage, after this actor's own
 * writes are durable). Tenant-wide reads of users' badges and progress are answered from
 * storage too: every acknowledged award is durable there.
 */
export class BadgeCatalogActor extends Actor<BadgeCatalogProtocol> {
  readonly handlers: Handlers<BadgeCatalogProtocol> = {
    list: () => this.#all(),
    get: async ({ id }) => this.#one(id),
    create: async ({ input }) => {
      const count = await this.store.count(C.catalog, { tenantId: this.id });
      if (count >= MAX_CATALOG) throw new ApiError('badge-catalog-full', `A tenant's catalog holds at most ${MAX_CATALOG} badges.`);
      const doc = newBadge(this.id, input, clock.now());
      this.insert(C.catalog, doc);
      await this.#changed();
      return doc;
    },
    patch: async ({ id, input }) => {
      const current = await this.#one(id);
      if (current === null) throw new ApiError('badge-not-found');
      const next: TenantBadgeDoc = { ...current };
      for (const [key, value] of Object.entries(input)) if (value !== undefined) (next as Record<string, unknown>)[key] = value;
      this.put(C.catalog, next);
      await this.#changed();
      return next;
    },
    remove: async ({ id }) => {
      if ((await this.#one(id)) === null) throw new ApiError('badge-not-found');
      // Badges users hold stay theirs: they carry their own copy of the display fields.
      this.remove(C.catalog, id);
      await this.#changed();
      return null;
    },
    listUserBadges: ({ filter, skip, limit }) => this.store.find<UserBadgeDoc>(C.userBadges, userBadgeFilter(this.id, filter), { sort: [['_id', -1]], skip, limit }),
    getUserBadge: async ({ id }) => {
      const doc = await this.store.get<UserBadgeDoc>(C.userBadges, id);
      return doc !== undefined && doc.tenantId === this.id ? doc : null;
    },
    listProgress: ({ userId, skip, limit }) => {
      const filter: Filter = userId === null ? { tenantId: this.id } : { tenantId: this.id, userId };
      return this.store.find<ProgressDoc>(C.progress, filter, { sort: [['_id', 1]], skip, limit });
    },
    getProgress: async ({ id }) => {
      const doc = await this.store.get<ProgressDoc>(C.progress, id);
      return doc !== undefined && doc.tenantId === this.id ? doc : null;
    },
  };

  override async onStart(): Promise<void> {}

  /** Once the change is durable, this process's awarding reads the catalog again. */
  async #changed(): Promise<void> {
    await this.commitNow([]);
    forgetCatalog(this.id);
  }

  async #all(): Promise<TenantBadgeDoc[]> {
    await this.commitNow([]);
    return this.store.find<TenantBadgeDoc>(C.catalog, { tenantId: this.id }, { sort: [['_id', 1]] });
  }

  async #one(id: string): Promise<TenantBadgeDoc | null> {
    await this.commitNow([]);
    const doc = await this.store.get<TenantBadgeDoc>(C.catalog, id);
    return doc !== undefined && doc.tenantId === this.id ? doc : null;
  }
}

function userBadgeFilter(tenantId: string, filter: UserBadgeFilter): Filter {
  const out: Record<string, string | number | boolean> = { tenantId };
  if (filter.userId !== undefined) out['userId'] = filter.userId;
  if (filter.badgeId !== undefined) out['badgeId'] = filter.badgeId;
  if (filter.type !== undefined) out['type'] = filter.type;
  if (filter.displayedOnComments !== undefined) out['displayedOnComments'] = filter.displayedOnComments;
  return out;
}
