/**
 * A tenant's moderators (`moderators:<tenantId>`), all in memory: a tenant has few. Creations
 * and changes are serialised here, so an email stays unique among them; invitations are
 * recorded (their hash) before the email carrying them is queued; moderation actions add to
 * their counters. It asks user actors (a given `userId` must be the tenant's); none asks it.
 */
import { Actor, type Handlers } from '../../engine/actor.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { newId } from '../../engine/ids.js';
import { DirectoryKind } from '../user/directory-actor.js';
import { UserKind, userActorId } from '../user/protocol.js';
import { MODERATOR_COUNTERS, type ModeratorDoc, MODERATORS, writeModerator } from './moderator-model.js';
import type { ModeratorsProtocol } from './protocol.js';

export class ModeratorsActor extends Actor<ModeratorsProtocol> {
  readonly #moderators = new Map<string, ModeratorDoc>();

  override async onStart(): Promise<void> {
    for (const doc of await this.store.find<ModeratorDoc>(MODERATORS, { tenantId: this.id })) this.#moderators.set(doc._id, doc);
  }

  readonly handlers: Handlers<ModeratorsProtocol> = {
    list: ({ skip, limit }) => this.#sorted().slice(skip, skip + limit),
    get: ({ id }) => this.#one(id),

    create: async ({ input }) => {
      const now = clock.now();
      const next = writeModerator(null, { _id: newId(now), tenantId: this.id, createdAt: new Date(now).toISOString() }, input);
      await this.#check(next);
      this.#save(next);
      return next;
    },

    update: async ({ id, input }) => {
      const next = writeModerator(this.#one(id), { _id: id, tenantId: this.id, createdAt: '' }, input);
      await this.#check(next);
      this.#save(next);
      return next;
    },

    remove: ({ id }) => {
      const current = this.#one(id);
      this.#moderators.delete(id);
      this.remove(MODERATORS, id);
      this.#billingChanged();
      return current;
    },

    invite: ({ id, hash, expiresAt }) => {
      const next: ModeratorDoc = { ...this.#one(id), verificationId: newId(clock.now()), inviteHash: hash, inviteExpiresAt: expiresAt };
      this.#save(next);
      return next;
    },

    accept: ({ id, hash, userId }) => {
      const current = this.#moderators.get(id);
      if (current === undefined || current.inviteHash !== hash) throw new ApiError('invite-invalid');
      if ((current.inviteExpiresAt ?? 0) <= clock.now()) throw new ApiError('invite-expired');
      const next: ModeratorDoc = { ...current, acceptedInvite: true, inviteHash: null, inviteExpiresAt: null, userId: current.userId ?? userId };
      this.#save(next);
      return next;
    },

    count: ({ userId, counts }) => {
      for (const doc of this.#moderators.values()) {
        if (doc.userId !== userId) continue;
        const next: ModeratorDoc = { ...doc };
        for (const counter of MODERATOR_COUNTERS) next[counter] += counts[counter] ?? 0;
        this.#save(next);
      }
      return null;
    },

    emails: () => {
      this.allowUnconfirmed();
      return [...this.#moderators.values()].map((doc) => doc.email);
    },
  };

  #one(id: string): ModeratorDoc {
    const doc = this.#moderators.get(id);
    if (doc === undefined) throw new ApiError('not-found', `No moderator ${id}.`);
    return doc;
  }

  #sorted(): ModeratorDoc[] {
    return [...this.#moderators.values()].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a._id < b._id ? -1 : 1));
  }

  /** An email unique among the moderators; a `userId` of this tenant's. */
  async #check(next: ModeratorDoc): Promise<void> {
    for (const doc of this.#moderators.values()) {
      if (doc._id !== next._id && doc.email === next.email) throw new ApiError('moderator-email-taken');
    }
    if (next.userId !== null && next.userId !== this.#moderators.get(next._id)?.userId) {
      const user = await this.system.ask(UserKind, userActorId(this.id, next.userId), 'get', null);
      if (user === null) throw new ApiError('invalid-user', `The tenant has no user ${next.userId}.`);
    }
  }

  #save(doc: ModeratorDoc): void {
    const emailChanged = this.#moderators.get(doc._id)?.email !== doc.email;
    this.#moderators.set(doc._id, doc);
    this.put(MODERATORS, doc);
    if (emailChanged) this.#billingChanged();
  }

  /** Moderators' emails decide which SSO users are billed (the directory counts them again). */
  #billingChanged(): void {
    this.system.tell(DirectoryKind, this.id, 'billingChanged', null);
  }
}
