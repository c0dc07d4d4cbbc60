import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BADGE_COLLECTIONS, type BadgeEventDoc } from '../../actors/badge/badge-model.js';
import { eventually } from '../fixtures/eventually.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { addBadge, type Badge, badgesOf, commentBy, ok, progressOf, type UserBadge } from './badge-helpers.js';

for (const storage of storages()) {
  describe(`badges on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage);
    });
    after(async () => {
      await t.destroy();
    });

    test('the catalog: create, read, patch, delete; bad input is refused and changes nothing', async () => {
      const badge = await addBadge(t, { type: 0, threshold: 3, name: 'Talker', backgroundColor: '#fff' });
      assert.deepEqual([badge.type, badge.threshold, badge.enabled], [0, 3, true]);
      const refused: [string, string, unknown, number, string][] = [
        ['POST', '/api/v1/tenant-badges', { name: 'no type' }, 400, 'missing-param'],
        ['POST', '/api/v1/tenant-badges', { type: 0, bogus: 1 }, 400, 'unexpected-param'],
        ['POST', '/api/v1/tenant-badges', { type: 'zero' }, 400, 'invalid-param'],
        ['PATCH', `/api/v1/tenant-badges/${badge._id}`, { threshold: -1 }, 400, 'invalid-param'],
        ['PATCH', '/api/v1/tenant-badges/nope', { threshold: 1 }, 404, 'badge-not-found'],
      ];
      for (const [method, path, body, status, code] of refused) {
        const r = await t.api(method, path, { body });
        assert.deepEqual([r.status, r.body['code']], [status, code], `${method} ${path} ${JSON.stringify(body)}`);
      }
      const patched = ok(await t.api<{ tenantBadge: Badge }>('PATCH', `/api/v1/tenant-badges/${badge._id}`, { body: { threshold: 5, enabled: false } }), 'patch').tenantBadge;
      assert.deepEqual([patched.threshold, patched.enabled], [5, false]);
      const list = ok(await t.api<{ tenantBadges: Badge[] }>('GET', '/api/v1/tenant-badges'), 'list').tenantBadges;
      assert.deepEqual(list.map((b) => [b._id, b.threshold]), [[badge._id, 5]]);
      ok(await t.api('DELETE', `/api/v1/tenant-badges/${badge._id}`), 'delete');
      assert.equal((await t.api('GET', `/api/v1/tenant-badges/${badge._id}`)).body['code'], 'badge-not-found');
      const other = await t.addTenant();
      assert.equal((await t.api<{ tenantBadges: Badge[] }>('GET', '/api/v1/tenant-badges', { headers: { 'x-api-key': other.apiKey, 'x-tenant-id': other.tenantId }, auth: 'none' })).body.tenantBadges.length, 0);
    });

    test('user badges by the API: the badge must exist and be enabled, the user known; held once; only displayedOnComments changes', async () => {
      const badge = await addBadge(t, { type: 4, name: 'Hand-picked' });
      const disabled = await addBadge(t, { type: 4, enabled: false });
      await commentBy(t, 'kim', '/manual');
      const refused: [unknown, number, string][] = [
        [{ userId: 'kim', badgeId: 'nope' }, 404, 'badge-not-found'],
        [{ userId: 'kim', badgeId: disabled._id }, 409, 'badge-disabled'],
        [{ userId: 'stranger', badgeId: badge._id }, 404, 'badge-user-unknown'],
        [{ userId: 'kim' }, 400, 'missing-param'],
        [{ userId: 'kim', badgeId: badge._id, order: 1 }, 400, 'unexpected-param'],
      ];
      for (const [body, status, code] of refused) {
        const r = await t.api('POST', '/api/v1/user-badges', { body });
        assert.deepEqual([r.status, r.body['code']], [status, code], JSON.stringify(body));
      }
      assert.deepEqual(await badgesOf(t, 'kim'), []);
      assert.deepEqual(await badgesOf(t, 'stranger'), []);

      const made = ok(await t.api<{ userBadge: UserBadge }>('POST', '/api/v1/user-badges', { body: { userId: 'kim', badgeId: badge._id } }), 'award').userBadge;
      assert.deepEqual([made.userId, made.badgeId, made.displayedOnComments, made.type], ['kim', badge._id, true, 4]);
      const again = await t.api('POST', '/api/v1/user-badges', { body: { userId: 'kim', badgeId: badge._id, displayedOnComments: false } });
      assert.deepEqual([again.status, again.body['code']], [409, 'badge-already-awarded']);
      assert.equal((await badgesOf(t, 'kim')).length, 1);

      const put = await t.api('PUT', `/api/v1/user-badges/${made._id}`, { body: { displayedOnComments: false, badgeId: 'x' } });
      assert.deepEqual([put.status, put.body['code']], [400, 'unexpected-param']);
      ok(await t.api('PUT', `/api/v1/user-badges/${made._id}`, { body: { displayedOnComments: false } }), 'put');
      const got = ok(await t.api<{ userBadge: UserBadge }>('GET', `/api/v1/user-badges/${made._id}`), 'get').userBadge;
      assert.deepEqual([got.displayedOnComments, got.badgeId], [false, badge._id]);
      const filtered = ok(await t.api<{ userBadges: UserBadge[] }>('GET', '/api/v1/user-badges', { query: { displayedOnComments: true, userId: 'kim' } }), 'filter').userBadges;
      assert.equal(filtered.length, 0);
      assert.equal((await t.api('GET', '/api/v1/user-badges', { query: { limit: 201 } })).status, 400);

      ok(await t.api('DELETE', `/api/v1/user-badges/${made._id}`), 'delete');
      assert.deepEqual([(await t.api('GET', `/api/v1/user-badges/${made._id}`)).status, (await t.api('DELETE', `/api/v1/user-badges/${made._id}`)).status], [404, 404]);
      assert.deepEqual(await badgesOf(t, 'kim'), []);
    });

    test('list paging: 30 by default, at most 200, skip', async () => {
      const badges = await Promise.all(Array.from({ length: 35 }, (_, i) => addBadge(t, { type: 4, name: `p${i}` })));
      await commentBy(t, 'pat', '/paging');
      for (const badge of badges) ok(await t.api('POST', '/api/v1/user-badges', { body: { userId: 'pat', badgeId: badge._id } }), 'award');
      const first = ok(await t.api<{ userBadges: UserBadge[] }>('GET', '/api/v1/user-badges', { query: { badgeId: undefined, type: 4, userId: 'pat' } }), 'page').userBadges;
      assert.equal(first.length, 30);
      const rest = ok(await t.api<{ userBadges: UserBadge[] }>('GET', '/api/v1/user-badges', { query: { userId: 'pat', skip: 30 } }), 'rest').userBadges;
      assert.equal(rest.length, 5);
      assert.equal(new Set([...first, ...rest].map((b) => b._id)).size, 35);
      const byBadge = ok(await t.api<{ userBadges: UserBadge[] }>('GET', '/api/v1/user-badges', { query: { badgeId: badges[0]!._id } }), 'by badge').userBadges;
      assert.deepEqual(byBadge.map((b) => b.userId), ['pat']);
    });

    test('comment count, replies received and up-votes received award their badges once, shown on the comments and live', async () => {
      const talker = await addBadge(t, { type: 0, threshold: 2, displayLabel: 'Talker' });
      const answered = await addBadge(t, { type: 2, threshold: 1, displayLabel: 'Answered' });
      const liked = await addBadge(t, { type: 1, threshold: 2, displayLabel: 'Liked' });
      const first = await commentBy(t, 'ann', '/auto');
      await eventually(async () => (await progressOf(t, 'ann'))?.progress['0'] === 1, 30_000);
      assert.deepEqual(await badgesOf(t, 'ann'), []);
      await commentBy(t, 'ann', '/auto-2');
      await eventually(async () => (await badgesOf(t, 'ann')).some((b) => b.badgeId === talker._id), 30_000);

      await commentBy(t, 'bob', '/auto', first);
      await commentBy(t, 'ann', '/auto', first); // her own reply is no reply received
      await eventually(async () => (await badgesOf(t, 'ann')).some((b) => b.badgeId === answered._id), 30_000);

      ok(await t.api('POST', '/api/v1/votes', { query: { commentId: first, direction: 'up', userId: 'ann' } }), 'own vote');
      ok(await t.api('POST', '/api/v1/votes', { query: { commentId: first, direction: 'up', userId: 'v1' } }), 'vote');
      ok(await t.api('POST', '/api/v1/votes', { query: { commentId: first, direction: 'down', userId: 'v2' } }), 'down vote');
      await eventually(async () => (await progressOf(t, 'ann'))?.progress['1'] === 1, 30_000);
      ok(await t.api('POST', '/api/v1/votes', { query: { commentId: first, direction: 'up', userId: 'v2' } }), 'down turned up');
      await eventually(async () => (await badgesOf(t, 'ann')).some((b) => b.badgeId === liked._id), 30_000);

      const progress = (await progressOf(t, 'ann'))!;
      assert.deepEqual(progress.progress, { '0': 3, '1': 2, '2': 1 });
      assert.equal(progress.firstCommentId, first);
      const byId = ok(await t.api<{ userBadgeProgress: { userId: string } }>('GET', `/api/v1/user-badge-progress/${progress._id}`), 'by id').userBadgeProgress;
      assert.equal(byId.userId, 'ann');
      const list = ok(await t.api<{ userBadgeProgresses: { userId: string }[] }>('GET', '/api/v1/user-badge-progress', { query: { userId: 'ann' } }), 'list').userBadgeProgresses;
      assert.deepEqual(list.map((p) => p.userId), ['ann']);
      assert.equal((await t.api('GET', '/api/v1/user-badge-progress/nope')).status, 404);
      assert.equal((await badgesOf(t, 'ann')).length, 3);
      assert.equal((await badgesOf(t, 'bob')).length, 0, 'bob commented once and was never replied to');

      // Every comment of hers shows the three, and readers of the page heard of it.
      await eventually(async () => {
        const comment = ok(await t.api<{ comment: { badges?: { id: string }[] } }>('GET', `/api/v1/comments/${first}`), 'comment').comment;
        return (comment.badges ?? []).length === 3;
      }, 30_000);
      const later = await commentBy(t, 'ann', '/auto');
      const fresh = ok(await t.api<{ comment: { badges?: { id: string; displayLabel: string }[] } }>('GET', `/api/v1/comments/${later}`), 'new comment').comment;
      assert.deepEqual(new Set(fresh.badges?.map((b) => b.displayLabel)), new Set(['Talker', 'Answered', 'Liked']));
      const log = ok(await t.api<{ events: { data: string }[] }>('GET', `/event-log/${t.tenant.tenantId}`, { auth: 'none', query: { urlId: '/auto', startTime: 0 } }), 'log');
      const types = log.events.map((e) => JSON.parse(e.data) as { type: string; userId?: string; commentIds?: string[] });
      const updates = types.filter((e) => e.type === 'update-badges');
      assert.ok(updates.length >= 1 && updates.every((e) => e.userId === undefined && e.commentIds!.includes(first)), JSON.stringify(updates));
    });

    test('a disabled badge, a page-scoped badge and a veteran badge not yet due are not awarded by progress', async () => {
      const none = [
        await addBadge(t, { type: 0, threshold: 1, enabled: false }),
        await addBadge(t, { type: 0, threshold: 1, urlId: '/scoped' }),
        await addBadge(t, { type: 3, veteranUserThresholdMillis: 86_400_000 }),
      ].map((b) => b._id);
      await commentBy(t, 'zed', '/quiet');
      await eventually(async () => (await progressOf(t, 'zed'))?.progress['0'] === 1, 30_000);
      // Later events of the same user are applied in order after the first: one more makes sure.
      await commentBy(t, 'zed', '/quiet');
      await eventually(async () => (await progressOf(t, 'zed'))?.progress['0'] === 2, 30_000);
      assert.deepEqual((await badgesOf(t, 'zed')).filter((b) => none.includes(b.badgeId)), []);
    });

    test("deleting a user (keeping or erasing their comments) removes their badges and progress", async () => {
      const badge = await addBadge(t, { type: 4, name: 'Kept?' });
      for (const [id, query] of [['gone-1', {}], ['gone-2', { deleteComments: true }]] as const) {
        assert.equal((await t.api('POST', '/api/v1/sso-users', { body: { id, username: id, email: `${id}@blog.example` } })).status, 200);
        const userId = `${t.tenant.tenantId}:${id}`;
        await commentBy(t, userId, `/${id}`);
        ok(await t.api('POST', '/api/v1/user-badges', { body: { userId, badgeId: badge._id } }), 'award');
        await eventually(async () => (await progressOf(t, userId)) !== undefined, 30_000);
        ok(await t.api('DELETE', `/api/v1/sso-users/${id}`, { query }), 'delete user');
        assert.deepEqual(await badgesOf(t, userId), [], id);
        assert.equal(await progressOf(t, userId), undefined, id);
      }
    });

    test('an event whose announcement was lost (a crash after the commit) is applied by the sweep after a restart, once', async () => {
      const badge = await addBadge(t, { type: 2, threshold: 2 });
      const commentId = await commentBy(t, 'lou', '/swept');
      const store = t.server.services.store;
      const old = Date.now() - 3_600_000;
      const events: BadgeEventDoc[] = [0, 1].map((i) => ({ _id: `5f00000000000000000000a${i}`, tenantId: t.tenant.tenantId, userId: 'lou', type: 2, delta: 1, commentId, at: old }));
      await store.commit(events.map((doc) => ({ op: 'insert', collection: BADGE_COLLECTIONS.events, doc })));
      t = await t.restart();
      await eventually(async () => (await badgesOf(t, 'lou')).some((b) => b.badgeId === badge._id), 30_000);
      await eventually(async () => (await t.server.services.store.count(BADGE_COLLECTIONS.events, { userId: 'lou' })) === 0, 30_000);
      assert.equal((await progressOf(t, 'lou'))?.progress['2'], 2);
      t = await t.restart();
      assert.equal((await progressOf(t, 'lou'))?.progress['2'], 2, 'progress survives a restart, and nothing is applied twice');
      assert.equal((await badgesOf(t, 'lou')).filter((b) => b.badgeId === badge._id).length, 1);
    });
  });
}
