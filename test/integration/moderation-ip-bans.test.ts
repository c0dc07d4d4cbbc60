/**
 * Bans by address (docs/moderation.md, "Bans by address"): comments keep a keyed hash of the
 * writer's address, moderators see it and ban by it, and the ban holds on every write path
 * from that address and from no other. The server runs behind a trusted proxy
 * (`TRUST_PROXY`), so each request's client address is the `X-Forwarded-For` it carries.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../fixtures/eventually.js';
import { startTestServer, storages, type TestServer, UNLIMITED_PUBLIC } from '../fixtures/server.js';
import { SmtpSink } from '../fixtures/smtp-sink.js';
import { as, call, ok } from './identity-helpers.js';
import { good, mod, no } from './moderation-helpers.js';
import { signIn } from './oauth-helpers.js';
import { commentData, connectLive, LIVE_EVENT_TYPES, nextOf, widget } from './public-comments-helpers.js';

type Json = Record<string, any>;

const BANNED_IP = '203.0.113.7';
const OTHER_IP = '198.51.100.9';

for (const storage of storages()) {
  describe(`bans by address on ${storage}`, () => {
    let t: TestServer;
    let sink: SmtpSink;
    let cookie: string;
    let tenantId: string;
    before(async () => {
      sink = await SmtpSink.start();
      t = await startTestServer(storage, { smtpUrl: sink.url, mailFrom: 'Site <robot@example.net>', ...UNLIMITED_PUBLIC, trustProxy: true });
      cookie = (await signIn(t, sink, { isAdminAdmin: true })).cookie;
      tenantId = t.tenant.tenantId;
    });
    after(async () => {
      await t?.destroy();
      await sink.close();
    });

    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    const post = (urlId: string, text: string, ip: string, sessionId?: string) =>
      widget(t, 'POST', `/comments/${tenantId}`, { urlId, ...(sessionId ? { sessionId } : {}) }, commentData(urlId, text), from(ip));
    const vote = (urlId: string, id: string, ip: string, sessionId: string) =>
      widget(t, 'POST', `/comments/${tenantId}/${id}/vote`, { urlId, sessionId }, { voteDir: 'up', url: null, commenterName: null, commenterEmail: null }, from(ip));
    const flag = (id: string, ip: string, sessionId: string) => widget(t, 'POST', `/flag-comment/${id}`, { tenantId, sessionId, isFlagged: true }, undefined, from(ip));
    const like = (urlId: string, ip: string) => widget(t, 'POST', `/page-reacts/v1/likes/${tenantId}`, { urlId }, undefined, from(ip));

    test('moderators see the hash, readers never do; comments by IP and pre-ban summaries count by it', async () => {
      const urlId = 'ip-see';
      const read = await widget(t, 'GET', `/comments/${tenantId}`, { urlId });
      const live = await connectLive(t, read.body);
      const first = await post(urlId, 'From the first address', BANNED_IP);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const event = await nextOf(live, LIVE_EVENT_TYPES.newComment);
      live.close();
      const id = first.body.comment._id as string;
      // Another session from the same address, and the site's server passing the same address.
      const second = await post(urlId, 'Same address, new session', BANNED_IP);
      const viaApi = ok(await call<{ comment: Json }>(t, 'POST', '/api/v1/comments', { body: { commenterName: 'Api', comment: 'Posted for the reader', url: 'https://example.com/ip', urlId, locale: 'en_us', ip: `::ffff:${BANNED_IP}` } })).comment;
      const elsewhere = await post(urlId, 'From elsewhere', OTHER_IP);

      const withIP = good(await mod(t, cookie, 'GET', `/comment/${id}`, { includeIP: true }));
      const hash = withIP.ipHash as string;
      assert.match(hash, /^[A-Za-z0-9_-]{32}$/, 'a keyed hash, not the address');
      assert.ok(!hash.includes(BANNED_IP));
      assert.equal(withIP.comment.ipHash, undefined, 'the moderation comment shape keeps to its fields');
      assert.equal(good(await mod(t, cookie, 'GET', `/comment/${id}`)).ipHash, undefined, 'only when asked');
      const elsewhereHash = good(await mod(t, cookie, 'GET', `/comment/${elsewhere.body.comment._id}`, { includeIP: true })).ipHash;
      assert.notEqual(elsewhereHash, hash);
      assert.equal(good(await mod(t, cookie, 'GET', `/comment/${viaApi['_id']}`, { includeIP: true })).ipHash, hash, 'one address, however spelled, one hash');
      assert.deepEqual(good(await mod(t, cookie, 'GET', `/get-comment-ban-status/${id}`)), { status: 'success', emailDomain: null, canIPBan: true });

      // Never on public outputs: the live frame, the widget listing, the management API.
      assert.ok(!JSON.stringify(event).includes(hash), 'not in the live frame');
      assert.equal(event.comment._id, id);
      const listing = await widget(t, 'GET', `/comments/${tenantId}`, { urlId });
      assert.equal(listing.body.comments.length, 4);
      assert.ok(!JSON.stringify(listing.body).includes(hash), 'not in the public listing');
      const managed = ok(await call<{ comment: Json }>(t, 'GET', `/api/v1/comments/${id}`));
      assert.ok(!JSON.stringify(managed).includes(hash), 'not in the management API comment');

      const byIP = good(await mod(t, cookie, 'GET', '/api/comments', { byIPFromComment: id }));
      assert.deepEqual(byIP.comments.map((c: Json) => c._id).sort(), [id, second.body.comment._id, viaApi['_id']].sort());
      assert.equal(good(await mod(t, cookie, 'GET', '/count', { byIPFromComment: id })).count, 3);
      assert.deepEqual(good(await mod(t, cookie, 'GET', '/api/ids', { byIPFromComment: elsewhere.body.comment._id })).ids, [elsewhere.body.comment._id]);
      no(await mod(t, cookie, 'GET', '/api/comments', { byIPFromComment: 'nope' }), 404, 'not-found');
      const { batchJobId } = good(await mod(t, cookie, 'POST', '/api/export', { byIPFromComment: id }));
      await eventually(async () => good(await mod(t, cookie, 'GET', '/api/export/status', { batchJobId })).jobStatus === 'done', 60_000);
      assert.equal(good(await mod(t, cookie, 'GET', '/api/export/status', { batchJobId })).recordCount, 3, 'an export of the comments by IP');

      assert.equal(good(await mod(t, cookie, 'GET', `/pre-ban-summary/${id}`)).count, 1, 'by the session alone');
      assert.equal(good(await mod(t, cookie, 'GET', `/pre-ban-summary/${id}`, { includeByIP: true })).count, 3, 'and by the address');
      const bulk = good(await mod(t, cookie, 'POST', '/bulk-pre-ban-summary', { includeByIP: true }, { commentIds: [id] }));
      assert.deepEqual(bulk.ipHashes, [hash]);
      assert.equal(bulk.totalRelatedCommentCount, 3);
      const another = await t.addTenant({ name: 'Other hashes' });
      const theirs = ok(await call<{ comment: Json }>(t, 'POST', '/api/v1/comments', { ...as(another), body: { commenterName: 'Api', comment: 'Same address', url: 'https://example.com/ip', urlId, locale: 'en_us', ip: BANNED_IP } })).comment;
      const theirModerator = (await signIn(t, sink, { isAdminAdmin: true }, another)).cookie;
      assert.notEqual(good(await mod(t, theirModerator, 'GET', `/comment/${theirs['_id']}`, { includeIP: true })).ipHash, hash, 'each tenant hashes under its own key');
    });

    test('a ban by IP hash holds on every write path from that address, not from another, until undone', async () => {
      const urlId = 'ip-ban';
      const banned = await post(urlId, 'Troll', BANNED_IP);
      const id = banned.body.comment._id as string;
      // A second session from the same address, and a reader elsewhere, both posting before the ban.
      const sameAddress = await post(urlId, 'A second account', BANNED_IP);
      const sessionB = sameAddress.body.user.sessionId as string;
      const other = await post(urlId, 'An honest reader', OTHER_IP);
      const sessionC = other.body.user.sessionId as string;
      const target = other.body.comment._id as string;

      const ban = good(await mod(t, cookie, 'POST', `/ban-user/from-comment/${id}`, { banIP: true }));
      assert.equal(typeof ban.changelog.createdBannedUserId, 'string');
      assert.deepEqual(good(await mod(t, cookie, 'GET', '/user-ban-preference')).preferences.shouldBanByIP, true);
      const matches = good(await mod(t, cookie, 'GET', `/ban-users/from-comment/${sameAddress.body.comment._id}`)).bannedUsers;
      const hash = good(await mod(t, cookie, 'GET', `/comment/${id}`, { includeIP: true })).ipHash;
      assert.deepEqual(matches.map((b: Json) => [b.ipHash, b.matches]), [[hash, [{ matchedOn: 'IP', matchedOnValue: hash }]]]);

      // From the banned address: a new session, and the other session of it, are refused everywhere.
      no(await post(urlId, 'A fresh session', BANNED_IP), 403, 'banned', 'posting, new session');
      no(await post(urlId, 'Again', BANNED_IP, sessionB), 403, 'banned', 'posting');
      no(await vote(urlId, target, BANNED_IP, sessionB), 403, 'banned', 'voting');
      no(await flag(target, BANNED_IP, sessionB), 403, 'banned', 'flagging');
      no(await like(urlId, BANNED_IP), 403, 'banned', 'liking');
      no(await post(urlId, 'Mapped address', `::ffff:${BANNED_IP}`), 403, 'banned', 'the same address spelled as IPv6');
      no(await t.api('POST', '/api/v1/comments', { body: { commenterName: 'Api', comment: 'For the banned', url: 'https://example.com/ip', urlId, locale: 'en_us', ip: BANNED_IP } }), 403, 'banned', 'the management API with the address');

      // From another address the same writes go through.
      assert.equal((await post(urlId, 'Still welcome', OTHER_IP, sessionC)).status, 200);
      assert.equal((await vote(urlId, sameAddress.body.comment._id, OTHER_IP, sessionC)).status, 200);
      assert.equal((await flag(sameAddress.body.comment._id, OTHER_IP, sessionC)).status, 200);
      assert.equal((await like(urlId, OTHER_IP)).status, 200);
      assert.equal((await post(urlId, 'A newcomer', '192.0.2.1')).status, 200);

      good(await mod(t, cookie, 'POST', '/ban-user/undo', {}, { changelog: ban.changelog }));
      assert.equal((await post(urlId, 'Back again', BANNED_IP, sessionB)).status, 200, 'undo lifts the ban');
      assert.equal((await vote(urlId, target, BANNED_IP, sessionB)).status, 200);
      assert.equal((await like(urlId, BANNED_IP)).status, 200);
      assert.equal(good(await mod(t, cookie, 'GET', `/comment/${sameAddress.body.comment._id}`)).comment.isBannedUser, false, 'undo restores the comments the ban marked');
    });

    test('a comment that kept no address cannot be banned by IP', async () => {
      const c = ok(await call<{ comment: Json }>(t, 'POST', '/api/v1/comments', { body: { commenterName: 'Api', comment: 'No address given', url: 'https://example.com/ip', urlId: 'ip-none', locale: 'en_us', userId: 'someone' } })).comment;
      assert.equal(good(await mod(t, cookie, 'GET', `/get-comment-ban-status/${c['_id']}`)).canIPBan, false);
      assert.equal(good(await mod(t, cookie, 'GET', `/comment/${c['_id']}`, { includeIP: true })).ipHash, null);
      no(await mod(t, cookie, 'POST', `/ban-user/from-comment/${c['_id']}`, { banIP: true }), 400, 'invalid-param');
      assert.equal(good(await mod(t, cookie, 'GET', '/count', { byIPFromComment: c['_id'] })).count, 0, 'no address, no comments by it');
      assert.equal(good(await mod(t, cookie, 'GET', '/banned-users/counts')).totalCount, 0, 'nothing was banned');
    });
  });
}
