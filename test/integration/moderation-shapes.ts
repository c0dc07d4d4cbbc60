/**
 * Calls of every implemented moderation operation with valid input, for the OpenAPI wire-shape
 * test (`t.api` validates each success answer). The moderator is a secure SSO administrator.
 */
import assert from 'node:assert/strict';
import { eventually } from '../fixtures/eventually.js';
import type { TestServer } from '../fixtures/server.js';
import { postComment } from './page-helpers.js';
import { secureSso } from './public-comments-helpers.js';
import { MOD } from './moderation-helpers.js';

type Json = Record<string, any>;

export async function callModerationOperations(t: TestServer): Promise<void> {
  const tenantId = t.tenant.tenantId;
  const sso = secureSso(t.tenant.apiSecret, { id: 'shape-mod', email: 'shape-mod@example.com', username: 'shape-mod', isAdmin: true });
  const call = async (method: string, path: string, query: Record<string, string | number | boolean> = {}, body?: unknown): Promise<Json> => {
    const res = await t.api<Json>(method, `${MOD}${path}`, { auth: 'none', query: { tenantId, sso, ...query }, ...(body === undefined ? {} : { body }) });
    assert.equal(res.status, 200, `${method} ${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const urlId = '/moderation-shapes';
  const root = await postComment(t, urlId, { comment: 'Moderate me', commenterEmail: 'shape@example.com', commenterName: 'Shape Author' });
  const reply = await postComment(t, urlId, { comment: 'A reply', parentId: root._id, commenterName: 'Shape Replier' });
  const filters = JSON.stringify({ urlId });
  await call('GET', '/api/comments', { filters, 'text-search': 'moderate' });
  await call('GET', '/api/ids', { filters });
  await call('GET', '/count', { filter: filters });
  await call('GET', `/comment/${root._id}`);
  await call('GET', `/comment/${root._id}`, { includeIP: true, includeEmail: true });
  await call('POST', `/adjust-comment-votes/${root._id}`, {}, { adjustVoteAmount: 3 });
  await call('GET', '/api/comments', { byIPFromComment: root._id });
  await call('POST', '/comments-by-ids', {}, { ids: [root._id] });
  await call('GET', `/comment-children/${root._id}`);
  await call('GET', `/get-comment-text/${root._id}`);
  await call('POST', `/set-comment-text/${reply._id}`, {}, { comment: 'An edited reply' });
  await call('POST', `/set-comment-approval-status/${root._id}`, { approved: true });
  await call('POST', `/set-comment-review-status/${root._id}`, { reviewed: true });
  await call('POST', `/set-comment-spam-status/${root._id}`, { spam: false, permNotSpam: true });
  await call('POST', `/flag-comment/${root._id}`);
  await call('POST', `/un-flag-comment/${root._id}`);
  await call('POST', `/remove-comment/${reply._id}`);
  await call('POST', `/restore-deleted-comment/${reply._id}`);
  await call('GET', `/logs/${root._id}`);
  await call('PUT', '/close-thread', { urlId });
  await call('PUT', '/reopen-thread', { urlId });
  await call('GET', `/pre-ban-summary/${root._id}`);
  await call('POST', '/bulk-pre-ban-summary', {}, { commentIds: [root._id] });
  await call('POST', '/bulk-pre-ban-summary', { includeByIP: true }, { commentIds: [root._id] });
  await call('GET', `/pre-ban-summary/${root._id}`, { includeByIP: true });
  await call('GET', `/get-comment-ban-status/${root._id}`);
  const banned = await call('POST', `/ban-user/from-comment/${root._id}`, { banEmail: true, banReason: 'shapes' });
  await call('GET', `/ban-users/from-comment/${root._id}`);
  await call('GET', '/banned-users/counts');
  await call('GET', '/user-ban-preference');
  await call('POST', '/ban-user/undo', {}, { changelog: banned['changelog'] });
  await call('PUT', '/set-trust-factor', { userId: 'someone', trustFactor: '70' });
  await call('GET', '/get-trust-factor', { userId: 'someone' });
  await call('GET', '/get-user-internal-profile', { commentId: root._id });
  const badge = await t.api<Json>('POST', '/api/v1/tenant-badges', { body: { type: 4, name: 'Shapes', description: 'By hand', displayLabel: 'Shapes' } });
  assert.equal(badge.status, 200, JSON.stringify(badge.body));
  const badgeId = String(badge.body['tenantBadge']['_id'] ?? badge.body['tenantBadge']['id']);
  const shapeUser = `${tenantId}:shape-badged`;
  assert.equal((await t.api('POST', '/api/v1/sso-users', { body: { id: 'shape-badged', username: 'shape-badged', email: 'shape-badged@example.com' } })).status, 200);
  await call('GET', '/get-manual-badges');
  await call('PUT', '/award-badge', { badgeId, userId: shapeUser });
  await call('GET', '/get-manual-badges-for-user', { badgesUserId: shapeUser });
  await call('PUT', '/remove-badge', { badgeId, userId: shapeUser });
  const vote = await call('POST', `/vote/${root._id}`, { direction: 'down' });
  await call('DELETE', `/vote/${root._id}/${String(vote['voteId'])}`);
  await call('GET', '/search/users', { value: 'shape' });
  await call('GET', '/search/pages', { value: '/moderation' });
  await call('GET', '/search/sites', { value: 'example' });
  await call('GET', '/search/comments/summary', { value: 'moderate' });
  await call('GET', '/search/suggest', { 'text-search': 'shape' });
  const { batchJobId } = await call('POST', '/api/export', { filters });
  await eventually(async () => (await call('GET', '/api/export/status', { batchJobId }))['jobStatus'] === 'done', 60_000);
}
