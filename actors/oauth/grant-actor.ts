/**
 * The grant actor: uses its code once, rotates its refresh token with a grace window, and
 * revokes everything it issued on a replay (docs/oauth.md). Every check happens before any
 * state changes; revocations are committed before they are answered.
 */
import { Actor, type Handlers } from '../../engine/actor.js';
import { clock } from '../../engine/clock.js';
import type { ErrorCode } from '../../engine/errors.js';
import { hashSecret } from '../../engine/ids.js';
import type { WriteOp } from '../../storage/store.js';
import { UserKind, userActorId } from '../user/protocol.js';
import { OAUTH_COLLECTIONS } from './collections.js';
import type { GrantDoc, GrantProtocol, IssuedTokens, RotatedToken, TokenOutcome } from './grant-protocol.js';
import { holdsApiAdmin, verifierMatches } from './grant-rules.js';
import { ACCESS_MS, CODE_MS, GRACE_MS, REFRESH_MS, newToken, seal, unseal } from './oauth-tokens.js';
import type { AccessTokenDoc, Scope } from './token-store.js';

/** Rotated refresh tokens remembered per grant; a replay of an older one is refused without revoking. */
export const MAX_ROTATED = 50;
/** Access tokens revoked per write when a grant is revoked. */
const REVOKE_BATCH = 500;

/** What a rotation sealed under the token it replaced. */
interface SealedPair {
  refresh: string;
  access: string;
  accessExpiresAt: number;
  scopes: Scope[];
}

function refuse(code: ErrorCode, reason: string): TokenOutcome {
  return { ok: false, code, reason };
}

export class GrantActor extends Actor<GrantProtocol> {
  #grant: GrantDoc | null = null;

  get #grantId(): string {
    return this.id.slice(this.id.indexOf(':') + 1);
  }

  override async onStart(): Promise<void> {
    this.#grant = (await this.store.get<GrantDoc>(OAUTH_COLLECTIONS.grants, this.#grantId)) ?? null;
  }

  readonly handlers: Handlers<GrantProtocol> = {
    create: (grant) => {
      if (this.#grant !== null) throw new Error(`grant ${this.id} exists`);
      const now = clock.now();
      const doc: GrantDoc = {
        _id: this.#grantId,
        ...grant,
        scopes: [...grant.scopes],
        createdAt: now,
        codeUsedAt: null,
        lastUsedAt: null,
        refreshHash: null,
        refreshExpiresAt: 0,
        rotated: [],
        revokedAt: null,
        expiresAt: now + CODE_MS,
      };
      this.insert(OAUTH_COLLECTIONS.grants, doc);
      this.#grant = doc;
      return null;
    },

    exchange: async ({ codeHash, clientId, redirectUri, verifier, resource }) => {
      const grant = this.#grant;
      const now = clock.now();
      if (grant === null || grant.codeHash !== codeHash) return refuse('oauth-invalid-grant', 'The authorization code is not valid.');
      if (grant.codeUsedAt !== null) {
        await this.#revokeAll(now);
        return refuse('oauth-invalid-grant', 'The authorization code was already used: every token it produced is now revoked.');
      }
      if (grant.revokedAt !== null) return refuse('oauth-invalid-grant', 'The authorization was revoked.');
      if (now >= grant.createdAt + CODE_MS) return refuse('oauth-invalid-grant', 'The authorization code has expired (codes last 10 minutes).');
      if (grant.clientId !== clientId) return refuse('oauth-invalid-grant', 'The authorization code was issued to another client.');
      const sameRedirect = grant.redirectUriGiven ? redirectUri === grant.redirectUri : redirectUri === null || redirectUri === grant.redirectUri;
      if (!sameRedirect) return refuse('oauth-invalid-grant', 'redirect_uri differs from the one of the authorization request.');
      if (!verifierMatches(verifier, grant.codeChallenge)) return refuse('oauth-invalid-grant', 'code_verifier does not match the code_challenge (PKCE S256).');
      if (resource !== null && grant.resource !== null && resource !== grant.resource) return refuse('oauth-invalid-target', 'resource differs from the one the user authorized.');
      const next: GrantDoc = { ...grant, codeUsedAt: now, lastUsedAt: now };
      return { ok: true, tokens: this.#issue(next, grant.scopes, now, null) };
    },

    refresh: async ({ token, clientId, scopes, resource }) => {
      const grant = this.#grant;
      const now = clock.now();
      if (grant === null || grant.revokedAt !== null) return refuse('oauth-invalid-grant', 'The refresh token is not valid or was revoked.');
      if (grant.clientId !== clientId) return refuse('oauth-invalid-grant', 'The refresh token was issued to another client.');
      if (resource !== null && grant.resource !== null && resource !== grant.resource) return refuse('oauth-invalid-target', 'resource differs from the one the user authorized.');
      const hash = hashSecret(token);
      let rotated: RotatedToken | undefined;
      if (hash !== grant.refreshHash) {
        rotated = grant.rotated.find((r) => r.hash === hash);
        if (rotated === undefined) return refuse('oauth-invalid-grant', 'The refresh token is not valid.');
        if (now - rotated.rotatedAt > GRACE_MS) {
          await this.#revokeAll(now);
          return refuse('oauth-invalid-grant', 'The refresh token was replaced over 30 seconds ago and presented again: the whole authorization is revoked.');
        }
      } else if (now >= grant.refreshExpiresAt) return refuse('oauth-invalid-grant', 'The refresh token has expired.');
      if (scopes !== null && scopes.some((s) => !grant.scopes.includes(s))) return refuse('oauth-invalid-scope', `The authorization grants only ${grant.scopes.join(' ')}.`);
      // The user's consent holds only while the user may still give it.
      const user = await this.system.ask(UserKind, userActorId(grant.tenantId, grant.userId), 'get', null);
      if (!holdsApiAdmin(user)) {
        await this.#revokeAll(now);
        return refuse('oauth-invalid-grant', 'The user who authorized this client no longer holds the API Admin permission: the authorization is revoked.');
      }
      if (rotated !== undefined) return this.#current(grant, token, rotated, now);
      const next: GrantDoc = { ...grant, lastUsedAt: now };
      return { ok: true, tokens: this.#issue(next, scopes ?? grant.scopes, now, token) };
    },

    revokeToken: async ({ hash, clientId }) => {
      const grant = this.#grant;
      if (grant === null || grant.clientId !== clientId) return null;
      if (hash === grant.refreshHash || grant.rotated.some((r) => r.hash === hash)) {
        if (grant.revokedAt === null) await this.#revokeAll(clock.now());
        return null;
      }
      const access = await this.store.get<AccessTokenDoc>(OAUTH_COLLECTIONS.accessTokens, hash);
      if (access !== undefined && access.grantId === grant._id && access.revokedAt == null) {
        this.patch(OAUTH_COLLECTIONS.accessTokens, hash, { revokedAt: clock.now() });
      }
      return null;
    },

    revoke: async ({ userId }) => {
      const grant = this.#grant;
      if (grant === null || grant.revokedAt !== null || (userId !== null && grant.userId !== userId)) return false;
      await this.#revokeAll(clock.now());
      return true;
    },
  };

  /**
   * Issues a new access token and a refresh token: for a partner client presenting its refresh
   * token, that same token with its life extended; otherwise a new one, replacing `presented`
   * (null at the code exchange), whose hash is remembered with the new pair sealed under it for
   * the grace window. Buffered: the reply waits until they are durable.
   */
  #issue(next: GrantDoc, scopes: Scope[], now: number, presented: string | null): IssuedTokens {
    const access = newToken('access', next.tenantId, next._id);
    const accessDoc: AccessTokenDoc = { _id: hashSecret(access), tenantId: next.tenantId, userId: next.userId, scopes: [...scopes], expiresAt: now + ACCESS_MS, revokedAt: null, grantId: next._id, clientId: next.clientId };
    this.put(OAUTH_COLLECTIONS.accessTokens, accessDoc);
    let refresh: string;
    if (next.partner && presented !== null) refresh = presented;
    else {
      refresh = newToken('refresh', next.tenantId, next._id);
      if (presented !== null) {
        const pair: SealedPair = { refresh, access, accessExpiresAt: accessDoc.expiresAt, scopes: accessDoc.scopes };
        const older = next.rotated.map((r) => (r.sealed !== null && now - r.rotatedAt > GRACE_MS ? { ...r, sealed: null } : r));
        next.rotated = [{ hash: hashSecret(presented), rotatedAt: now, sealed: seal(presented, next._id, pair) }, ...older].slice(0, MAX_ROTATED);
      }
      next.refreshHash = hashSecret(refresh);
    }
    next.refreshExpiresAt = now + REFRESH_MS;
    next.expiresAt = next.refreshExpiresAt;
    this.put(OAUTH_COLLECTIONS.grants, next);
    this.#grant = next;
    return { accessToken: access, refreshToken: refresh, expiresIn: ACCESS_MS / 1000, scopes: accessDoc.scopes };
  }

  /** Within the grace window: the pair now current, followed from `token` through what each rotation sealed. */
  #current(grant: GrantDoc, token: string, from: RotatedToken, now: number): TokenOutcome {
    let held = token;
    let entry: RotatedToken | undefined = from;
    for (let hops = 0; entry !== undefined && hops <= MAX_ROTATED; hops++) {
      const pair = entry.sealed === null ? undefined : unseal<SealedPair>(held, grant._id, entry.sealed);
      if (pair === undefined) break;
      const hash = hashSecret(pair.refresh);
      if (hash === grant.refreshHash) {
        return { ok: true, tokens: { accessToken: pair.access, refreshToken: pair.refresh, expiresIn: Math.max(0, Math.floor((pair.accessExpiresAt - now) / 1000)), scopes: pair.scopes } };
      }
      held = pair.refresh;
      entry = grant.rotated.find((r) => r.hash === hash);
    }
    return refuse('oauth-invalid-grant', 'The refresh token is not valid.');
  }

  /**
   * Revokes the grant and every access token it issued, durably before answering: the grant is
   * marked, and each live access token (found by the grant's index once everything written
   * before is durable) gets `revokedAt`.
   */
  async #revokeAll(now: number): Promise<void> {
    const grant = this.#grant!;
    // Revoked already, or past its end (nothing it issued works any more, and the sweeper may have removed it).
    if (grant.revokedAt !== null || grant.expiresAt <= now) return;
    await this.commitNow([]);
    for (;;) {
      const live = await this.store.find<AccessTokenDoc>(OAUTH_COLLECTIONS.accessTokens, { grantId: grant._id, revokedAt: null, expiresAt: { $gt: now } }, { limit: REVOKE_BATCH });
      if (live.length === 0) break;
      await this.commitNow(live.map((doc): WriteOp => ({ op: 'patch', collection: OAUTH_COLLECTIONS.accessTokens, id: doc._id, set: { revokedAt: now } })));
    }
    const revoked: GrantDoc = { ...grant, revokedAt: now, rotated: grant.rotated.map((r) => ({ ...r, sealed: null })) };
    await this.commitNow([{ op: 'put', collection: OAUTH_COLLECTIONS.grants, doc: revoked }]);
    this.#grant = revoked;
  }
}
