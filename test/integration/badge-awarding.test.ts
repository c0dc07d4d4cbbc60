/**
 * Awarding under concurrency: a thousand up-votes at once across one user's comments on two
 * pages cross a badge's threshold once, and the badge is stored once; fifty identical awards
 * by the API at once give one badge and 49 refusals.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BADGE_COLLECTIONS } from '../../actors/badge/badge-model.js';
import { eventually } from '../fixtures/eventually.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { addBadge, badgesOf, commentBy, progressOf } from './badge-helpers.js';

const VOTES = 1000;
const COMMENTS = 10;

for (const storage of storages()) {
  describe(`badge awarding under concurrency on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage);
    });
    after(async () => {
      await t.destroy();
    });

    test(`${VOTES} concurrent up-votes across one user's comments award each threshold badge exactly once`, async () => {
      const half = await addBadge(t, { type: 1, threshold: VOTES / 2, displayLabel: 'Half' });
      const all = await addBadge(t, { type: 1, threshold: VOTES, displayLabel: 'All' });
      const beyond = await addBadge(t, { type: 1, threshold: VOTES + 1, displayLabel: 'Beyond' });
      const comments: string[] = [];
      for (let i = 0; i < COMMENTS; i++) comments.push(await commentBy(t, 'star', i % 2 === 0 ? '/hot-a' : '/hot-b'));
      const voters = VOTES / COMMENTS;
      const results = await Promise.all(
        Array.from({ length: VOTES }, (_, i) =>
          t.api('POST', '/api/v1/votes', { query: { commentId: comments[i % COMMENTS]!, direction: 'up', userId: `fan-${Math.floor(i / COMMENTS) % voters}` } }),
        ),
      );
      assert.deepEqual(results.filter((r) => r.status !== 200).map((r) => r.body), []);
      await eventually(async () => (await progressOf(t, 'star'))?.progress['1'] === VOTES, 120_000);
      await eventually(async () => (await t.server.services.store.count(BADGE_COLLECTIONS.events, { userId: 'star' })) === 0, 60_000);
      const held = await badgesOf(t, 'star');
      assert.deepEqual(held.map((b) => b.badgeId).sort(), [half._id, all._id].sort());
      for (const badge of [half, all, beyond]) {
        const stored = await t.server.services.store.count(BADGE_COLLECTIONS.userBadges, { tenantId: t.tenant.tenantId, badgeId: badge._id });
        assert.equal(stored, badge === beyond ? 0 : 1, badge._id);
      }
    });

    test('fifty identical awards at once: one badge, 49 refusals', async () => {
      const badge = await addBadge(t, { type: 4 });
      await commentBy(t, 'eve', '/race');
      const results = await Promise.all(Array.from({ length: 50 }, () => t.api('POST', '/api/v1/user-badges', { body: { userId: 'eve', badgeId: badge._id } })));
      assert.equal(results.filter((r) => r.status === 200).length, 1);
      assert.ok(results.filter((r) => r.status !== 200).every((r) => r.status === 409 && r.body['code'] === 'badge-already-awarded'));
      assert.equal(await t.server.services.store.count(BADGE_COLLECTIONS.userBadges, { tenantId: t.tenant.tenantId, badgeId: badge._id }), 1);
    });
  });
}
