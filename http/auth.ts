import type { Scope } from '../actors/oauth/token-store.js';
import { TenantKind } from '../actors/tenant/tenant-actor.js';
import { ApiError } from '../engine/errors.js';
import { LRUCache } from 'lru-cache';
import { hashSecret } from '../engine/ids.js';
import type { Query } from './query.js';
import type { AppServices } from './services.js';
import type { IncomingRequest } from './uws.js';

/** The verified credential of a request. */
export interface AuthInfo {
  readonly tenantId: string;
  readonly credential: 'api-key' | 'access-token';
  /** What the credential may do; an API key may do everything. */
  readonly scopes: readonly Scope[];
  /** The user who authorized an access token. */
  readonly userId?: string;
}

const TENANT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Hashes of recently presented keys, so a busy client's key is not hashed on every call. */
const keyHashes = new LRUCache<string, string>({ max: 10_000 });

function keyHash(key: string): string {
  let hash = keyHashes.get(key);
  if (hash === undefined) {
    hash = hashSecret(key);
    keyHashes.set(key, hash);
  }
  return hash;
}
const BEARER = /^Bearer[ \t]+(\S+)\s*$/i;

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Verifies the credential in any of the three forms: `X-API-KEY` + `X-TENANT-ID` headers,
 * `API_KEY` + `tenantId` query, or `Authorization: Bearer`. Also checks the tenant's credit
 * allowance. A key is only ever checked against the keys of the tenant named with it.
 */
export async function authenticate(req: IncomingRequest, query: Query, app: AppServices): Promise<AuthInfo> {
  const headerTenant = req.headers['x-tenant-id'];
  const queryTenant = single(query['tenantId']);
  if (headerTenant && queryTenant && headerTenant !== queryTenant) {
    throw new ApiError('tenant-id-mismatch', 'The X-TENANT-ID header and the tenantId query name different tenants.');
  }
  const namedTenant = headerTenant || queryTenant;
  const bearer = req.headers['authorization'] ? BEARER.exec(req.headers['authorization']) : null;
  if (bearer) {
    const grant = await app.tokens.verify(bearer[1]!);
    if (namedTenant && namedTenant !== grant.tenantId) throw new ApiError('tenant-id-mismatch');
    const needed: Scope = req.method === 'GET' || req.method === 'HEAD' ? 'read' : 'write';
    if (!grant.scopes.includes(needed)) {
      throw new ApiError('insufficient-scope', `This request needs the ${needed} scope.`);
    }
    await app.system.ask(TenantKind, grant.tenantId, 'admit', { keyHash: null });
    return { tenantId: grant.tenantId, credential: 'access-token', scopes: grant.scopes, userId: grant.userId };
  }
  if (req.headers['authorization'] && !req.headers['x-api-key'] && query['API_KEY'] === undefined) {
    throw new ApiError('invalid-token', 'The Authorization header must be "Bearer <token>".');
  }
  const key = req.headers['x-api-key'] || single(query['API_KEY']);
  if (!key) throw new ApiError('missing-api-key');
  if (!namedTenant) throw new ApiError('missing-tenant-id');
  if (!TENANT_ID.test(namedTenant)) throw new ApiError('invalid-tenant-id');
  await app.system.ask(TenantKind, namedTenant, 'admit', { keyHash: keyHash(key) });
  return { tenantId: namedTenant, credential: 'api-key', scopes: ['read', 'write'] };
}
