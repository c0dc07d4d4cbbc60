import { Actor, type Handlers } from '../../engine/actor.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import type { CollectionSpec } from '../../storage/store.js';
import { accessChanged, tenantTopic } from '../live/live-events.js';
import { type SsoUserFields, type UserDoc, type UserProtocol, USERS, USERNAME_CLAIMS } from './protocol.js';

/** Users (findable by email) and username claims. */
export const userCollections: readonly CollectionSpec[] = [
  {
    name: USERS,
    indexes: [
      // `@mentions` name users by display name or username.
      { name: 'by_tenant_display_name', fields: ['tenantId', 'displayName'] },
      { name: 'by_tenant_username', fields: ['tenantId', 'username'] },
      { name: 'by_tenant', fields: ['tenantId'] },
      { name: 'by_tenant_email', fields: ['tenantId', 'email'] },
    ],
  },
  { name: USERNAME_CLAIMS, indexes: [] },
];

const SSO_FIELDS = [
  'username',
  'email',
  'displayName',
  'displayLabel',
  'avatarSrc',
  'websiteUrl',
  'groupIds',
  'isAdmin',
  'isModerator',
  'optedInNotifications',
] as const satisfies readonly (keyof SsoUserFields & keyof UserDoc)[];

/**
 * The SSO user after a payload: fields the payload names (null included) replace stored ones;
 * absent fields keep theirs. Profiles are private unless the payload says otherwise.
 */
export function mergeSsoUser(current: UserDoc | null, base: Pick<UserDoc, '_id' | 'tenantId'>, fields: SsoUserFields, nowIso: string): UserDoc {
  const next: UserDoc = current
    ? { ...current }
    : {
        _id: base._id,
        tenantId: base.tenantId,
        kind: 'sso',
        username: '',
        email: null,
        displayName: null,
        avatarSrc: null,
        websiteUrl: null,
        isProfileActivityPrivate: true,
        createdAt: nowIso,
      };
  const target = next as unknown as Record<string, unknown>;
  for (const field of SSO_FIELDS) {
    const value = fields[field];
    if (value === undefined) continue;
    target[field] = field === 'email' && typeof value === 'string' ? value.trim().toLowerCase() : value;
  }
  if (fields.isProfileActivityPrivate !== undefined) next.isProfileActivityPrivate = fields.isProfileActivityPrivate !== false;
  if (next.username === null || next.username === '') next.username = next.displayName ?? next.email ?? next._id;
  return next;
}

/** Whether a single sign-on user was made by a signed payload (see `UserDoc.ssoSecure`). */
function madeSecurely(user: UserDoc, tenantId: string): boolean {
  return user.ssoSecure ?? !user._id.startsWith(`${tenantId}:simple-`);
}

function sameUser(a: UserDoc, b: UserDoc): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

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
      this.#saveUser(user);
      return user;
    },
    upsertSso: ({ fields, secure }) => {
      const current = this.#user;
      if (current !== null && current.kind !== 'sso') throw new ApiError('invalid-user', 'This user id belongs to a user that is not a single sign-on user.');
      if (!secure && current !== null && madeSecurely(current, this.#tenantId)) {
        throw new ApiError('invalid-sso', 'This user is managed by secure single sign-on: an unsigned payload cannot change it.');
      }
      const next = mergeSsoUser(current, { _id: this.#userId, tenantId: this.#tenantId }, fields, new Date(clock.now()).toISOString());
      next.ssoSecure = secure || (current !== null && madeSecurely(current, this.#tenantId));
      if (this.#user !== null && sameUser(this.#user, next)) return this.#user;
      this.#saveUser(next);
      return next;
    },
  };

  /** Stores the user; a change of its groups has live channels check its readers again. */
  #saveUser(user: UserDoc): void {
    const groupsChanged = JSON.stringify(this.#user?.groupIds ?? []) !== JSON.stringify(user.groupIds ?? []);
    this.#user = user;
    this.put(USERS, user);
    if (!groupsChanged) return;
    this.publish(tenantTopic(this.#tenantId), accessChanged(this.#tenantId, null, this.#userId));
  }
}
