/**
 * Private data never reaches a public output. Every write that publishes is made with canary
 * values in every private field (an email, a user id, an anonymous id, meta, moderation
 * groups); then everything a widget can read (the `/sub` channel, the event log, the public
 * reaction and poll-vote routes) is searched for them.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { clock } from '../../engine/clock.js';
import { startTestServer, storages, type TestServer, withQuery } from '../fixtures/server.js';
import { subscribe } from '../unit/live/fixtures.js';
import { checkedFetch } from '../fixtures/openapi.js';
import { postComment } from './page-helpers.js';

const CANARY = {
  email: 'canary-email-7f3a@example.com',
  userId: 'canary-user-7f3a',
  anonUserId: 'canary-anon-7f3a',
  meta: 'canary-meta-7f3a',
  group: 'canary-group-7f3a',
  ssoEmail: 'canary-sso-7f3a@example.com',
} as const;

function secureSso(secret: string, user: Record<string, unknown>): string {
  const data = Buffer.from(JSON.stringify(user)).toString('base64');
  const timestamp = clock.now();
  const verificationHash = createHmac('sha256', secret).update(`${timestamp}${data}`).digest('hex');
  return JSON.stringify({ userDataJSONBase64: data, verificationHash, timestamp });
}

function assertClean(where: string, text: string): void {
  for (const [name, value] of Object.entries(CANARY)) assert.ok(!text.includes(value), `${where} carries the ${name} canary: ${text.slice(0, 500)}`);
}

for (const storage of storages()) {
  describe(`no private data on public outputs on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage);
    });
    after(async () => {
      await t.destroy();
    });

    test('comments, votes, flags, reactions and polls with canaries in every private field', async () => {
      const { tenantId, apiSecret } = t.tenant;
      const urlId = '/canary';
      const client = await subscribe(t, tenantId, urlId);
      const withUser = await subscribe(t, tenantId, urlId, CANARY.userId);
      const start = clock.now();
      const canaryFields = {
        commenterEmail: CANARY.email,
        userId: CANARY.userId,
        meta: { note: CANARY.meta },
        moderationGroupIds: [CANARY.group],
      };
      const poll = { question: 'Q?', options: [{ label: 'a' }, { label: 'b' }], privacy: 2 };
      const root = await postComment(t, urlId, { ...canaryFields, poll }, { isLive: true });
      const reply = await postComment(t, urlId, { ...canaryFields, userId: null, parentId: root._id }, { isLive: true });
      const patched = await t.api('PATCH', `/api/v1/comments/${reply._id}`, { query: { isLive: true }, body: { comment: 'edited', meta: { again: CANARY.meta } } });
      assert.equal(patched.status, 200);
      for (const by of [{ anonUserId: CANARY.anonUserId }, { userId: CANARY.userId }]) {
        const vote = await t.api('POST', '/api/v1/votes', { query: { commentId: root._id, direction: 'up', ...by } });
        assert.equal(vote.status, 200, JSON.stringify(vote.body));
      }
      assert.equal((await t.api('POST', '/api/v1/votes', { query: { commentId: root._id, direction: 'down', anonUserId: CANARY.anonUserId } })).status, 200);
      assert.equal((await t.api('POST', `/api/v1/comments/${root._id}/flag`, { query: { anonUserId: CANARY.anonUserId } })).status, 200);
      const options = (root['poll'] as { options: { id: string }[] }).options;
      assert.equal((await t.api('POST', '/api/v1/poll-votes', { body: { commentId: root._id, optionId: options[0]!.id, anonUserId: CANARY.anonUserId, ip: '203.0.113.9' } })).status, 200);
      const sso = secureSso(apiSecret, { id: 'reader-1', username: 'reader', email: CANARY.ssoEmail, isProfileActivityPrivate: false });
      const likes = withQuery(`${t.url}/page-reacts/v1/likes/${tenantId}`, { urlId, sso });
      assert.equal((await checkedFetch(likes, { method: 'POST' })).status, 200);
      const reacts = withQuery(`${t.url}/page-reacts/v2/${tenantId}`, { urlId, sso, id: 'heart' });
      assert.equal((await checkedFetch(reacts, { method: 'POST' })).status, 200);
      assert.equal((await t.api('DELETE', `/api/v1/comments/${reply._id}`, { query: { isLive: true } })).status, 200);

      // new-comment ×2, updated-comment, votes (new, new, deleted+new), poll-update, page-react ×2, deleted-comment.
      const messages = await client.take(10);
      for (const text of messages) assertClean('/sub', text);
      for (const text of await withUser.take(10)) assertClean('/sub (with a user id)', text);
      client.close();
      withUser.close();

      const log = await checkedFetch(withQuery(`${t.url}/event-log/${tenantId}`, { urlId, startTime: String(start - 1000) }));
      const logText = await log.text();
      assert.equal(log.status, 200);
      assert.ok((JSON.parse(logText) as { events: unknown[] }).events.length >= 10, logText.slice(0, 300));
      assertClean('the event log', logText);

      for (const url of [
        withQuery(`${t.url}/page-reacts/v1/likes/${tenantId}`, { urlId, includeUserInfo: 'public' }),
        withQuery(`${t.url}/page-reacts/v2/${tenantId}`, { urlId, includeUserInfo: 'public' }),
        withQuery(`${t.url}/page-reacts/v2/${tenantId}/list`, { urlId, id: 'heart' }),
        withQuery(`${t.url}/poll-votes/v1/${tenantId}`, { commentId: root._id }),
      ]) {
        const r = await checkedFetch(url);
        const text = await r.text();
        assert.equal(r.status, 200, `${url}: ${text}`);
        assertClean(url, text);
      }
      // The API (with a key) still has everything.
      const api = await t.api<{ comment: Record<string, unknown> }>('GET', `/api/v1/comments/${root._id}`);
      assert.equal(api.body.comment['commenterEmail'], CANARY.email);
    });
  });
}
