import { Actor, type Handlers } from '../../engine/actor.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { newId } from '../../engine/ids.js';
import { type UserDoc, UserKind, userActorId, type UsernameClaimDoc, type UsernameProtocol, USERNAME_CLAIMS } from './protocol.js';

/**
 * One username of one tenant. Every comment that creates a user by email passes through here,
 * one at a time, so two comments racing with the same username and different emails cannot
 * both win: the first binds the name, the second gets `username-taken`.
 */
export class UsernameActor extends Actor<UsernameProtocol> {
  #tenantId = '';
  #claim: UsernameClaimDoc | undefined;

  override async onStart(): Promise<void> {
    this.#tenantId = this.id.slice(0, this.id.indexOf(':'));
    this.#claim = await this.store.get<UsernameClaimDoc>(USERNAME_CLAIMS, this.id);
  }

  readonly handlers: Handlers<UsernameProtocol> = {
    claim: async ({ username, email, avatarSrc }) => {
      const emailKey = email.trim().toLowerCase();
      const claim = this.#claim;
      if (claim !== undefined) {
        if (claim.email !== emailKey) {
          throw new ApiError('username-taken', `The name "${username}" is already used by a commenter with another email address.`);
        }
        const user = await this.system.ask(UserKind, userActorId(this.#tenantId, claim.userId), 'get', null);
        if (user !== null) return { user, created: false };
      }
      const now = clock.now();
      const nowIso = new Date(now).toISOString();
      const userId = claim?.userId ?? newId(now);
      const user: UserDoc = {
        _id: userId,
        tenantId: this.#tenantId,
        kind: 'commenter',
        username: username.trim(),
        email: emailKey,
        displayName: null,
        avatarSrc,
        websiteUrl: null,
        isProfileActivityPrivate: false,
        createdAt: nowIso,
      };
      // The user is durable before the claim that points at it.
      await this.system.ask(UserKind, userActorId(this.#tenantId, userId), 'put', { user });
      if (claim === undefined) {
        const doc: UsernameClaimDoc = { _id: this.id, tenantId: this.#tenantId, username: user.username, email: emailKey, userId, createdAt: nowIso };
        this.insert(USERNAME_CLAIMS, doc);
        this.#claim = doc;
      }
      return { user, created: true };
    },
  };
}
