/** Wire-shape calls of the widget API's comment operations (openapi-shapes.test.ts runs them). */
import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import type { ApiResponse, TestServer } from '../fixtures/server.js';

function ok<T>(r: ApiResponse<T>, what: string): T {
  assert.equal(r.status, 200, `${what}: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Calls each comment operation of the widget API once with valid input (answers validated by `t.api`). */
export async function callPublicCommentOperations(t: TestServer): Promise<void> {
  const tenantId = t.tenant.tenantId;
  const urlId = '/public-shapes';
  const pub = { auth: 'none' as const, headers: { origin: 'https://blog.example' } };
  const timestamp = Date.now();
  const data = Buffer.from(JSON.stringify({ id: 'shapes-admin', email: 'admin@shapes.example', username: 'shapes-admin', isAdmin: true })).toString('base64');
  const admin = JSON.stringify({ userDataJSONBase64: data, verificationHash: createHmac('sha256', t.tenant.apiSecret).update(`${timestamp}${data}`).digest('hex'), timestamp });
  const body = (comment: string, parentId: string | null = null) => ({ commenterName: 'Shaper', commenterEmail: 'shaper@shapes.example', comment, url: 'https://blog.example/public-shapes', urlId, pageTitle: 'Shapes', parentId });

  type Posted = { comment: { _id: string; editKey: string }; user: { sessionId: string } };
  const root = ok(await t.api<Posted>('POST', `/comments/${tenantId}`, { ...pub, query: { urlId, broadcastId: randomUUID() }, body: body('Root #shapes') }), 'public post');
  const session = root.user.sessionId;
  const reply = ok(await t.api<Posted>('POST', `/comments/${tenantId}`, { ...pub, query: { urlId, broadcastId: randomUUID(), sessionId: session }, body: body('Reply', root.comment._id) }), 'public reply');
  const vote = ok(
    await t.api<{ voteId: string }>('POST', `/comments/${tenantId}/${reply.comment._id}/vote`, {
      ...pub,
      query: { urlId, broadcastId: randomUUID(), sessionId: session },
      body: { voteDir: 'up', url: null, commenterName: null, commenterEmail: null },
    }),
    'public vote',
  );
  ok(await t.api('GET', `/comments/${tenantId}`, { ...pub, query: { urlId, includeConfig: true, includeNotificationCount: true, countAll: true } }), 'anonymous read');
  ok(await t.api('GET', `/comments/${tenantId}`, { ...pub, query: { urlId, sessionId: session, asTree: true, countChildren: true, maxTreeDepth: 2 } }), 'personal tree read');
  ok(await t.api('GET', `/comments/${tenantId}`, { ...pub, query: { urlId, sso: admin, includeNotificationCount: true } }), 'admin read');
  ok(await t.api('GET', `/comments/${tenantId}/${root.comment._id}/text`, { ...pub, query: { editKey: root.comment.editKey } }), 'text');
  ok(await t.api('POST', `/comments/${tenantId}/${root.comment._id}/update-text`, { ...pub, query: { editKey: root.comment.editKey, broadcastId: randomUUID() }, body: { comment: 'Root, edited' } }), 'update text');
  ok(await t.api('GET', `/comments/${tenantId}/${reply.comment._id}/votes`, { ...pub, query: { dir: 1 } }), 'vote names');
  ok(await t.api('POST', `/flag-comment/${reply.comment._id}`, { ...pub, query: { tenantId, isFlagged: true, sessionId: session } }), 'flag');
  ok(await t.api('POST', `/block-from-comment/${root.comment._id}`, { ...pub, query: { tenantId, sso: admin }, body: { commentIds: [root.comment._id, reply.comment._id] } }), 'block');
  ok(await t.api('GET', '/check-blocked-comments', { ...pub, query: { tenantId, sso: admin, commentIds: `${root.comment._id},${reply.comment._id}` } }), 'check blocked');
  ok(await t.api('DELETE', `/block-from-comment/${root.comment._id}`, { ...pub, query: { tenantId, sso: admin }, body: { commentIds: [root.comment._id] } }), 'unblock');
  for (const action of ['pin', 'unpin', 'lock', 'unlock']) {
    ok(await t.api('POST', `/comments/${tenantId}/${root.comment._id}/${action}`, { ...pub, query: { sso: admin, broadcastId: randomUUID() } }), action);
  }
  ok(await t.api('DELETE', `/comments/${tenantId}/${reply.comment._id}/vote/${vote.voteId}`, { ...pub, query: { urlId, broadcastId: randomUUID(), sessionId: session } }), 'un-vote');
  ok(await t.api('DELETE', `/comments/${tenantId}/${root.comment._id}`, { ...pub, query: { editKey: root.comment.editKey, broadcastId: randomUUID() } }), 'delete with replies');
  ok(await t.api('DELETE', `/comments/${tenantId}/${reply.comment._id}`, { ...pub, query: { editKey: reply.comment.editKey, broadcastId: randomUUID() } }), 'delete');
}
