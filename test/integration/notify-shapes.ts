/**
 * Calls of every notification and subscription operation with valid input, for the OpenAPI
 * wire-shape test: a subscriber and a reply give a user notifications of both kinds, which are
 * listed, counted, changed and cleared; `t.api` validates each answer. Only known users are
 * notified, so the reader and the writer are SSO users of the tenant.
 */
import assert from 'node:assert/strict';
import { eventually } from '../fixtures/eventually.js';
import type { TestServer } from '../fixtures/server.js';

function ok<T>(r: { status: number; body: T }, what: string): T {
  assert.equal(r.status, 200, `${what}: ${JSON.stringify(r.body)}`);
  return r.body;
}

export async function callNotifyOperations(t: TestServer): Promise<void> {
  const urlId = '/notify-shapes';
  const user = async (name: string): Promise<string> => {
    ok(await t.api('POST', '/api/v1/sso-users', { body: { id: `notify-${name}`, username: `notify-${name}`, email: `notify-${name}@shapes.example` } }), `add ${name}`);
    return `${t.tenant.tenantId}:notify-${name}`;
  };
  const reader = await user('reader');
  const writer = await user('writer');
  const page = { url: 'https://blog.example/notify-shapes', urlId, locale: 'en_us' };
  const sub = ok(
    await t.api<{ subscription: { id: string } }>('POST', '/api/v1/subscriptions', { body: { urlId, userId: reader, url: page.url, pageTitle: 'Notify shapes', notificationFrequency: 1 } }),
    'subscribe',
  ).subscription;
  ok(await t.api('GET', '/api/v1/subscriptions', { query: { userId: reader } }), 'subscriptions');
  ok(await t.api('GET', `/api/v1/subscriptions/${sub.id}`), 'one subscription');
  ok(await t.api('PATCH', `/api/v1/subscriptions/${sub.id}`, { body: { notificationFrequency: 0 } }), 'change its frequency');

  const root = ok(await t.api<{ comment: { _id: string } }>('POST', '/api/v1/comments', { body: { ...page, commenterName: 'Writer', userId: writer, comment: 'news' } }), 'a new root').comment;
  ok(await t.api('POST', '/api/v1/comments', { body: { ...page, commenterName: 'Reader', userId: reader, comment: 'a reply', parentId: root._id } }), 'a reply');
  type Listed = { notifications: { _id: string; type: number }[] };
  let listed: Listed['notifications'] = [];
  await eventually(async () => {
    const readerList = ok(await t.api<Listed>('GET', '/api/v1/notifications', { query: { userId: reader } }), 'notifications').notifications;
    const writerList = ok(await t.api<Listed>('GET', '/api/v1/notifications', { query: { userId: writer, urlId, type: 0 } }), 'filtered notifications').notifications;
    listed = [...readerList, ...writerList];
    return readerList.length === 1 && writerList.length === 1;
  }, 60_000);
  ok(await t.api('GET', '/api/v1/notifications/count', { query: { userId: reader, viewed: false } }), 'notification count');
  ok(await t.api('GET', `/api/v1/notification-count/${encodeURIComponent(writer)}`), 'unread count');
  for (const { _id } of listed) ok(await t.api('PATCH', `/api/v1/notifications/${_id}`, { body: { viewed: true, optedOut: false } }), 'mark viewed');
  ok(await t.api('DELETE', `/api/v1/notification-count/${encodeURIComponent(reader)}`), 'clear the count');
  ok(await t.api('DELETE', `/api/v1/subscriptions/${sub.id}`), 'unsubscribe');
}
