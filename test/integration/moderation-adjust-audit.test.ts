/**
 * Vote adjustment by moderators (`adjust-comment-votes`) and the before/after of moderation
 * actions in the audit log (docs/moderation.md, "Act" and "What every action records").
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ProvisionedTenant } from '../../actors/tenant/provision.js';
import { startTestServer, storages, type TestServer, UNLIMITED_PUBLIC } from '../fixtures/server.js';
import { SmtpSink } from '../fixtures/smtp-sink.js';
import { as, call, ok } from './identity-helpers.js';
import { good, mod, no } from './moderation-helpers.js';
import { signIn } from './oauth-helpers.js';
import { connectLive, LIVE_EVENT_TYPES, nextOf, widget } from './public-comments-helpers.js';

type Json = Record<string, any>;

for (const storage of storages()) {
  describe(`vote adjustment and audited moderation on ${storage}`, () => {
    let t: TestServer;
    let sink: SmtpSink;
    let audited: ProvisionedTenant;
    let moderator: { user: Json; cookie: string };
    before(async () => {
      sink = await SmtpSink.start();
      t = await startTestServer(storage, { smtpUrl: sink.url, mailFrom: 'Site <robot@example.net>', ...UNLIMITED_PUBLIC });
      audited = await t.addTenant({ name: 'Audited moderation', auditing: true });
      moderator = await signIn(t, sink, { isCommentModeratorAdmin: true }, audited);
    });
    after(async () => {
      await t?.destroy();
      await sink.close();
    });

    let n = 0;
    const create = async (urlId: string, fields: Json = {}): Promise<Json> =>
      ok(await call<{ comment: Json }>(t, 'POST', '/api/v1/comments', { ...as(audited), body: { commenterName: `Ann ${++n}`, comment: `Comment ${n}`, url: `https://example.com/${urlId}`, urlId, locale: 'en_us', ...fields } })).comment;
    const auditOf = async (commentId: string, action: string): Promise<Json[]> => {
      const logs = ok(await call<{ auditLogs: Json[] }>(t, 'GET', '/api/v1/audit-logs', as(audited))).auditLogs;
      return logs.filter((l) => l['resourceName'] === 'moderate-comments' && l['targetId'] === commentId && l['targetLabel'] === action);
    };
    const counts = async (id: string) => {
      const c = good(await mod(t, moderator.cookie, 'GET', `/comment/${id}`)).comment;
      return [c.votes, c.votesUp, c.votesDown];
    };

    test('adjusting votes: counts change through the page, live, logged, audited, and kept across a restart', async () => {
      const urlId = 'adjust-page';
      const c = await create(urlId);
      const id = String(c['_id']);
      ok(await call(t, 'POST', '/api/v1/votes', { ...as(audited), query: { commentId: id, direction: 'up', userId: 'a-voter' } }));
      const read = await widget(t, 'GET', `/comments/${audited.tenantId}`, { urlId });
      const live = await connectLive(t, read.body);

      assert.deepEqual(good(await mod(t, moderator.cookie, 'POST', `/adjust-comment-votes/${id}`, {}, { adjustVoteAmount: 5 })), { status: 'success', newCommentVotes: 6 });
      const updated = await nextOf(live, LIVE_EVENT_TYPES.updatedComment);
      assert.equal(updated.comment._id, id);
      assert.equal(updated.comment.votes, 6, 'readers see the new count live');
      assert.deepEqual(await counts(id), [6, 6, 0]);
      assert.equal(good(await mod(t, moderator.cookie, 'POST', `/adjust-comment-votes/${id}`, {}, { adjustVoteAmount: -8 })).newCommentVotes, -2);
      assert.deepEqual(await counts(id), [-2, 1, 3], 'a net adjustment below zero counts as votes down');
      live.close();

      // A real vote after the adjustments, then a restart: counts are recomputed from the votes, with the adjustment kept.
      ok(await call(t, 'POST', '/api/v1/votes', { ...as(audited), query: { commentId: id, direction: 'down', userId: 'b-voter' } }));
      assert.deepEqual(await counts(id), [-3, 1, 4]);
      t = await t.restart();
      assert.deepEqual(await counts(id), [-3, 1, 4], 'kept across a restart');
      const listed = await widget(t, 'GET', `/comments/${audited.tenantId}`, { urlId });
      assert.equal(listed.body.comments[0].votes, -3, 'the public listing shows it');

      const logs = good(await mod(t, moderator.cookie, 'GET', `/logs/${id}`)).logs;
      assert.deepEqual(logs.map((l: Json) => l.actionName), ['votes-adjusted', 'votes-adjusted']);
      assert.match(logs[0].messageHTML, /\+5/);
      const [first] = await auditOf(id, 'votes-adjusted');
      assert.ok(first, 'audited');
      assert.equal(first['userId'], moderator.user['id']);
      const entries = await auditOf(id, 'votes-adjusted');
      assert.deepEqual(entries.map((e) => e['objectDetails'].changes.votes).sort((a, b) => b.from - a.from), [{ from: 6, to: -2 }, { from: 1, to: 6 }]);
    });

    test('adjusting votes refuses who may not, what is malformed, and a locked comment, changing nothing', async () => {
      const c = await create('adjust-refused');
      const id = String(c['_id']);
      no(await mod(t, null, 'POST', `/adjust-comment-votes/${id}`, {}, { adjustVoteAmount: 1 }), 401, 'not-signed-in');
      const plain = await signIn(t, sink, { isAPIAdmin: true }, audited);
      no(await mod(t, plain.cookie, 'POST', `/adjust-comment-votes/${id}`, {}, { adjustVoteAmount: 1 }), 403, 'moderation-forbidden');
      const outsider = await signIn(t, sink, { isCommentModeratorAdmin: true });
      no(await mod(t, outsider.cookie, 'POST', `/adjust-comment-votes/${id}`, {}, { adjustVoteAmount: 1 }), 404, 'not-found', 'another tenant');
      no(await mod(t, moderator.cookie, 'POST', '/adjust-comment-votes/nope', {}, { adjustVoteAmount: 1 }), 404, 'not-found');
      no(await mod(t, moderator.cookie, 'POST', `/adjust-comment-votes/${id}`, {}, {}), 400, 'missing-param');
      no(await mod(t, moderator.cookie, 'POST', `/adjust-comment-votes/${id}`, {}, { adjustVoteAmount: 1.5 }), 400, 'invalid-param');
      no(await mod(t, moderator.cookie, 'POST', `/adjust-comment-votes/${id}`, {}, { adjustVoteAmount: 1e9 }), 400, 'invalid-param');
      ok(await call(t, 'PATCH', `/api/v1/comments/${id}`, { ...as(audited), body: { isLocked: true } }));
      no(await mod(t, moderator.cookie, 'POST', `/adjust-comment-votes/${id}`, {}, { adjustVoteAmount: 1 }), 423, 'locked');
      assert.deepEqual(await counts(id), [0, 0, 0]);
      assert.deepEqual(good(await mod(t, moderator.cookie, 'GET', `/logs/${id}`)).logs, []);
    });

    test('approving, editing the text and marking spam are audited with each changed field before and after', async () => {
      const c = await create('audit-fields', { approved: false, comment: 'The old text' });
      const id = String(c['_id']);
      good(await mod(t, moderator.cookie, 'POST', `/set-comment-approval-status/${id}`, { approved: true }));
      good(await mod(t, moderator.cookie, 'POST', `/set-comment-text/${id}`, {}, { comment: 'The new text' }));
      good(await mod(t, moderator.cookie, 'POST', `/set-comment-spam-status/${id}`, { spam: true }));

      const [approved] = await auditOf(id, 'approved');
      assert.deepEqual(approved?.['objectDetails'].changes.approved, { from: false, to: true });
      assert.deepEqual(approved?.['objectDetails'].changes.reviewed, { from: false, to: true });
      assert.equal(approved?.['objectDetails'].changes.comment, undefined, 'only what changed');
      const [edited] = await auditOf(id, 'edited');
      assert.deepEqual(edited?.['objectDetails'].changes.comment, { from: 'The old text', to: 'The new text' });
      assert.match(String(edited?.['objectDetails'].changes.commentHTML.to), /The new text/);
      const [spam] = await auditOf(id, 'marked-spam');
      assert.deepEqual(spam?.['objectDetails'].changes.isSpam, { from: false, to: true });
      assert.equal(spam?.['crudType'], 'u');
    });
  });
}
