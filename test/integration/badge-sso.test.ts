/**
 * Badges given by a signed single sign-on payload's `badgeConfig`, and the veteran badge.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { badgeUserActorId } from '../../actors/badge/badge-model.js';
import { BadgeUserKind } from '../../actors/badge/protocol.js';
import { clock } from '../../engine/clock.js';
import { eventually } from '../fixtures/eventually.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { addBadge, badgesOf, commentBy, type UserBadge } from './badge-helpers.js';
import { pub, secureSso } from './feed-helpers.js';

for (const storage of storages()) {
  describe(`badges of single sign-on and veterans on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage);
    });
    after(async () => {
      await t.destroy();
    });

    const signIn = (user: Record<string, unknown>) => pub(t, 'GET', `/feed-posts/${t.tenant.tenantId}`, { query: { sso: secureSso(t.tenant.apiSecret, user) } });
    const held = async (userId: string, badgeId: string): Promise<UserBadge | undefined> => (await badgesOf(t, userId)).find((b) => b.badgeId === badgeId);

    test('badgeIds are awarded; override hides the others; update refreshes display fields; at most 30; unsigned payloads give nothing', async () => {
      const one = await addBadge(t, { type: 4, displayLabel: 'One' });
      const two = await addBadge(t, { type: 4, displayLabel: 'Two' });
      const userId = `${t.tenant.tenantId}:s1`;
      assert.equal((await signIn({ id: 's1', username: 's1', badgeConfig: { badgeIds: [one._id, 'unknown'] } })).status, 200);
      await eventually(async () => (await held(userId, one._id)) !== undefined, 30_000);

      assert.equal((await signIn({ id: 's1', username: 's1', badgeConfig: { badgeIds: [two._id], override: true } })).status, 200);
      await eventually(async () => (await held(userId, two._id)) !== undefined && (await held(userId, one._id))?.displayedOnComments === false, 30_000);

      assert.equal((await t.api('PATCH', `/api/v1/tenant-badges/${two._id}`, { body: { displayLabel: 'Two, renamed' } })).status, 200);
      assert.equal((await signIn({ id: 's1', username: 's1', badgeConfig: { badgeIds: [two._id], update: true } })).status, 200);
      await eventually(async () => ((await held(userId, two._id)) as unknown as { displayLabel: string }).displayLabel === 'Two, renamed', 30_000);

      const tooMany = await signIn({ id: 's1', username: 's1', badgeConfig: { badgeIds: Array.from({ length: 31 }, (_, i) => `b${i}`) } });
      assert.deepEqual([tooMany.status, tooMany.body['code']], [400, 'too-many-badges']);

      const simple = await pub(t, 'GET', `/feed-posts/${t.tenant.tenantId}`, { query: { sso: JSON.stringify({ username: 'plain', email: 'plain@blog.example', badgeConfig: { badgeIds: [one._id] } }) } });
      assert.equal(simple.status, 200);
      const signed = await signIn({ id: 's2', username: 's2', badgeConfig: { badgeIds: [one._id] } });
      assert.equal(signed.status, 200);
      await eventually(async () => (await held(`${t.tenant.tenantId}:s2`, one._id)) !== undefined, 30_000);
      const all = (await t.api<{ userBadges: UserBadge[] }>('GET', '/api/v1/user-badges', { query: { badgeId: one._id } })).body.userBadges;
      assert.deepEqual(all.map((b) => b.userId).sort(), [userId, `${t.tenant.tenantId}:s2`].sort(), 'the unsigned payload gave nothing');
    });

    test('pageBadgeIds give badges of the page the payload came with, shown on that page only', async () => {
      const page = await addBadge(t, { type: 4, displayLabel: 'Page star' });
      await commentBy(t, 'pager', '/star');
      const other = await commentBy(t, 'pager', '/elsewhere');
      await t.server.services.system.ask(BadgeUserKind, badgeUserActorId(t.tenant.tenantId, 'pager'), 'applyConfig', { badgeIds: [], pageBadgeIds: [page._id], override: false, update: false, urlId: '/star' });
      const badge = (await held('pager', page._id)) as unknown as { urlId: string };
      assert.equal(badge.urlId, '/star');
      const onStar = await commentBy(t, 'pager', '/star');
      const shown = (id: string) => t.api<{ comment: { badges?: { displayLabel: string }[] } }>('GET', `/api/v1/comments/${id}`);
      assert.deepEqual((await shown(onStar)).body.comment.badges?.map((b) => b.displayLabel), ['Page star']);
      assert.equal((await shown(other)).body.comment.badges, undefined);
    });

    test('a veteran badge is awarded on the first activity once the first comment is older than its threshold', async () => {
      const veteran = await addBadge(t, { type: 3, veteranUserThresholdMillis: 7 * 86_400_000, displayLabel: 'Veteran' });
      await commentBy(t, 'old-timer', '/vet');
      await eventually(async () => (await t.api('GET', '/api/v1/user-badge-progress/user/old-timer')).status === 200, 30_000);
      await commentBy(t, 'old-timer', '/vet');
      await eventually(async () => ((await t.api<{ userBadgeProgress: { progress: Record<string, number> } }>('GET', '/api/v1/user-badge-progress/user/old-timer')).body.userBadgeProgress?.progress['0']) === 2, 30_000);
      assert.equal(await held('old-timer', veteran._id), undefined, 'not yet a week');
      const restore = clock.set(() => Date.now() + 8 * 86_400_000);
      try {
        await commentBy(t, 'old-timer', '/vet');
        await eventually(async () => (await held('old-timer', veteran._id)) !== undefined, 30_000);
      } finally {
        restore();
      }
    });
  });
}
