import type { CollectionSpec } from '../../storage/store.js';

/**
 * What the OAuth authorization server stores (docs/oauth.md). Secrets never: access tokens are
 * keyed by their SHA-256, grants hold the hashes of their code and refresh tokens, clients the
 * hash of their secret.
 */
export const OAUTH_COLLECTIONS = {
  /** Access tokens, keyed by the SHA-256 of the token; written by their grant's actor, read by every bearer request. */
  accessTokens: 'oauthAccessTokens',
  /** One document per grant (a user's consent to one client), owned by the grant's actor. */
  grants: 'oauthGrants',
  /** Registered clients (dynamic registration and the operator's partner clients); not a tenant's data. */
  clients: 'oauthClients',
} as const;

export const oauthCollections: readonly CollectionSpec[] = [
  {
    name: OAUTH_COLLECTIONS.accessTokens,
    indexes: [
      { name: 'by_grant', fields: ['grantId'] },
      { name: 'by_tenant', fields: ['tenantId'] },
      { name: 'by_expiry', fields: ['expiresAt'] },
    ],
  },
  {
    name: OAUTH_COLLECTIONS.grants,
    indexes: [
      { name: 'by_user', fields: ['tenantId', 'userId', 'createdAt'] },
      { name: 'by_expiry', fields: ['expiresAt'] },
    ],
  },
  { name: OAUTH_COLLECTIONS.clients, indexes: [], tenantData: 'global' },
];
