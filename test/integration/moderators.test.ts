import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { clock } from '../../engine/clock.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { type Received, SmtpSink } from '../fixtures/smtp-sink.js';
import { as, call, linkIn, ok, refused } from './identity-helpers.js';
import { postComment } from './page-helpers.js';

type Json = Record<string, unknown>;

const to = (address: string) => (r: Received) => r.rcptTo.includes(address);

for (const storage of storages()) {
  describe(`moderators on ${storage}`, () => {
    let t: TestServer;
    let sink: SmtpSink;
    before(async () => {
      sink = await SmtpSink.start();
      t = await startTestServer(storage, { smtpUrl: sink.url, mailFrom: 'Site <robot@example.net>' });
    });
    after(async () => {
      await t?.destroy();
      await sink.close();
    });

    test('create, read, list, patch, delete, with every refusal', async () => {
      const created = ok(await call<{ moderator: Json }>(t, 'POST', '/api/v1/moderators', { body: { name: 'Mia', email: 'Mia@Example.com' } })).moderator;
      assert.equal(created['email'], 'mia@example.com');
      assert.equal(created['acceptedInvite'], false);
      assert.equal(created['approvedCount'], 0);
      assert.equal(created['inviteHash'], undefined);
      refused(await t.api('POST', '/api/v1/moderators', { body: { email: 'x@example.com' } }), 400, 'name-required');
      refused(await t.api('POST', '/api/v1/moderators', { body: { name: 'X' } }), 400, 'email-required');
      refused(await t.api('POST', '/api/v1/moderators', { body: { name: 'X', email: 'bad' } }), 400, 'invalid-email');
      for (const field of ['approvedCount', 'deletedCount', 'markReviewedCount', 'markedSpamCount', 'editedCount', 'bannedCount', 'acceptedInvite', 'verificationId', 'createdAt']) {
        refused(await t.api('POST', '/api/v1/moderators', { body: { name: 'X', email: 'x@example.com', [field]: field === 'acceptedInvite' ? true : field === 'verificationId' || field === 'createdAt' ? 'v' : 3 } }), 400, 'unexpected-param', field);
      }
      refused(await t.api('POST', '/api/v1/moderators', { body: { name: 'X', email: 'x@example.com', nope: 1 } }), 400, 'unexpected-param');
      refused(await t.api('POST', '/api/v1/moderators', { body: { name: 'X', email: 'MIA@example.com' } }), 409, 'moderator-email-taken');
      refused(await t.api('POST', '/api/v1/moderators', { body: { name: 'X', email: 'x@example.com', userId: 'nobody' } }), 400, 'invalid-user');
      ok(await call(t, 'POST', '/api/v1/sso-users', { body: { id: 'modsso', username: 'modsso', email: 'modsso@example.com' } }));
      const withUser = ok(await call<{ moderator: Json }>(t, 'POST', '/api/v1/moderators', { body: { name: 'Sso', email: 'modsso@example.com', userId: `${t.tenant.tenantId}:modsso` } })).moderator;
      assert.equal(withUser['userId'], `${t.tenant.tenantId}:modsso`);

      assert.equal(ok(await call<{ moderator: Json }>(t, 'GET', `/api/v1/moderators/${created['_id']}`)).moderator['name'], 'Mia');
      const list = ok(await call<{ moderators: Json[]; creditsCost: number }>(t, 'GET', '/api/v1/moderators'));
      assert.deepEqual(list.moderators.map((m) => m['name']), ['Mia', 'Sso']);
      assert.equal(list.creditsCost, 1);
      assert.deepEqual(ok(await call<{ moderators: Json[] }>(t, 'GET', '/api/v1/moderators', { query: { skip: 1 } })).moderators.map((m) => m['name']), ['Sso']);

      const patched = ok(await call<{ moderator: Json }>(t, 'PATCH', `/api/v1/moderators/${created['_id']}`, { body: { name: 'Mia M.' } })).moderator;
      assert.equal(patched['email'], 'mia@example.com');
      refused(await t.api('PATCH', `/api/v1/moderators/${created['_id']}`, { body: { approvedCount: 5 } }), 400, 'unexpected-param');
      refused(await t.api('PATCH', `/api/v1/moderators/${created['_id']}`, { body: { tenantId: 'other' } }), 400, 'tenant-id-immutable');
      refused(await t.api('PATCH', `/api/v1/moderators/${created['_id']}`, { body: { email: 'modsso@example.com' } }), 409, 'moderator-email-taken');
      refused(await t.api('PATCH', `/api/v1/moderators/${created['_id']}`, { body: { userId: 'ghost' } }), 400, 'invalid-user');
      refused(await t.api('PATCH', '/api/v1/moderators/nope', { body: { name: 'x' } }), 404, 'not-found');

      const other = await t.addTenant({ name: 'Other' });
      refused(await t.api('GET', `/api/v1/moderators/${created['_id']}`, as(other)), 404, 'not-found');
      refused(await t.api('PATCH', `/api/v1/moderators/${created['_id']}`, { ...as(other), body: { name: 'stolen' } }), 404, 'not-found');
      refused(await t.api('DELETE', `/api/v1/moderators/${created['_id']}`, as(other)), 404, 'not-found');
      refused(await t.api('POST', `/api/v1/moderators/${created['_id']}/send-invite`, { ...as(other), query: { fromName: 'x' } }), 404, 'not-found');
      assert.deepEqual(ok(await call<{ moderators: Json[] }>(t, 'GET', '/api/v1/moderators', as(other))).moderators, []);

      ok(await call(t, 'DELETE', `/api/v1/moderators/${withUser['_id']}`));
      refused(await t.api('GET', `/api/v1/moderators/${withUser['_id']}`), 404, 'not-found');
      refused(await t.api('DELETE', `/api/v1/moderators/${withUser['_id']}`), 404, 'not-found');
      t = await t.restart();
      assert.deepEqual(ok(await call<{ moderators: Json[] }>(t, 'GET', '/api/v1/moderators')).moderators.map((m) => m['name']), ['Mia M.'], 'durable');
    });

    test('invitations: sent through the outbox, accepted once by their link, expiring after 30 days', async () => {
      const tu = ok(await call<{ tenantUser: Json }>(t, 'POST', '/api/v1/tenant-users', { body: { username: 'invitee', email: 'invitee@example.com' } })).tenantUser;
      const mod = ok(await call<{ moderator: Json }>(t, 'POST', '/api/v1/moderators', { body: { name: 'Ivy', email: 'invitee@example.com' } })).moderator;
      const invite = (query: Json) => t.api('POST', `/api/v1/moderators/${mod['_id']}/send-invite`, { query: query as Record<string, string> });
      refused(await invite({}), 400, 'from-name-required');
      refused(await invite({ fromName: 'x'.repeat(101) }), 400, 'from-name-invalid');
      refused(await t.api('POST', '/api/v1/moderators/nope/send-invite', { query: { fromName: 'Bob' } }), 404, 'not-found');
      ok(await call(t, 'POST', `/api/v1/moderators/${mod['_id']}/send-invite`, { query: { fromName: 'Bob' } }));
      const got = await sink.waitFor(to('invitee@example.com'), 'the invitation');
      assert.match(String(got.mail.subject), /Bob invites you/);
      const link = linkIn(got, '/auth/moderator-invite/');
      const sent = ok(await call<{ moderator: Json }>(t, 'GET', `/api/v1/moderators/${mod['_id']}`)).moderator;
      assert.equal(typeof sent['verificationId'], 'string');
      assert.ok(!JSON.stringify(sent).includes(link.split('/').pop()!), 'the secret is never stored or answered');

      const accepted = await fetch(link);
      assert.equal(accepted.status, 200, await accepted.clone().text());
      const after = ok(await call<{ moderator: Json }>(t, 'GET', `/api/v1/moderators/${mod['_id']}`)).moderator;
      assert.equal(after['acceptedInvite'], true);
      assert.equal(after['userId'], tu['id'], 'the tenant user with that email');
      assert.equal((await fetch(link)).status, 404, 'a link is used once');
      assert.equal((await fetch(`${t.url}/auth/moderator-invite/${'a'.repeat(43)}`)).status, 404);

      // A new invitation, opened after 30 days.
      ok(await call(t, 'POST', `/api/v1/moderators/${mod['_id']}/send-invite`, { body: { fromName: 'Bob' } }));
      await sink.waitFor((r) => to('invitee@example.com')(r) && r !== got, 'the second invitation');
      const second = sink.attempts.filter(to('invitee@example.com')).at(-1)!;
      const restore = clock.set(() => Date.now() + 31 * 86_400_000);
      try {
        const late = await fetch(linkIn(second, '/auth/moderator-invite/'));
        assert.equal(late.status, 410);
        assert.equal(((await late.json()) as Json)['code'], 'invite-expired');
      } finally {
        restore();
      }
    });

    test('the counters count what the moderator does through the moderation actions', async () => {
      ok(await call(t, 'POST', '/api/v1/sso-users', { body: { id: 'counter', username: 'counter', email: 'counter@example.com' } }));
      const userId = `${t.tenant.tenantId}:counter`;
      const mod = ok(await call<{ moderator: Json }>(t, 'POST', '/api/v1/moderators', { body: { name: 'Counter', email: 'counter@example.com', userId } })).moderator;
      const c = await postComment(t, 'moderated', { commenterName: 'Someone' });
      const patch = (body: Json) => t.api('PATCH', `/api/v1/comments/${c._id}`, { query: { contextUserId: userId }, body });
      for (const body of [{ approved: false }, { approved: true }, { reviewed: true }, { isSpam: true }, { isSpam: false }, { comment: 'Edited' }]) ok(await patch(body));
      ok(await t.api('PATCH', `/api/v1/comments/${c._id}`, { body: { reviewed: true } }), 'without a user: counts for nobody');
      ok(await t.api('POST', `/api/v1/comments/${c._id}/flag`, { query: { userId } }));
      ok(await t.api('POST', `/api/v1/comments/${c._id}/un-flag`, { query: { userId } }));
      ok(await t.api('DELETE', `/api/v1/comments/${c._id}`, { query: { contextUserId: userId } }));
      const counted = ok(await call<{ moderator: Json }>(t, 'GET', `/api/v1/moderators/${mod['_id']}`)).moderator;
      assert.deepEqual(
        ['approvedCount', 'unApprovedCount', 'markReviewedCount', 'markedSpamCount', 'markedNotSpamCount', 'editedCount', 'unFlaggedCount', 'deletedCount', 'bannedCount'].map((k) => counted[k]),
        [1, 1, 1, 1, 1, 1, 1, 1, 0],
      );
    });
  });
}
