import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { hashSecret } from '../../engine/ids.js';
import type { StoreReader } from '../../engine/actor.js';
import type { Doc } from '../../storage/store.js';
import { OAUTH_COLLECTIONS } from './collections.js';

export const SCOPES = ['read', 'write'] as const;
export type Scope = (typeof SCOPES)[number];

/** A stored access token. Its `_id` is the SHA-256 of the token, never the token itself. */
export interface AccessTokenDoc extends Doc {
  tenantId: string;
  userId: string;
  scopes: Scope[];
  /** Epoch milliseconds. */
  expiresAt: number;
  /** Epoch milliseconds; set when the token or its grant was revoked. */
  revokedAt?: number | null;
  grantId?: string;
  clientId?: string;
}

/** What a valid bearer token grants. */
export interface TokenGrant {
  readonly tenantId: string;
  readonly userId: string;
  readonly scopes: readonly Scope[];
}

/**
 * Checks bearer tokens against the token collection. Tokens are looked up by their hash on
 * every request, so a revocation takes effect at once.
 */
export class TokenStore {
  readonly #store: StoreReader;

  constructor(store: StoreReader) {
    this.#store = store;
  }

  /** The grant of a valid token; throws `invalid-token`, `token-expired` or `token-revoked`. */
  async verify(token: string): Promise<TokenGrant> {
    if (token.length === 0 || token.length > 512) throw new ApiError('invalid-token');
    const doc = await this.#store.get<AccessTokenDoc>(OAUTH_COLLECTIONS.accessTokens, hashSecret(token));
    if (doc === undefined) throw new ApiError('invalid-token');
    if (doc.revokedAt != null) throw new ApiError('token-revoked');
    if (doc.expiresAt <= clock.now()) throw new ApiError('token-expired');
    return { tenantId: doc.tenantId, userId: doc.userId, scopes: doc.scopes };
  }
}
