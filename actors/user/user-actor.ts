import { Actor, type Handlers } from '../../engine/actor.js';
import { ApiError } from '../../engine/errors.js';
import type { CollectionSpec } from '../../storage/store.js';
import { type UserDoc, type UserProtocol, USERS } from './protocol.js';

export const userCollections: readonly CollectionSpec[] = [
  { name: USERS, indexes: [{ name: 'by_tenant', fields: ['tenantId'] }] },
];

/** One user of one tenant. A user id of another tenant is, for this tenant, no user at all. */
export class UserActor extends Actor<UserProtocol> {
  #tenantId = '';
  #userId = '';
  #user: UserDoc | null = null;

  override async onStart(): Promise<void> {
    const colon = this.id.indexOf(':');
    this.#tenantId = this.id.slice(0, colon);
    this.#userId = this.id.slice(colon + 1);
    const found = await this.store.get<UserDoc>(USERS, this.#userId);
    this.#user = found !== undefined && found.tenantId === this.#tenantId ? found : null;
  }

  readonly handlers: Handlers<UserProtocol> = {
    get: () => this.#user,
    put: ({ user }) => {
      if (user._id !== this.#userId || user.tenantId !== this.#tenantId) throw new ApiError('internal-error', 'user put to the wrong actor');
      this.#user = user;
      this.put(USERS, user);
      return user;
    },
  };
}
