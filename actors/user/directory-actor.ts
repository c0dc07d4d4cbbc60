/**
 * A tenant's directory (`directory:<tenantId>`): listings and lookups of its single sign-on
 * and tenant users, of the tenants it manages and of packages (read from the durable documents
 * their actors write), and the one place tenant users are created, one at a time, so the
 * package's `maxTenantUsers` holds however many requests race; and it counts the SSO users
 * billed. It asks user, moderators and tenant actors; none of them ever asks it (user and
 * moderators actors tell it that something billed changed).
 */
import { Actor, defineKind, type Handlers } from '../../engine/actor.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { newId } from '../../engine/ids.js';
import type { SortSpec } from '../../storage/store.js';
import { TENANT_COLLECTIONS as C } from '../tenant/collections.js';
import type { DomainConfigDoc } from '../tenant/domain-configs.js';
import type { TenantPackageDoc } from '../tenant/packages.js';
import type { TenantSnapshot } from '../tenant/tenant-admin.js';
import { metaMatches, type TenantDoc } from '../tenant/tenant-record.js';
import { ModeratorsKind } from '../moderator/protocol.js';
import { TenantKind } from '../tenant/tenant-actor.js';
import type { SsoBillingCounts } from '../tenant/usage.js';
import { type ApiUserKind, type UserDoc, UserKind, userActorId, USERS } from './protocol.js';
import { ssoBillingClass } from './sso-users.js';
import { writeTenantUser } from './tenant-users.js';

/** Page size of the user listings. */
export const USER_PAGE_SIZE = 100;

const ORDER: Readonly<Record<ApiUserKind, SortSpec>> = {
  sso: [['signUpDate', 1], ['_id', 1]],
  tenant: [['signUpDate', 1], ['username', 1], ['_id', 1]],
};

export type DirectoryProtocol = {
  /** Users of one kind, in the API's order, `skip` then at most `limit`. */
  list: { in: { kind: ApiUserKind; skip: number; limit: number }; out: UserDoc[] };
  /** The user of this kind with this email (compared lower-cased), if any. */
  byEmail: { in: { kind: ApiUserKind; email: string }; out: UserDoc | null };
  /** Creates a tenant user unless the tenant already has `maxTenantUsers` (null: no limit). */
  createTenantUser: { in: { input: Readonly<Record<string, unknown>>; maxTenantUsers: number | null }; out: UserDoc };
  /** The tenants this tenant manages, by sign-up date then id; with `meta`, those whose meta has every pair. */
  listTenants: { in: { skip: number; limit: number; meta: Readonly<Record<string, unknown>> | null }; out: TenantSnapshot[] };
  /** The ids of the tenants this tenant manages. */
  managedIds: { in: null; out: string[] };
  /** Packages of these tenants, by creation date then id. */
  listPackages: { in: { tenantIds: readonly string[]; skip: number; limit: number }; out: TenantPackageDoc[] };
  /** A user or moderator changed in a way that may change what is billed: counts again soon (once for many changes). */
  billingChanged: { in: null; out: null };
  /** Counts the billable SSO users by class and records them on today's usage. */
  recountBilling: { in: null; out: SsoBillingCounts };
};

/** How long a recount waits for more changes. */
const RECOUNT_DELAY_MS = 1000;
/** SSO users read per storage query while counting. */
const COUNT_SCAN = 1000;

/** Tenants scanned per storage read while filtering by `meta`. */
const META_SCAN = 500;

/** `directory:<tenantId>` */
export const DirectoryKind = defineKind<DirectoryProtocol>('directory');

export class DirectoryActor extends Actor<DirectoryProtocol> {
  #recount: NodeJS.Timeout | undefined;

  override async onStart(): Promise<void> {}

  readonly handlers: Handlers<DirectoryProtocol> = {
    list: async ({ kind, skip, limit }) => {
      this.allowUnconfirmed();
      return this.store.find<UserDoc>(USERS, { tenantId: this.id, kind }, { sort: ORDER[kind], skip, limit });
    },

    byEmail: async ({ kind, email }) => {
      this.allowUnconfirmed();
      const found = await this.store.find<UserDoc>(USERS, { tenantId: this.id, email: email.trim().toLowerCase() });
      return found.find((user) => user.kind === kind) ?? null;
    },

    // Each creation is durable before the next is counted: the limit is exact.
    createTenantUser: async ({ input, maxTenantUsers }) => {
      const userId = newId(clock.now());
      // Bad input is refused as such, whatever the count.
      writeTenantUser(null, { _id: userId, tenantId: this.id }, input, 'create', clock.now());
      if (maxTenantUsers !== null && (await this.store.count(USERS, { tenantId: this.id, kind: 'tenant' })) >= maxTenantUsers) {
        throw new ApiError('tenant-user-limit-reached', `The package allows ${maxTenantUsers} tenant users.`);
      }
      return this.system.ask(UserKind, userActorId(this.id, userId), 'apiWrite', { kind: 'tenant', mode: 'create', input });
    },

    listTenants: async ({ skip, limit, meta }) => {
      this.allowUnconfirmed();
      const filter = { managedByTenantId: this.id };
      const sort: SortSpec = [['signUpDate', 1], ['_id', 1]];
      let found: TenantDoc[];
      if (meta === null) found = await this.store.find<TenantDoc>(C.tenants, filter, { sort, skip, limit });
      else {
        // Bounded: a chunk at a time, keeping only the page asked for.
        found = [];
        let toSkip = skip;
        for (let offset = 0; found.length < limit; offset += META_SCAN) {
          const chunk = await this.store.find<TenantDoc>(C.tenants, filter, { sort, skip: offset, limit: META_SCAN });
          for (const doc of chunk) {
            if (!metaMatches(doc, meta) || found.length >= limit) continue;
            if (toSkip > 0) toSkip--;
            else found.push(doc);
          }
          if (chunk.length < META_SCAN) break;
        }
      }
      return this.#snapshots(found);
    },

    managedIds: async () => {
      this.allowUnconfirmed();
      return (await this.store.find<TenantDoc>(C.tenants, { managedByTenantId: this.id })).map((doc) => doc._id);
    },

    billingChanged: () => {
      this.allowUnconfirmed();
      this.#recount ??= setTimeout(() => {
        this.#recount = undefined;
        this.system.tell(DirectoryKind, this.id, 'recountBilling', null);
      }, RECOUNT_DELAY_MS).unref();
      return null;
    },

    recountBilling: async () => {
      // One person is billed once: an SSO user with a tenant user's or a moderator's email is not counted.
      const tenantUsers = await this.store.find<UserDoc>(USERS, { tenantId: this.id, kind: 'tenant' });
      const billedElsewhere = new Set([...tenantUsers.map((u) => u.email), ...(await this.system.ask(ModeratorsKind, this.id, 'emails', null))]);
      const counts: SsoBillingCounts = { ssoUserCount: 0, ssoAdminCount: 0, ssoModeratorCount: 0 };
      for (let skip = 0; ; skip += COUNT_SCAN) {
        const chunk = await this.store.find<UserDoc>(USERS, { tenantId: this.id, kind: 'sso' }, { sort: ORDER.sso, skip, limit: COUNT_SCAN });
        for (const user of chunk) {
          if (user.email !== null && billedElsewhere.has(user.email)) continue;
          const billing = ssoBillingClass(user);
          if (billing === 'admin') counts.ssoAdminCount++;
          else if (billing === 'moderator') counts.ssoModeratorCount++;
          else counts.ssoUserCount++;
        }
        if (chunk.length < COUNT_SCAN) break;
      }
      await this.system.ask(TenantKind, this.id, 'recordSsoCounts', { counts, at: clock.now() });
      return counts;
    },

    listPackages: async ({ tenantIds, skip, limit }) => {
      this.allowUnconfirmed();
      return this.store.find<TenantPackageDoc>(C.tenantPackages, { tenantId: { $in: [...tenantIds] } }, { sort: [['createdAt', 1], ['_id', 1]], skip, limit });
    },
  };

  /** Tenants with their domains and packages in use, read in two queries (not one per tenant). */
  async #snapshots(tenants: readonly TenantDoc[]): Promise<TenantSnapshot[]> {
    if (tenants.length === 0) return [];
    const ids = tenants.map((t) => t._id);
    const packageIds = tenants.map((t) => t.packageId).filter((id): id is string => typeof id === 'string' && id !== '');
    const [domains, packages] = await Promise.all([
      this.store.find<DomainConfigDoc>(C.domainConfigs, { tenantId: { $in: ids } }, { sort: [['domain', 1]] }),
      packageIds.length === 0 ? [] : this.store.find<TenantPackageDoc>(C.tenantPackages, { _id: { $in: packageIds } }),
    ]);
    return tenants.map((tenant) => ({
      tenant: { ...tenant, apiSecret: '' },
      domains: domains.filter((d) => d.tenantId === tenant._id),
      package: packages.find((p) => p._id === tenant.packageId && p.tenantId === tenant._id) ?? null,
    }));
  }
}
