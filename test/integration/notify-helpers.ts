/**
 * Helpers of the notification tests: users of a tenant, comments by them, live channels of
 * their user topics, and the point where every notification job has finished.
 */
import assert from 'node:assert/strict';
import { NOTIFY_COLLECTIONS } from '../../actors/notify/notification-doc.js';
import type { ProvisionedTenant } from '../../actors/tenant/provision.js';
import { type UserDoc, UserKind, userActorId } from '../../actors/user/protocol.js';
import { eventually } from '../fixtures/eventually.js';
import { assertComponent } from '../fixtures/openapi.js';
import type { ApiResponse, RequestOptions, TestServer } from '../fixtures/server.js';
import type { LiveClient } from '../unit/live/fixtures.js';
import type { Comment } from './page-helpers.js';

/** Calls the API as `tenant` (another tenant of the same server). */
export function apiAs<T = Record<string, unknown>>(t: TestServer, tenant: ProvisionedTenant, method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  return t.api<T>(method, path, { ...options, auth: 'none', headers: { 'x-api-key': tenant.apiKey, 'x-tenant-id': tenant.tenantId, ...options.headers } });
}

/** Stores a user of `tenantId` through its actor (as single sign-on or a commenter's first comment would). */
export async function putUser(t: TestServer, tenantId: string, id: string, fields: Partial<UserDoc> & Record<string, unknown>): Promise<UserDoc> {
  const user = {
    _id: id,
    tenantId,
    kind: 'commenter',
    username: id,
    email: null,
    displayName: null,
    avatarSrc: null,
    websiteUrl: null,
    isProfileActivityPrivate: false,
    createdAt: new Date().toISOString(),
    ...fields,
  } as UserDoc;
  return t.server.services.system.ask(UserKind, userActorId(tenantId, id), 'put', { user });
}

/** Posts a comment as `tenant` (default: the server's own) and returns it. */
export async function comment(t: TestServer, urlId: string, fields: Record<string, unknown>, query: Record<string, string | boolean> = {}, tenant?: ProvisionedTenant): Promise<Comment> {
  const options = { query, body: { commenterName: 'Someone', comment: 'Hello', url: `https://example.com/${urlId}`, urlId, locale: 'en_us', ...fields } };
  const r = tenant === undefined ? await t.api<{ comment: Comment }>('POST', '/api/v1/comments', options) : await apiAs<{ comment: Comment }>(t, tenant, 'POST', '/api/v1/comments', options);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.comment;
}

/** Resolves once no notification job is left: every notification of the comments so far is made and pushed. */
export async function jobsDone(t: TestServer, timeoutMs = 60_000): Promise<void> {
  await eventually(async () => (await t.server.services.store.count(NOTIFY_COLLECTIONS.jobs, {})) === 0, timeoutMs);
}

/** The next event of a channel; notification events are checked against the API's `LiveEvent` schema. */
export async function nextEvent(client: LiveClient): Promise<Record<string, unknown>> {
  const event = (await client.next()) as unknown as Record<string, unknown>;
  if (String(event['type']).startsWith('notification')) assertComponent('LiveEvent', event);
  return event;
}

/**
 * Asserts that nothing but `expected` reached `client` before the barrier: posts a live comment
 * on the page the client listens to and checks that its new-comment is the next event.
 */
export async function nothingBefore(t: TestServer, clients: readonly LiveClient[], urlId: string, tenant?: ProvisionedTenant): Promise<void> {
  // A comment that notifies no one, so it leaves no notification behind.
  const barrier = await comment(t, urlId, { comment: `barrier ${Math.random()}` }, { isLive: true, populateNotifications: false }, tenant);
  for (const client of clients) {
    const event = await nextEvent(client);
    assert.equal(event['type'], 'new-comment', `an unexpected ${String(event['type'])} event came first: ${JSON.stringify(event)}`);
    assert.equal((event['comment'] as { _id: string })._id, barrier._id);
  }
}
