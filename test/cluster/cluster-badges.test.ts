/**
 * Badges and the feed in cluster mode: up-votes through every node, on pages whose actors live
 * on any node, reach the author's badge actor wherever its shard lives, and its threshold badge
 * is stored once; a feed post made through one node is listed and reacted to through the others.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BADGE_COLLECTIONS } from '../../actors/badge/badge-model.js';
import { eventually } from '../fixtures/eventually.js';
import { startTestCluster, type TestCluster } from '../fixtures/cluster.js';
import { clusterTestsEnabled } from '../fixtures/nats.js';
import { call, comment, pool } from './helpers.js';

const enabled = clusterTestsEnabled();
const VOTES = 300;
const PAGES = 6;

describe('cluster mode: badges and the feed', { skip: !enabled }, () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster({ nodes: 2 });
  });
  after(async () => {
    await c?.destroy();
  });

  test(`${VOTES} up-votes through every node award a threshold badge exactly once`, async () => {
    const badge = await call<{ tenantBadge: { _id: string } }>(c, 'POST', '/api/v1/tenant-badges', { type: 1, threshold: VOTES / 2, displayLabel: 'Liked' });
    assert.equal(badge.status, 200, JSON.stringify(badge.body));
    const comments: string[] = [];
    for (let i = 0; i < PAGES; i++) comments.push(await comment(c, `/cluster-badge-${i}`, { userId: 'star' }));
    const replies = await pool(VOTES, 32, async (i) => {
      for (let attempt = 0; ; attempt++) {
        const r = await call(c, 'POST', `/api/v1/votes?commentId=${comments[i % PAGES]}&direction=up&userId=fan-${i}`);
        // A 503 may come after the vote was made durable (its outcome unknown): the retry then finds it.
        if (attempt > 0 && r.status === 409 && r.body['code'] === 'duplicate') return 200;
        if (r.status !== 503 || attempt >= 20) return r.status === 200 ? 200 : `${r.status} ${JSON.stringify(r.body)}`;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    });
    assert.deepEqual(replies.filter((s) => s !== 200), []);
    await eventually(async () => {
      const r = await call<{ userBadgeProgress: { progress: Record<string, number> } }>(c, 'GET', '/api/v1/user-badge-progress/user/star');
      return r.status === 200 && r.body.userBadgeProgress.progress['1'] === VOTES;
    }, 120_000);
    const store = await c.store();
    assert.equal(await store.count(BADGE_COLLECTIONS.userBadges, { tenantId: c.tenant.tenantId, badgeId: badge.body.tenantBadge._id }), 1);
    await eventually(async () => (await store.count(BADGE_COLLECTIONS.events, { tenantId: c.tenant.tenantId })) === 0, 60_000);
  });

  test('a feed post made through one node is listed, changed and reacted to through any node', async () => {
    assert.equal((await call(c, 'POST', '/api/v1/sso-users', { id: 'poster', username: 'poster', email: 'poster@example.com' })).status, 200);
    const made = await call<{ feedPost: { _id: string } }>(c, 'POST', '/api/v1/feed-posts', { fromUserId: 'poster', title: 'Across nodes' });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const id = made.body.feedPost._id;
    for (let i = 0; i < 6; i++) {
      const listed = await call<{ feedPosts: { _id: string; title: string }[] }>(c, 'GET', '/api/v1/feed-posts');
      assert.equal(listed.body.feedPosts[0]?._id, id);
    }
    assert.equal((await call(c, 'PATCH', `/api/v1/feed-posts/${id}`, { title: 'Changed' })).status, 200);
    for (let i = 0; i < 6; i++) {
      const listed = await call<{ feedPosts: { title: string }[] }>(c, 'GET', '/api/v1/feed-posts');
      assert.equal(listed.body.feedPosts[0]?.title, 'Changed', 'no node serves the answer it kept before the change');
    }
  });
});
