import { LRUCache } from 'lru-cache';
import type { Scope } from '../actors/oauth/token-store.js';
import { monthKey } from '../actors/tenant/ledger.js';
import { type Admission, TENANT_VIEWS, TenantKind } from '../actors/tenant/tenant-actor.js';
import { clock } from '../engine/clock.js';
import { ApiError } from '../engine/errors.js';
import { hashSecret, matchingDigest } from '../engine/ids.js';
import type { Query } from './query.js';
import type { AppServices } from './services.js';
import type { IncomingRequest } from './uws/index.js';

/** The verified credential of a request. */
export interface AuthInfo {
  readonly tenantId: string;
  readonly credential: 'api-key' | 'access-token';
  /** What the credential may do; an API key may do everything. */
  readonly scopes: readonly Scope[];
  /** The user who authorized an access token. */
  readonly userId?: string;
  /**
   * The tenant whose credential it is: `tenantId` itself, or the white-label tenant managing
   * it (a manager's key acts on the tenants it manages, named by `tenantId`).
   */
  readonly keyTenantId: string;
  /** The id of the API key used (never the key); undefined for access tokens. */
  readonly keyId?: string;
  /** Whether the tenant's calls are recorded in its audit log. */
  readonly audited: boolean;
}

const TENANT_ID = /^[A-Za-z0-9_-]{1,64}$/;
const BEARER = /^Bearer[ \t]+(\S+)\s*$/i;
const ALL_SCOPES: readonly Scope[] = Object.freeze(['read', 'write'] as const);

interface KeyHash {
  readonly hex: string;
  readonly bytes: Buffer;
}

/** Hashes of recently presented keys, so a busy client's key is not hashed on every call. */
const keyHashes = new LRUCache<string, KeyHash>({ max: 10_000 });

function keyHash(key: string): KeyHash {
  let hash = keyHashes.get(key);
  if (hash === undefined) {
    const hex = hashSecret(key);
    hash = { hex, bytes: Buffer.from(hex, 'hex') };
    keyHashes.set(key, hash);
  }
  return hash;
}

let monthCache = { until: 0, month: 0 };

function currentMonth(): number {
  const now = clock.now();
  if (now < monthCache.until && now >= monthCache.until - 1000) return monthCache.month;
  const d = new Date(now);
  monthCache = { until: now + 1000, month: monthKey(d.getUTCFullYear(), d.getUTCMonth() + 1) };
  return monthCache.month;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Verifies the credential in any of the three forms: `X-API-KEY` + `X-TENANT-ID` headers,
 * `API_KEY` + `tenantId` query, or `Authorization: Bearer`. On routes whose body may name the
 * tenant, `bodyTenant` names it when neither the header nor the query does. Also checks the tenant's credit
 * allowance. A key is only ever checked against the keys of the tenant named with it and, when
 * that tenant is managed (white labelling), of its manager (docs/identity.md).
 *
 * The common case, a known key of an active tenant, is answered synchronously from the tenant
 * actor's published admission view; anything else asks the tenant actor.
 */
export function authenticate(req: IncomingRequest, query: Query, app: AppServices, bodyTenant?: string): AuthInfo | Promise<AuthInfo> {
  const headerTenant = req.headers['x-tenant-id'];
  const queryTenant = single(query['tenantId']);
  if (headerTenant && queryTenant && headerTenant !== queryTenant) {
    throw new ApiError('tenant-id-mismatch', 'The X-TENANT-ID header and the tenantId query name different tenants.');
  }
  const namedTenant = headerTenant || queryTenant || bodyTenant;
  const bearer = req.headers['authorization'] ? BEARER.exec(req.headers['authorization']) : null;
  if (bearer) return authenticateToken(bearer[1]!, namedTenant, req.method, app);
  if (req.headers['authorization'] && !req.headers['x-api-key'] && query['API_KEY'] === undefined) {
    throw new ApiError('invalid-token', 'The Authorization header must be "Bearer <token>".');
  }
  const key = req.headers['x-api-key'] || single(query['API_KEY']);
  if (!key) throw new ApiError('missing-api-key');
  if (!namedTenant) throw new ApiError('missing-tenant-id');
  if (!TENANT_ID.test(namedTenant)) throw new ApiError('invalid-tenant-id');
  const hash = keyHash(key);
  const admission = openAdmission(app, namedTenant);
  if (admission !== undefined) {
    const index = matchingDigest(admission.keys, hash.bytes);
    if (index >= 0) return { tenantId: namedTenant, credential: 'api-key', scopes: ALL_SCOPES, keyTenantId: namedTenant, keyId: admission.keyIds[index]!, audited: admission.audited };
  }
  // Near the end of an allowance, the gathered charges reach the ledger ahead of this check.
  const ahead = app.charges.pending(namedTenant) !== 0 ? app.charges.flush(namedTenant) : undefined;
  const admit = () => app.system.ask(TenantKind, namedTenant, 'admit', { keyHash: hash.hex });
  return (ahead === undefined ? admit() : ahead.then(admit)).then(
    (admitted): AuthInfo => ({ tenantId: namedTenant, credential: 'api-key', scopes: ALL_SCOPES, keyTenantId: admitted.keyTenantId, keyId: admitted.keyId ?? undefined, audited: admitted.audited }),
  );
}

/**
 * The tenant's published admission view when it admits a call now (this month's, credits left
 * beyond the charges on their way), else undefined: the tenant actor is then asked.
 */
function openAdmission(app: AppServices, tenantId: string): Admission | undefined {
  const admission = app.system.peek(TenantKind, tenantId, TENANT_VIEWS.admission) as Admission | undefined;
  if (admission === undefined || admission.month !== currentMonth()) return undefined;
  return admission.remaining === null || admission.remaining - app.charges.pending(tenantId) > 0 ? admission : undefined;
}

async function authenticateToken(token: string, namedTenant: string | undefined, method: string, app: AppServices): Promise<AuthInfo> {
  const grant = await app.tokens.verify(token);
  if (namedTenant && namedTenant !== grant.tenantId) throw new ApiError('tenant-id-mismatch');
  const needed: Scope = method === 'GET' || method === 'HEAD' ? 'read' : 'write';
  if (!grant.scopes.includes(needed)) {
    throw new ApiError('insufficient-scope', `This request needs the ${needed} scope.`);
  }
  const open = openAdmission(app, grant.tenantId);
  if (open !== undefined) return { tenantId: grant.tenantId, credential: 'access-token', scopes: grant.scopes, userId: grant.userId, keyTenantId: grant.tenantId, audited: open.audited };
  if (app.charges.pending(grant.tenantId) !== 0) await app.charges.flush(grant.tenantId);
  const admitted = await app.system.ask(TenantKind, grant.tenantId, 'admit', { keyHash: null });
  return { tenantId: grant.tenantId, credential: 'access-token', scopes: grant.scopes, userId: grant.userId, keyTenantId: grant.tenantId, audited: admitted.audited };
}

/**
 * The `WWW-Authenticate` challenge of a refused bearer token (RFC 6750 §3), or undefined when
 * the refusal is not about the token.
 */
export function bearerChallenge(err: unknown, method: string): string | undefined {
  if (!(err instanceof ApiError)) return undefined;
  if (err.code === 'insufficient-scope') return `Bearer error="insufficient_scope", scope="${method === 'GET' || method === 'HEAD' ? 'read' : 'write'}"`;
  if (err.code === 'invalid-token' || err.code === 'token-expired' || err.code === 'token-revoked') return `Bearer error="invalid_token", error_description="${err.message.replaceAll('"', "'")}"`;
  return undefined;
}
