import { Actor, type Handlers } from '../../engine/actor.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { DuplicateKeyError } from '../../storage/errors.js';
import type { CollectionSpec, WriteOp } from '../../storage/store.js';
import { accessChanged, tenantTopic } from '../live/live-events.js';
import { claimCollections, claimWrites, takenBy } from './claims.js';
import { DirectoryKind } from './directory-actor.js';
import { type SsoUserFields, type UserDoc, type UserProtocol, USERS, USERNAME_CLAIMS } from './protocol.js';
import { freshSsoUser, writeSsoUser } from './sso-users.js';
import { tenantUserClaims, writeTenantUser } from './tenant-users.js';
import { MAX_SESSIONS, USER_TOKENS, type UserTokenDoc, userTokenCollections } from './user-tokens.js';

/** Users (findable by email, listed by kind and sign-up date), username claims, global claims, login links and sessions. */
export const userCollections: readonly CollectionSpec[] = [
  {
    name: USERS,
    indexes: [
      // `@mentions` name users by display name or username.
      { name: 'by_tenant_display_name', fields: ['tenantId', 'displayName'] },
      { name: 'by_tenant_username', fields: ['tenantId', 'username'] },
      { name: 'by_tenant', fields: ['tenantId'] },
      { name: 'by_tenant_email', fields: ['tenantId', 'email'] },
      // `GET /api/v1/sso-users` and `/tenant-users` order.
      { name: 'by_tenant_kind_signup', fields: ['tenantId', 'kind', 'signUpDate', 'username'] },
    ],
  },
  { name: USERNAME_CLAIMS, indexes: [{ name: 'by_tenant', fields: ['tenantId'] }] },
  ...claimCollections,
  ...userTokenCollections,
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
  'optedInSubscriptionNotifications',
] as const satisfies readonly (keyof SsoUserFields & keyof UserDoc)[];

/**
 * The SSO user after a payload: fields the payload names (null included) replace stored ones;
 * absent fields keep theirs. Profiles are private unless the payload says otherwise.
 */
export function mergeSsoUser(current: UserDoc | null, base: Pick<UserDoc, '_id' | 'tenantId'>, fields: SsoUserFields, nowIso: string): UserDoc {
  const next: UserDoc = current ? { ...current } : freshSsoUser(base, nowIso);
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

/** What decides whether and how a user is billed: its kind, email and privileges. */
function billingKey(user: UserDoc | null): string {
  return user === null ? '' : JSON.stringify([user.kind, user.email, user['isAccountOwner'], user.isAdmin, user.isModerator]);
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
    upsertSso: async ({ fields, secure }) => {
      const current = this.#user;
      if (current !== null && current.kind !== 'sso') throw new ApiError('invalid-user', 'This user id belongs to a user that is not a single sign-on user.');
      if (!secure && current !== null && madeSecurely(current, this.#tenantId)) {
        throw new ApiError('invalid-sso', 'This user is managed by secure single sign-on: an unsigned payload cannot change it.');
      }
      const next = mergeSsoUser(current, { _id: this.#userId, tenantId: this.#tenantId }, fields, new Date(clock.now()).toISOString());
      next.ssoSecure = secure || (current !== null && madeSecurely(current, this.#tenantId));
      if (this.#user !== null && sameUser(this.#user, next)) return this.#user;
      const billed = billingKey(this.#user) !== billingKey(next);
      this.#saveUser(next);
      if (billed) {
        // The count reads storage: it must hold the change first.
        await this.commitNow([]);
        this.#billingChanged();
      }
      return next;
    },

    apiWrite: async ({ kind, mode, input }) => {
      const current = this.#user;
      if (mode === 'create' && current !== null) throw new ApiError('user-exists', `A user with id ${this.#userId} already exists.`);
      if (mode !== 'create' && (current === null || current.kind !== kind)) throw new ApiError('not-found', `No ${kind === 'sso' ? 'SSO' : 'tenant'} user ${this.#userId}.`);
      const base = { _id: this.#userId, tenantId: this.#tenantId };
      const now = clock.now();
      const next = kind === 'sso' ? writeSsoUser(current, base, input, mode, now) : writeTenantUser(current, base, input, mode, now);
      const claims = tenantUserClaims(next);
      const ops: WriteOp[] = [...claimWrites(tenantUserClaims(current), claims), { op: mode === 'create' ? 'insert' : 'put', collection: USERS, doc: next }];
      try {
        await this.commitNow(ops);
      } catch (err) {
        if (!(err instanceof DuplicateKeyError)) throw err;
        const taken = await takenBy(this.store, claims, this.#userId);
        if (taken === undefined) throw new ApiError('user-exists', `A user with id ${this.#userId} already exists.`);
        throw taken.kind === 'tenant-user-email' ? new ApiError('email-taken', 'Another tenant user, of any tenant, has this email.') : new ApiError('username-taken', 'Another tenant user, of any tenant, has this username.');
      }
      this.#changed(next);
      this.#billingChanged();
      return next;
    },

    remove: async ({ kind }) => {
      const current = this.#user;
      if (current === null || current.kind !== kind) throw new ApiError('not-found', `No ${kind === 'sso' ? 'SSO' : 'tenant'} user ${this.#userId}.`);
      const tokens = await this.#tokens();
      const ops: WriteOp[] = [...claimWrites(tenantUserClaims(current), []), ...tokens.map((t): WriteOp => ({ op: 'delete', collection: USER_TOKENS, id: t._id }))];
      ops.push({ op: 'delete', collection: USERS, id: this.#userId });
      await this.commitNow(ops);
      this.#changed(null);
      this.#billingChanged();
      return current;
    },

    addLoginLink: ({ hash, expiresAt, redirectURL }) => {
      this.#requireTenantUser();
      const doc: UserTokenDoc = { _id: hash, type: 'login-link', tenantId: this.#tenantId, userId: this.#userId, createdAt: clock.now(), expiresAt, usedAt: null, redirectURL };
      this.insert(USER_TOKENS, doc);
      return null;
    },

    useLoginLink: async ({ hash, sessionHash, sessionExpiresAt }) => {
      const user = this.#requireTenantUser();
      const link = await this.store.get<UserTokenDoc>(USER_TOKENS, hash);
      const now = clock.now();
      if (link === undefined || link.type !== 'login-link' || link.userId !== this.#userId || link.tenantId !== this.#tenantId) throw new ApiError('login-link-invalid');
      if (link.usedAt != null) throw new ApiError('login-link-used');
      if (link.expiresAt <= now) throw new ApiError('login-link-expired');
      const tokens = await this.#tokens();
      const sessions = tokens.filter((t) => t.type === 'session' && t.expiresAt > now).sort((a, b) => b.createdAt - a.createdAt);
      const ops: WriteOp[] = [
        { op: 'put', collection: USER_TOKENS, doc: { ...link, usedAt: now } },
        { op: 'insert', collection: USER_TOKENS, doc: { _id: sessionHash, type: 'session', tenantId: this.#tenantId, userId: this.#userId, createdAt: now, expiresAt: sessionExpiresAt } },
      ];
      // Ended sessions, and the oldest beyond the limit, go: a user's sessions stay bounded.
      for (const stale of tokens.filter((t) => t.expiresAt <= now && t._id !== hash)) ops.push({ op: 'delete', collection: USER_TOKENS, id: stale._id });
      for (const old of sessions.slice(MAX_SESSIONS - 1)) ops.push({ op: 'delete', collection: USER_TOKENS, id: old._id });
      await this.commitNow(ops);
      return user;
    },

    endSession: async ({ sessionHash }) => {
      const session = await this.store.get<UserTokenDoc>(USER_TOKENS, sessionHash);
      if (session?.type === 'session' && session.userId === this.#userId && session.tenantId === this.#tenantId) this.remove(USER_TOKENS, sessionHash);
      return null;
    },
  };

  /** Tells the tenant's directory to count billed SSO users again (a tell: it asks user actors). */
  #billingChanged(): void {
    this.system.tell(DirectoryKind, this.#tenantId, 'billingChanged', null);
  }

  #requireTenantUser(): UserDoc {
    const user = this.#user;
    if (user === null || user.kind !== 'tenant') throw new ApiError('not-found', `No tenant user ${this.#userId}.`);
    return user;
  }

  async #tokens(): Promise<UserTokenDoc[]> {
    return this.store.find<UserTokenDoc>(USER_TOKENS, { tenantId: this.#tenantId, userId: this.#userId });
  }

  /** A write already durable: the user in memory follows, and live channels re-check its groups if they changed. */
  #changed(user: UserDoc | null): void {
    const groupsChanged = JSON.stringify(this.#user?.groupIds ?? []) !== JSON.stringify(user?.groupIds ?? []);
    this.#user = user;
    if (groupsChanged) this.publish(tenantTopic(this.#tenantId), accessChanged(this.#tenantId, null, this.#userId));
  }

  /** Stores the user; a change of its groups has live channels check its readers again. */
  #saveUser(user: UserDoc): void {
    const groupsChanged = JSON.stringify(this.#user?.groupIds ?? []) !== JSON.stringify(user.groupIds ?? []);
    this.#user = user;
    this.put(USERS, user);
    if (!groupsChanged) return;
    this.publish(tenantTopic(this.#tenantId), accessChanged(this.#tenantId, null, this.#userId));
  }
}
