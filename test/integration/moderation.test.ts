import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../fixtures/eventually.js';
import { startTestServer, storages, type TestServer, UNLIMITED_PUBLIC } from '../fixtures/server.js';
import { type Received, SmtpSink } from '../fixtures/smtp-sink.js';
import { as, call, linkIn, ok } from './identity-helpers.js';
import { good, mod, no } from './moderation-helpers.js';
import { signIn } from './oauth-helpers.js';
import { postComment } from './page-helpers.js';
import { broadcast, commentData, connectLive, LIVE_EVENT_TYPES, nextOf, secureSso, widget } from './public-comments-helpers.js';

type Json = Record<string, any>;

for (const storage of storages()) {
  describe(`moderation on ${storage}`, () => {
    let t: TestServer;
    let sink: SmtpSink;
    let admin: { user: Json; cookie: string };
    before(async () => {
      sink = await SmtpSink.start();
      t = await startTestServer(storage, { smtpUrl: sink.url, mailFrom: 'Site <robot@example.net>', ...UNLIMITED_PUBLIC });
      admin = await signIn(t, sink, { isCommentModeratorAdmin: true });
    });
    after(async () => {
      await t?.destroy();
      await sink.close();
    });

    test('who may moderate: no session 401, no permission 403, another tenant nothing, SSO moderators yes', async () => {
      const c = await postComment(t, 'who-page', { comment: 'Visible to moderators' });
      no(await mod(t, null, 'GET', '/api/comments'), 401, 'not-signed-in');
      no(await mod(t, null, 'POST', `/set-comment-approval-status/${c._id}`, { approved: false }), 401, 'not-signed-in');
      const plain = await signIn(t, sink, { isAPIAdmin: true });
      no(await mod(t, plain.cookie, 'GET', '/api/comments'), 403, 'moderation-forbidden');
      no(await mod(t, plain.cookie, 'POST', `/remove-comment/${c._id}`), 403, 'moderation-forbidden');

      const other = await t.addTenant({ name: 'Other moderation' });
      const outsider = await signIn(t, sink, { isCommentModeratorAdmin: true }, other);
      no(await mod(t, outsider.cookie, 'GET', '/api/comments', { tenantId: t.tenant.tenantId }), 403, 'moderation-forbidden');
      no(await mod(t, outsider.cookie, 'POST', `/set-comment-approval-status/${c._id}`, { approved: false }), 404, 'not-found');
      no(await mod(t, outsider.cookie, 'GET', `/comment/${c._id}`), 404, 'not-found');
      assert.equal(good(await mod(t, outsider.cookie, 'GET', '/count')).count, 0, 'their own tenant has no comments');

      const secret = t.tenant.apiSecret;
      const ssoMod = secureSso(secret, { id: 'sso-mod', email: 'ssomod@example.com', username: 'ssomod', isCommentModeratorAdmin: true });
      assert.equal(good(await mod(t, null, 'GET', `/comment/${c._id}`, { tenantId: t.tenant.tenantId, sso: ssoMod })).comment._id, c._id);
      const ssoReader = secureSso(secret, { id: 'sso-reader', email: 'reader@example.com', username: 'reader' });
      no(await mod(t, null, 'GET', '/api/comments', { tenantId: t.tenant.tenantId, sso: ssoReader }), 403, 'moderation-forbidden');
      const simple = JSON.stringify({ id: 'simple', email: 'simple@example.com', username: 'simple', isAdmin: true });
      no(await mod(t, null, 'GET', '/api/comments', { tenantId: t.tenant.tenantId, sso: simple }), 403, 'moderation-forbidden');
      const answer = good(await mod(t, admin.cookie, 'GET', `/comment/${c._id}`, { includeEmail: true }));
      assert.equal(answer.comment.commenterEmail, undefined, 'the moderation comment shape has no email');
    });

    test('find: filters, text search with phrases, paging, ids and counts', async () => {
      const urlId = 'find-page';
      await postComment(t, urlId, { comment: 'the quick brown fox' });
      await postComment(t, urlId, { comment: 'a slow brown dog', approved: false });
      await postComment(t, urlId, { comment: 'quick thinking', reviewed: true });
      const filters = JSON.stringify({ urlId });
      const all = good(await mod(t, admin.cookie, 'GET', '/api/comments', { filters }));
      assert.equal(all.comments.length, 3);
      assert.deepEqual(all.comments.map((x: Json) => x.commentHTML.replace(/<[^>]+>/g, '')), ['quick thinking', 'a slow brown dog', 'the quick brown fox'], 'newest first');
      const pending = good(await mod(t, admin.cookie, 'GET', '/api/comments', { filters: JSON.stringify({ urlId, approved: false }) }));
      assert.deepEqual(pending.comments.map((x: Json) => x.approved), [false]);
      assert.equal(good(await mod(t, admin.cookie, 'GET', '/count', { filter: JSON.stringify({ urlId, reviewed: false }) })).count, 2);
      assert.equal(good(await mod(t, admin.cookie, 'GET', '/count', { filter: filters, 'text-search': 'quick' })).count, 2);
      assert.equal(good(await mod(t, admin.cookie, 'GET', '/count', { filter: filters, 'text-search': '"brown fox"' })).count, 1);
      assert.equal(good(await mod(t, admin.cookie, 'GET', '/count', { filter: filters, 'text-search': '"fox brown"' })).count, 0);
      assert.equal(good(await mod(t, admin.cookie, 'GET', '/count', { filter: filters, 'text-search': 'exact="quick thinking"' })).count, 1);
      const paged = good(await mod(t, admin.cookie, 'GET', '/api/comments', { filters, count: 2, page: 1, sorts: JSON.stringify({ date: 1 }) }));
      assert.equal(paged.comments.length, 1);
      assert.match(paged.comments[0].commentHTML, /quick thinking/);
      const ids = good(await mod(t, admin.cookie, 'GET', '/api/ids', { filters }));
      assert.equal(ids.ids.length, 3);
      assert.equal(ids.hasMore, false);
      assert.deepEqual(good(await mod(t, admin.cookie, 'GET', '/api/ids', { filters, afterId: ids.ids[0] })).ids, ids.ids.slice(1));
      no(await mod(t, admin.cookie, 'GET', '/api/comments', { filters: '{"approved":"yes"}' }), 400, 'invalid-param');
      no(await mod(t, admin.cookie, 'GET', '/api/comments', { filters: 'not json' }), 400, 'invalid-param');
      no(await mod(t, admin.cookie, 'GET', '/api/comments', { sorts: '{"comment":1}' }), 400, 'invalid-param');
    });

    test('act: approve live to readers, spam, review, remove and restore, edit, flags; logged and counted', async () => {
      const moderator = ok(await call<{ moderator: Json }>(t, 'POST', '/api/v1/moderators', { body: { name: 'Admin', email: admin.user['email'], userId: admin.user['id'] } })).moderator;
      const urlId = 'act-page';
      const tenantId = t.tenant.tenantId;
      const read = await widget(t, 'GET', `/comments/${tenantId}`, { urlId });
      const live = await connectLive(t, read.body);
      const c = await postComment(t, urlId, { comment: 'Waiting for approval', approved: false });

      good(await mod(t, admin.cookie, 'POST', `/set-comment-approval-status/${c._id}`, { approved: true, broadcastId: broadcast() }));
      const appeared = await nextOf(live, LIVE_EVENT_TYPES.newComment);
      assert.equal(appeared.comment._id, c._id, 'the approved comment appears in readers\' widgets');
      assert.equal(good(await mod(t, admin.cookie, 'GET', `/comment/${c._id}`)).comment.approved, true);

      good(await mod(t, admin.cookie, 'POST', `/set-comment-spam-status/${c._id}`, { spam: true }));
      assert.equal((await nextOf(live, LIVE_EVENT_TYPES.deletedComment)).comment._id, c._id, 'spam disappears');
      good(await mod(t, admin.cookie, 'POST', `/set-comment-spam-status/${c._id}`, { spam: false, permNotSpam: true }));
      assert.equal((await nextOf(live, LIVE_EVENT_TYPES.newComment)).comment._id, c._id);
      const notSpam = good(await mod(t, admin.cookie, 'GET', `/comment/${c._id}`)).comment;
      assert.equal(notSpam.isSpam, false);
      assert.equal(notSpam.permNotSpam, true);
      good(await mod(t, admin.cookie, 'POST', `/set-comment-review-status/${c._id}`, { reviewed: true }));

      assert.equal(good(await mod(t, admin.cookie, 'POST', `/remove-comment/${c._id}`)).action, 'deleted');
      assert.equal((await nextOf(live, LIVE_EVENT_TYPES.deletedComment)).comment._id, c._id, 'removed disappears');
      assert.equal(good(await mod(t, admin.cookie, 'POST', `/remove-comment/${c._id}`)).action, 'already-deleted');
      good(await mod(t, admin.cookie, 'POST', `/restore-deleted-comment/${c._id}`));
      assert.equal((await nextOf(live, LIVE_EVENT_TYPES.newComment)).comment._id, c._id, 'restored reappears');
      no(await mod(t, admin.cookie, 'POST', `/restore-deleted-comment/${c._id}`), 400, 'invalid-param');

      const edited = good(await mod(t, admin.cookie, 'POST', `/set-comment-text/${c._id}`, {}, { comment: 'Edited **by** a moderator' }));
      assert.match(edited.newCommentTextHTML, /<b>by<\/b>/);
      assert.equal(good(await mod(t, admin.cookie, 'GET', `/get-comment-text/${c._id}`)).comment, 'Edited **by** a moderator');
      good(await mod(t, admin.cookie, 'POST', `/flag-comment/${c._id}`));
      assert.equal(good(await mod(t, admin.cookie, 'GET', `/comment/${c._id}`)).comment.flagCount, 1);
      good(await mod(t, admin.cookie, 'POST', `/un-flag-comment/${c._id}`));
      assert.equal(good(await mod(t, admin.cookie, 'GET', `/comment/${c._id}`)).comment.flagCount, 0);
      no(await mod(t, admin.cookie, 'POST', '/remove-comment/nope'), 404, 'not-found');

      const logs = good(await mod(t, admin.cookie, 'GET', `/logs/${c._id}`)).logs;
      assert.deepEqual(logs.map((l: Json) => l.actionName), ['approved', 'marked-spam', 'marked-not-spam', 'marked-reviewed', 'removed', 'restored', 'edited', 'flagged', 'un-flagged']);
      assert.ok(logs.every((l: Json) => l.username === admin.user['username']));
      const counted = ok(await call<{ moderator: Json }>(t, 'GET', `/api/v1/moderators/${moderator['_id']}`)).moderator;
      assert.deepEqual(
        ['approvedCount', 'markedSpamCount', 'markedNotSpamCount', 'markReviewedCount', 'deletedCount', 'editedCount', 'unFlaggedCount'].map((k) => counted[k]),
        [1, 1, 1, 1, 1, 1, 1],
      );
      live.close();
    });

    test('close and reopen a thread: live to readers, and a closed thread takes no comment', async () => {
      const urlId = 'closing-page';
      const tenantId = t.tenant.tenantId;
      const read = await widget(t, 'GET', `/comments/${tenantId}`, { urlId });
      const live = await connectLive(t, read.body);
      good(await mod(t, admin.cookie, 'PUT', '/close-thread', { urlId }));
      const closed = await nextOf(live, LIVE_EVENT_TYPES.threadStateChange);
      assert.equal(closed.isClosed, true);
      const refused = await widget(t, 'POST', `/comments/${tenantId}`, { urlId }, commentData(urlId, 'Too late'));
      assert.equal(refused.status, 403, JSON.stringify(refused.body));
      good(await mod(t, admin.cookie, 'PUT', '/reopen-thread', { urlId }));
      assert.equal((await nextOf(live, LIVE_EVENT_TYPES.threadStateChange)).isClosed, false);
      const posted = await widget(t, 'POST', `/comments/${tenantId}`, { urlId }, commentData(urlId, 'Open again'));
      assert.equal(posted.status, 200, JSON.stringify(posted.body));
      no(await mod(t, admin.cookie, 'PUT', '/close-thread'), 400, 'missing-param');
      live.close();
    });

    test('a moderator limited to moderation groups sees and acts only within them', async () => {
      const email = `grouped-${storage}@example.com`;
      const m = ok(await call<{ moderator: Json }>(t, 'POST', '/api/v1/moderators', { body: { name: 'Grouped', email, moderationGroupIds: ['g1'] } })).moderator;
      const user = ok(await call<{ tenantUser: Json }>(t, 'POST', '/api/v1/tenant-users', { body: { username: `grouped-${storage}`, email } })).tenantUser;
      // Signed in but not yet accepted: not a moderator.
      ok(await call(t, 'POST', `/api/v1/tenant-users/${String(user['id'])}/send-login-link`));
      const link = await sink.waitFor((r: Received) => r.rcptTo.includes(email) && linkIn(r, '/auth/login-link/') !== '', 'the login link');
      const opened = await fetch(linkIn(link, '/auth/login-link/'));
      const cookie = opened.headers.get('set-cookie')!.split(';')[0]!;
      no(await mod(t, cookie, 'GET', '/api/comments'), 403, 'moderation-forbidden');
      ok(await call(t, 'POST', `/api/v1/moderators/${m['_id']}/send-invite`, { query: { fromName: 'Boss' } }));
      const invite = await sink.waitFor((r: Received) => r.rcptTo.includes(email) && /moderator-invite/.test(String(r.mail.text ?? r.mail.html)), 'the invitation');
      assert.equal((await fetch(linkIn(invite, '/auth/moderator-invite/'))).status, 200);

      const inside = await postComment(t, 'groups-page', { comment: 'In g1', moderationGroupIds: ['g1'] });
      const outside = await postComment(t, 'groups-page', { comment: 'In g2', moderationGroupIds: ['g2'] });
      const none = await postComment(t, 'groups-page', { comment: 'No group' });
      const seen = good(await mod(t, cookie, 'GET', '/api/comments', { filters: JSON.stringify({ urlId: 'groups-page' }) })).comments.map((x: Json) => x._id);
      assert.deepEqual(seen, [inside._id]);
      assert.equal(good(await mod(t, cookie, 'GET', '/count', { filter: JSON.stringify({ urlId: 'groups-page', moderationGroupIds: ['g2'] }) })).count, 0);
      for (const id of [outside._id, none._id]) {
        no(await mod(t, cookie, 'GET', `/comment/${id}`), 404, 'not-found');
        no(await mod(t, cookie, 'POST', `/set-comment-approval-status/${id}`, { approved: false }), 404, 'not-found');
        no(await mod(t, cookie, 'POST', `/ban-user/from-comment/${id}`), 404, 'not-found');
      }
      good(await mod(t, cookie, 'POST', `/set-comment-approval-status/${inside._id}`, { approved: false }));
      no(await mod(t, cookie, 'PUT', '/close-thread', { urlId: 'groups-page' }), 403, 'moderation-forbidden');
      const all = good(await mod(t, admin.cookie, 'GET', '/api/comments', { filters: JSON.stringify({ urlId: 'groups-page' }) })).comments;
      assert.equal(all.length, 3, 'an unlimited moderator sees every group');
    });

    test('trust factor, internal profile, comments by ids and children', async () => {
      const userId = `${t.tenant.tenantId}:trusty`;
      ok(await call(t, 'POST', '/api/v1/sso-users', { body: { id: 'trusty', username: 'trusty', email: 'trusty@example.com' } }));
      const root = await postComment(t, 'trust-page', { comment: 'Root', userId, commenterEmail: 'trusty@example.com' });
      const reply = await postComment(t, 'trust-page', { comment: 'Reply', userId, parentId: root._id, commenterEmail: 'trusty@example.com' });
      good(await mod(t, admin.cookie, 'POST', `/set-comment-spam-status/${reply._id}`, { spam: true }));
      const trust = good(await mod(t, admin.cookie, 'GET', '/get-trust-factor', { userId }));
      assert.equal(trust.autoTrustFactor, 50, 'one of two comments stands');
      assert.equal(trust.manualTrustFactor, undefined);
      assert.deepEqual(good(await mod(t, admin.cookie, 'PUT', '/set-trust-factor', { userId, trustFactor: '80' })), { status: 'success' });
      assert.equal(good(await mod(t, admin.cookie, 'PUT', '/set-trust-factor', { userId, trustFactor: '90' })).previousManualTrustFactor, 80);
      assert.equal(good(await mod(t, admin.cookie, 'GET', '/get-trust-factor', { userId })).manualTrustFactor, 90);
      no(await mod(t, admin.cookie, 'PUT', '/set-trust-factor', { userId, trustFactor: '101' }), 400, 'invalid-param');
      const profile = good(await mod(t, admin.cookie, 'GET', '/get-user-internal-profile', { commentId: reply._id })).profile;
      assert.equal(profile.userId, userId);
      assert.equal(profile.commenterEmail, 'trusty@example.com', 'moderators see the email');
      const byIds = good(await mod(t, admin.cookie, 'POST', '/comments-by-ids', {}, { ids: [root._id, reply._id, 'nope'] })).comments;
      assert.deepEqual(byIds.map((x: Json) => x._id), [root._id, reply._id]);
      assert.deepEqual(good(await mod(t, admin.cookie, 'GET', `/comment-children/${root._id}`)).comments.map((x: Json) => x._id), [reply._id]);
    });

    test('search: users, pages, sites, a comment count, suggestions', async () => {
      ok(await call(t, 'POST', '/api/v1/sso-users', { body: { id: 'searchable', username: 'Searchable Sam', email: 'sam@example.com' } }));
      await postComment(t, 'search-target-page', { comment: 'findable words here' });
      ok(await call(t, 'POST', '/api/v1/domain-configs', { body: { domain: 'searchable.example' } }));
      const users = good(await mod(t, admin.cookie, 'GET', '/search/users', { value: 'searchable' })).users;
      assert.deepEqual(users.map((u: Json) => u.username), ['Searchable Sam']);
      const pages = good(await mod(t, admin.cookie, 'GET', '/search/pages', { value: 'search-target' })).pages;
      assert.deepEqual(pages.map((p: Json) => [p.urlId, p.commentCount]), [['search-target-page', 1]]);
      assert.deepEqual(good(await mod(t, admin.cookie, 'GET', '/search/sites', { value: 'searchable' })).sites, [{ domain: 'searchable.example', logoSrc100px: null }]);
      assert.equal(good(await mod(t, admin.cookie, 'GET', '/search/comments/summary', { value: '"findable words"' })).commentCount, 1);
      const suggested = good(await mod(t, admin.cookie, 'GET', '/search/suggest', { 'text-search': 'search' }));
      assert.ok(suggested.pages.some((p: Json) => p.urlId === 'search-target-page'));
      assert.deepEqual(good(await mod(t, admin.cookie, 'GET', '/search/users', { value: '' })).users, []);
      no(await mod(t, null, 'GET', '/search/users', { value: 'searchable' }), 401, 'not-signed-in');
      // A configured domain makes the tenant admit only its sites: the widget tests after this run from localhost.
      ok(await call(t, 'DELETE', '/api/v1/domain-configs/searchable.example'));
    });

    test('manual badges: listed, awarded to a comment\'s author, shown, removed', async () => {
      const manual = ok(await call<{ tenantBadge: Json }>(t, 'POST', '/api/v1/tenant-badges', { body: { type: 4, name: 'Helpful', description: 'Given by hand', displayLabel: 'Helpful' } })).tenantBadge;
      const counted = ok(await call<{ tenantBadge: Json }>(t, 'POST', '/api/v1/tenant-badges', { body: { type: 0, threshold: 100, name: 'Talker', description: 'Many comments', displayLabel: 'Talker' } })).tenantBadge;
      const listed = good(await mod(t, admin.cookie, 'GET', '/get-manual-badges')).badges.map((b: Json) => b._id ?? b.id);
      assert.ok(listed.includes(manual['_id'] ?? manual['id']));
      assert.ok(!listed.includes(counted['_id'] ?? counted['id']), 'only manual badges');
      const userId = `${t.tenant.tenantId}:badged`;
      ok(await call(t, 'POST', '/api/v1/sso-users', { body: { id: 'badged', username: 'badged', email: 'badged@example.com' } }));
      const c = await postComment(t, 'badge-page', { userId, comment: 'Worth a badge' });
      const badgeId = String(manual['_id'] ?? manual['id']);
      const awarded = good(await mod(t, admin.cookie, 'PUT', '/award-badge', { badgeId, commentId: c._id }));
      assert.equal(awarded.badges.length, 1);
      const held = good(await mod(t, admin.cookie, 'GET', '/get-manual-badges-for-user', { badgesUserId: userId })).badges;
      assert.deepEqual(held.map((b: Json) => b.badgeId), [badgeId]);
      no(await mod(t, admin.cookie, 'PUT', '/award-badge', { badgeId: String(counted['_id'] ?? counted['id']), userId }), 400, 'invalid-param');
      no(await mod(t, admin.cookie, 'PUT', '/award-badge', { badgeId }), 400, 'invalid-param');
      good(await mod(t, admin.cookie, 'PUT', '/remove-badge', { badgeId, userId, commentId: c._id }));
      assert.deepEqual(good(await mod(t, admin.cookie, 'GET', '/get-manual-badges-for-user', { commentId: c._id })).badges, []);
      assert.deepEqual(good(await mod(t, admin.cookie, 'GET', `/logs/${c._id}`)).logs.map((l: Json) => l.actionName), ['badge-awarded', 'badge-removed']);
    });

    test('vote as a moderator, live to readers, and take the vote back', async () => {
      const urlId = 'mod-vote-page';
      const read = await widget(t, 'GET', `/comments/${t.tenant.tenantId}`, { urlId });
      const live = await connectLive(t, read.body);
      const c = await postComment(t, urlId, { comment: 'Vote on me' });
      const voted = good(await mod(t, admin.cookie, 'POST', `/vote/${c._id}`, { direction: 'up' }));
      assert.equal(typeof voted.voteId, 'string');
      await nextOf(live, LIVE_EVENT_TYPES.newVote);
      assert.equal(good(await mod(t, admin.cookie, 'GET', `/comment/${c._id}`)).comment.votes, 1);
      no(await mod(t, admin.cookie, 'POST', `/vote/${c._id}`, { direction: 'up' }), 409, 'already-voted');
      no(await mod(t, admin.cookie, 'DELETE', `/vote/${c._id}/nope`), 404, 'not-found');
      assert.equal(good(await mod(t, admin.cookie, 'DELETE', `/vote/${c._id}/${voted.voteId}`)).wasPendingVote, false);
      assert.equal(good(await mod(t, admin.cookie, 'GET', `/comment/${c._id}`)).comment.votes, 0);
      live.close();
    });

    test('export: a durable job, counted, downloaded as CSV and JSON', async () => {
      const urlId = 'export-page';
      for (const text of ['first, with a comma', 'second "quoted"', 'third']) await postComment(t, urlId, { comment: text });
      const filters = JSON.stringify({ urlId });
      const { batchJobId } = good(await mod(t, admin.cookie, 'POST', '/api/export', { filters }));
      let status: Json = {};
      await eventually(async () => {
        status = good(await mod(t, admin.cookie, 'GET', '/api/export/status', { batchJobId }));
        return status.jobStatus === 'done';
      }, 60_000);
      assert.equal(status.recordCount, 3);
      const csv = await fetch(`${t.url}${status.downloadUrl}`, { headers: { cookie: admin.cookie } });
      assert.equal(csv.status, 200);
      assert.match(String(csv.headers.get('content-type')), /text\/csv/);
      const lines = (await csv.text()).trim().split('\r\n');
      assert.equal(lines.length, 4, 'a header and three rows');
      assert.match(lines[0]!, /^id,urlId/);
      assert.ok(lines.some((l) => l.endsWith('"first, with a comma"')));
      assert.ok(lines.some((l) => l.endsWith('"second ""quoted"""')));
      const json = await fetch(`${t.url}/auth/my-account/moderate-comments/api/export/download?batchJobId=${batchJobId}&format=json`, { headers: { cookie: admin.cookie } });
      const parsed = (await json.json()) as Json;
      assert.deepEqual(parsed.comments.map((c: Json) => c.comment).sort(), ['first, with a comma', 'second "quoted"', 'third']);
      const other = await t.addTenant({ name: 'Other export' });
      const outsider = await signIn(t, sink, { isCommentModeratorAdmin: true }, other);
      no(await mod(t, outsider.cookie, 'GET', '/api/export/status', { batchJobId }), 404, 'not-found');
      no(await mod(t, null, 'POST', '/api/export', { filters }), 401, 'not-signed-in');
      t = await t.restart();
      assert.equal(good(await mod(t, admin.cookie, 'GET', '/api/export/status', { batchJobId })).recordCount, 3, 'the job survives a restart');
    });

    test('the audit log records moderation actions of audited tenants', async () => {
      const audited = await t.addTenant({ name: 'Audited moderation', auditing: true });
      const someone = await signIn(t, sink, { isAdminAdmin: true }, audited);
      const created = ok(await call<{ comment: Json }>(t, 'POST', '/api/v1/comments', { ...as(audited), body: { commenterName: 'Ann', comment: 'Audit me', url: 'https://example.com/a', urlId: 'audit-page', locale: 'en_us' } })).comment;
      good(await mod(t, someone.cookie, 'POST', `/set-comment-review-status/${created['_id']}`, { reviewed: true }));
      const logs = ok(await call<{ auditLogs: Json[] }>(t, 'GET', '/api/v1/audit-logs', as(audited))).auditLogs;
      const entry = logs.find((l) => l['resourceName'] === 'moderate-comments');
      assert.ok(entry, JSON.stringify(logs));
      assert.equal(entry['targetId'], created['_id']);
      assert.equal(entry['userId'], someone.user['id']);
    });
  });
}
