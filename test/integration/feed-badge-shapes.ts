/**
 * Calls to the feed post and badge operations of the OpenAPI, for the wire-shape test: each
 * success answer is validated by the test client against its 200 schema.
 */
import assert from 'node:assert/strict';
import type { ApiResponse, TestServer } from '../fixtures/server.js';
import { eventually } from '../fixtures/eventually.js';
import { pub, secureSso } from './feed-helpers.js';

function ok<T>(r: ApiResponse<T>, what: string): T {
  assert.equal(r.status, 200, `${what}: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Every feed post operation (management and public). */
export async function callFeedOperations(t: TestServer): Promise<void> {
  const tenantId = t.tenant.tenantId;
  ok(await t.api('POST', '/api/v1/sso-users', { body: { id: 'feed-author', username: 'feed-author', email: 'feed-author@shapes.example', displayName: 'Author' } }), 'author');
  const post = ok(
    await t.api<{ feedPost: { _id: string } }>('POST', '/api/v1/feed-posts', {
      query: { isLive: true },
      body: {
        fromUserId: 'feed-author',
        title: 'Shapes',
        contentHTML: '<b>hi</b>',
        media: [{ title: 'm', linkUrl: 'https://blog.example/m', sizes: [{ w: 1, h: 2, src: '/m.png' }] }],
        links: [{ text: 't', title: 'T', description: 'D', url: 'https://blog.example/l' }],
        tags: ['shapes'],
        meta: { a: 'b' },
      },
    }),
    'create post',
  ).feedPost;
  ok(await t.api('GET', '/api/v1/feed-posts', { query: { limit: 5, tags: ['shapes'] } }), 'list posts');
  ok(await t.api('PATCH', `/api/v1/feed-posts/${post._id}`, { body: { title: 'Shapes 2' } }), 'patch post');

  const sso = secureSso(t.tenant.apiSecret, { id: 'feed-reader', username: 'reader', email: 'feed-reader@shapes.example' });
  const mine = ok(await pub<{ feedPost: { _id: string } }>(t, 'POST', `/feed-posts/${tenantId}`, { query: { sso }, body: { title: 'Mine', tags: ['x'] } }), 'public create').feedPost;
  ok(await pub(t, 'PUT', `/feed-posts/${tenantId}/${mine._id}`, { query: { sso }, body: { title: 'Mine 2' } }), 'public update');
  ok(await pub(t, 'POST', `/feed-posts/${tenantId}/react/${post._id}`, { query: { sso }, body: { reactType: 'heart' } }), 'react');
  ok(await pub(t, 'GET', `/feed-posts/${tenantId}`, { query: { sso, includeUserInfo: true } }), 'public list');
  ok(await pub(t, 'GET', `/feed-posts/${tenantId}/user-reacts`, { query: { sso, postIds: [post._id] } }), 'user reacts');
  ok(await pub(t, 'GET', `/feed-posts/${tenantId}/stats`, { query: { postIds: [post._id, mine._id] } }), 'stats');
  ok(await pub(t, 'POST', `/feed-posts/${tenantId}/react/${post._id}`, { query: { sso, isUndo: true }, body: { reactType: 'heart' } }), 'un-react');
  ok(await pub(t, 'DELETE', `/feed-posts/${tenantId}/${mine._id}`, { query: { sso } }), 'public delete');
}

/** Every user badge and badge progress operation. */
export async function callBadgeOperations(t: TestServer): Promise<void> {
  const auto = ok(await t.api<{ tenantBadge: { _id: string } }>('POST', '/api/v1/tenant-badges', { body: { type: 0, threshold: 1, name: 'First', displayLabel: 'First', textColor: '#000' } }), 'catalog').tenantBadge;
  const manual = ok(await t.api<{ tenantBadge: { _id: string } }>('POST', '/api/v1/tenant-badges', { body: { type: 4, name: 'Chosen', description: 'By hand' } }), 'catalog').tenantBadge;
  ok(await t.api('POST', '/api/v1/comments', { body: { commenterName: 'Bea', userId: 'badge-user', comment: 'a first comment', url: 'https://blog.example/badges', urlId: '/badges', locale: 'en' } }), 'comment');
  await eventually(async () => (await t.api<{ userBadges: unknown[] }>('GET', '/api/v1/user-badges', { query: { userId: 'badge-user', badgeId: auto._id } })).body.userBadges.length === 1, 30_000);
  const given = ok(await t.api<{ userBadge: { _id: string } }>('POST', '/api/v1/user-badges', { body: { userId: 'badge-user', badgeId: manual._id, displayedOnComments: true } }), 'award').userBadge;
  ok(await t.api('GET', '/api/v1/user-badges', { query: { userId: 'badge-user', type: 4, displayedOnComments: true, limit: 10, skip: 0 } }), 'list');
  ok(await t.api('GET', `/api/v1/user-badges/${given._id}`), 'get');
  ok(await t.api('PUT', `/api/v1/user-badges/${given._id}`, { body: { displayedOnComments: false } }), 'put');
  const progress = ok(await t.api<{ userBadgeProgress: { _id: string } }>('GET', '/api/v1/user-badge-progress/user/badge-user'), 'progress by user').userBadgeProgress;
  ok(await t.api('GET', `/api/v1/user-badge-progress/${progress._id}`), 'progress by id');
  ok(await t.api('GET', '/api/v1/user-badge-progress', { query: { limit: 5 } }), 'progress list');
  ok(await t.api('DELETE', `/api/v1/user-badges/${given._id}`), 'delete');
}
