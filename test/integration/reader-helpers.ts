/**
 * Helpers of the reader-facing public routes' tests: signed single sign-on payloads, public
 * calls from the widget's site, SSO users and comments made through the management API.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { ApiResponse, RequestOptions, TestServer } from '../fixtures/server.js';

/** The site the tests' widget runs on (configured as the tenant's domain by `allowSite`). */
export const SITE = 'https://blog.example';

export function ok<T>(r: ApiResponse<T>, what: string): T {
  assert.equal(r.status, 200, `${what}: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Configures the widget's site as a domain of the tenant. */
export async function allowSite(t: TestServer): Promise<void> {
  ok(await t.api('POST', '/api/v1/domain-configs', { body: { domain: 'blog.example' } }), 'add the widget domain');
}

/** A secure SSO payload for user `id` of the tenant, signed with its API secret. */
export function secureSso(t: TestServer, user: Record<string, unknown>, secret = t.tenant.apiSecret): string {
  const userDataJSONBase64 = Buffer.from(JSON.stringify(user), 'utf8').toString('base64');
  const timestamp = Date.now();
  const verificationHash = createHmac('sha256', secret).update(`${timestamp}${userDataJSONBase64}`).digest('hex');
  return JSON.stringify({ userDataJSONBase64, verificationHash, timestamp });
}

/** A public call from the widget's site. */
export function pub(t: TestServer, method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<Record<string, unknown>>> {
  return t.api(method, path, { ...options, auth: 'none', headers: { origin: SITE, ...options.headers } });
}

/** Adds an SSO user through the management API; answers its user id (`<tenantId>:<id>`). */
export async function ssoUserOf(t: TestServer, id: string, extra: Record<string, unknown> = {}): Promise<string> {
  ok(await t.api('POST', '/api/v1/sso-users', { body: { id, username: id, email: `${id}@readers.example`, ...extra } }), `add ${id}`);
  return `${t.tenant.tenantId}:${id}`;
}

/** Posts a comment through the management API as `userId`; answers its id. */
export async function commentAs(t: TestServer, userId: string, urlId: string, text: string, parentId?: string): Promise<string> {
  const body = { commenterName: userId.split(':').pop(), userId, comment: text, url: `${SITE}${urlId}`, urlId, locale: 'en_us', pageTitle: `Page ${urlId}`, ...(parentId ? { parentId } : {}) };
  return ok(await t.api<{ comment: { _id: string } }>('POST', '/api/v1/comments', { body }), `comment by ${userId}`).comment._id;
}
