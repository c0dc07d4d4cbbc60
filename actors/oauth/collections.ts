import type { CollectionSpec } from '../../storage/store.js';

/** Access tokens, keyed by the SHA-256 of the token. Filled by the OAuth authorization server. */
export const OAUTH_COLLECTIONS = {
  accessTokens: 'oauthAccessTokens',
} as const;

export const oauthCollections: readonly CollectionSpec[] = [
  { name: OAUTH_COLLECTIONS.accessTokens, indexes: [{ name: 'by_grant', fields: ['grantId'] }, { name: 'by_tenant', fields: ['tenantId'] }] },
];
