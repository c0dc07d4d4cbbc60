/** Fills a tenant with data of every kind through its API, and finds what storage still holds of a tenant. */
import assert from 'node:assert/strict';
import type { ProvisionedTenant } from '../../actors/tenant/provision.js';
import { COLLECTIONS } from '../../storage/collections.js';
import type { Store } from '../../storage/store.js';
import type { TestServer } from '../fixtures/server.js';
import { as, ok } from './identity-helpers.js';

type Json = Record<string, unknown>;

/**
 * Comments (with a reply, a poll, a hashtag and a commenter made from an email), votes, a
 * flag, a block, a poll vote, a page record, widget and domain configurations, an SSO user, a
 * tenant user, a moderator, a like and reaction from the widget (event log entries), a webhook
 * subscription with the pending events of the comments (its receiver refuses connections; the server must allow private webhook addresses),
 * a question with a result tied to a comment, and the usage all of it charged.
 */
export async function fillTenant(t: TestServer, tenant: ProvisionedTenant, sso: (user: Json) => string): Promise<void> {
  const me = as(tenant);
  ok(await t.api('POST', '/api/v1/webhooks', { ...me, body: { url: 'http://127.0.0.1:9/hook', event: 'comment-created' } }));
  ok(await t.api('POST', '/api/v1/sso-users', { ...me, body: { id: 'api-user', username: 'apiuser', email: `api-${tenant.tenantId}@example.com` } }));
  const comment = (body: Json) =>
    t.api<{ comment: Json }>('POST', '/api/v1/comments', { ...me, query: { isLive: true }, body: { commenterName: 'Ann', comment: 'Hello #news', url: 'https://example.com/a', urlId: 'page-a', locale: 'en_us', ...body } });
  const root = ok(await comment({ commenterEmail: 'ann@example.com', poll: { question: 'Q?', options: [{ label: 'Yes' }, { label: 'No' }] } })).comment;
  const rootId = root['_id'] as string;
  ok(await comment({ parentId: rootId, commenterName: 'Bob', userId: 'sso-x' }));
  ok(await t.api('POST', '/api/v1/votes', { ...me, query: { commentId: rootId, direction: 'up', userId: 'voter-1' } }));
  ok(await t.api('POST', `/api/v1/comments/${rootId}/flag`, { ...me, query: { userId: 'flagger' } }));
  ok(await t.api('POST', `/api/v1/comments/${rootId}/block`, { ...me, query: { userId: 'blocker' }, body: {} }));
  const poll = root['poll'] as { options: { id: string }[] };
  ok(await t.api('POST', '/api/v1/poll-votes', { ...me, body: { commentId: rootId, optionId: poll.options[0]!.id, userId: `${tenant.tenantId}:api-user` } }));
  ok(await t.api('POST', '/api/v1/pages', { ...me, body: { urlId: 'page-b', title: 'B', url: 'https://example.com/b' } }));
  ok(await t.api('PUT', '/api/v1/widget-config', { ...me, body: { allowAnon: true } }));
  ok(await t.api('PUT', '/api/v1/widget-config', { ...me, query: { urlId: 'page-a' }, body: { readonly: false } }));
  ok(await t.api('POST', '/api/v1/domain-configs', { ...me, body: { domain: `${tenant.tenantId.slice(-6)}.example.org` } }));
  const like = await fetch(`${t.url}/page-reacts/v1/likes/${tenant.tenantId}?urlId=page-a&sso=${encodeURIComponent(sso({ id: 'liker', username: 'liker' }))}`, { method: 'POST' });
  assert.equal(like.status, 200, await like.text());
  const react = await fetch(`${t.url}/page-reacts/v2/${tenant.tenantId}?urlId=page-a&id=heart`, { method: 'POST' });
  assert.equal(react.status, 200, await react.text());
  const question = ok(await t.api<{ questionConfig: Json }>('POST', '/api/v1/question-configs', { ...me, body: { name: 'Q', question: 'Q?', type: 'nps', reportingOrder: 0 } })).questionConfig;
  ok(await t.api('POST', '/api/v1/question-results', { ...me, body: { urlId: 'page-a', questionId: question['_id'], value: 9, commentId: rootId } }));
}

/** Every stored document, in every collection, that holds this id anywhere in it. */
export async function documentsMentioning(store: Store, id: string): Promise<string[]> {
  const found: string[] = [];
  for (const { name } of COLLECTIONS) {
    for (const doc of await store.find(name, {})) if (JSON.stringify(doc).includes(id)) found.push(`${name}/${doc._id}`);
  }
  return found;
}
