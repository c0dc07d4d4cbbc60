/**
 * Calls of every reader-facing public operation (account, activity, search, presence, pages,
 * translations, uploads, logout) with valid input, for the OpenAPI wire-shape test; `t.api`
 * (and `checkedFetch` for the multipart upload) validates each answer. The tenant already
 * admits the widget's site (blog.example).
 */
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { eventually } from '../fixtures/eventually.js';
import { checkedFetch } from '../fixtures/openapi.js';
import type { TestServer } from '../fixtures/server.js';
import { LiveClient, subUrl } from '../unit/live/fixtures.js';
import { commentAs, ok, pub, secureSso, SITE, ssoUserOf } from './reader-helpers.js';

export async function callReaderOperations(t: TestServer): Promise<void> {
  const tenantId = t.tenant.tenantId;
  const urlId = '/reader-shapes';
  const ann = await ssoUserOf(t, 'shape-ann', { displayName: 'Shape Ann', isProfileActivityPrivate: false, avatarSrc: 'https://blog.example/ann.png' });
  const bob = await ssoUserOf(t, 'shape-bob');
  const sso = secureSso(t, { id: 'shape-ann', username: 'shape-ann', email: 'shape-ann@readers.example' });
  const root = await commentAs(t, ann, urlId, 'a root');
  await commentAs(t, bob, urlId, 'a reply', root);
  type Listed = { notifications: { _id: string; relatedObjectId: string }[] };
  let listed: Listed['notifications'] = [];
  await eventually(async () => {
    listed = (ok(await pub(t, 'GET', '/user-notifications', { query: { tenantId, sso, urlId, includeTranslations: true, locale: 'ar' } }), 'notifications') as unknown as Listed).notifications;
    return listed.length === 1;
  }, 60_000);
  const note = listed[0]!;
  ok(await pub(t, 'GET', '/user-notifications/get-count', { query: { tenantId, sso } }), 'count');
  ok(await pub(t, 'POST', `/user-notifications/${note._id}/mark/read`, { query: { tenantId, sso } }), 'mark read');
  ok(await pub(t, 'POST', `/user-notifications/${note._id}/mark-opted/out`, { query: { tenantId, sso, commentId: note.relatedObjectId } }), 'opt out');
  ok(await pub(t, 'POST', '/user-notifications/set-subscription-state/subscribe', { query: { tenantId, sso, urlId, url: `${SITE}${urlId}`, pageTitle: '' } }), 'subscribe');
  ok(await pub(t, 'POST', '/user-notifications/reset', { query: { tenantId, sso } }), 'reset');
  ok(await pub(t, 'POST', '/user-notifications/reset-count', { query: { tenantId, sso } }), 'reset count');

  ok(await pub(t, 'GET', '/comments-for-user', { query: { userId: ann } }), 'activity');
  ok(await pub(t, 'GET', `/user-search/${tenantId}`, { query: { urlId, usernameStartsWith: 'shape' } }), 'user search');
  ok(await pub(t, 'GET', `/pages/${tenantId}`, { query: { sortBy: 'title' } }), 'public pages');
  ok(await pub(t, 'GET', '/translations/widgets/comment-ui', { query: { locale: 'de_de', useFullTranslationIds: true } }), 'translations');

  const ids = t.server.services.liveIds;
  const userIdWS = ids.userIdWS(tenantId, ann);
  ok(await pub(t, 'GET', `/event-log/global/${tenantId}`, { query: { urlId: `__internal_profiles:${userIdWS}`, userIdWS, startTime: 0 } }), 'global log');
  const socket = await LiveClient.connect(subUrl(t, { tenantIdWS: ids.tenantIdWS(tenantId), urlId: ids.urlIdWS(tenantId, urlId), userIdWS }), { origin: SITE });
  await eventually(async () => t.server.services.presence.isOn(tenantId, urlId, ann), 30_000);
  ok(await pub(t, 'GET', '/user-presence-status', { query: { tenantId, urlIdWS: ids.urlIdWS(tenantId, urlId), userIds: `${ann},${bob}` } }), 'presence');
  ok(await pub(t, 'GET', `/pages/${tenantId}/users/online`, { query: { urlId } }), 'online');
  ok(await pub(t, 'GET', `/pages/${tenantId}/users/offline`, { query: { urlId } }), 'offline');
  ok(await pub(t, 'GET', `/pages/${tenantId}/users/info`, { query: { ids: `${ann},${bob}` } }), 'info');
  socket.close();

  const form = new FormData();
  const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#336699' } }).png().toBuffer();
  form.set('file', new Blob([png], { type: 'image/png' }), 'a.png');
  const upload = await checkedFetch(`${t.url}/upload-image/${tenantId}?sizePreset=Default&urlId=${encodeURIComponent(urlId)}`, { method: 'POST', body: form, headers: { origin: SITE } });
  assert.equal(upload.status, 200, await upload.clone().text());
  ok(await t.api('PUT', '/auth/logout', { auth: 'none', headers: { origin: SITE } }), 'logout');
}
