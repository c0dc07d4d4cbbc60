/**
 * A tenant's people (`directory:<tenantId>`): listings and lookups of its single sign-on and
 * tenant users (read from the durable documents the user actors write), and the one place
 * tenant users are created, one at a time, so the package's `maxTenantUsers` holds however
 * many requests race. It asks user and tenant actors; none of them ever asks it.
 */
import { Actor, defineKind, type Handlers } from '../../engine/actor.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { newId } from '../../engine/ids.js';
import type { SortSpec } from '../../storage/store.js';
import { type ApiUserKind, type UserDoc, UserKind, userActorId, USERS } from './protocol.js';

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
};

/** `directory:<tenantId>` */
export const DirectoryKind = defineKind<DirectoryProtocol>('directory');

export class DirectoryActor extends Actor<DirectoryProtocol> {
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
      if (maxTenantUsers !== null && (await this.store.count(USERS, { tenantId: this.id, kind: 'tenant' })) >= maxTenantUsers) {
        throw new ApiError('tenant-user-limit-reached', `The package allows ${maxTenantUsers} tenant users.`);
      }
      const userId = newId(clock.now());
      return this.system.ask(UserKind, userActorId(this.id, userId), 'apiWrite', { kind: 'tenant', mode: 'create', input });
    },
  };
}
