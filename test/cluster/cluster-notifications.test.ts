/**
 * Notifications in cluster mode: a reply's job, the recipient's actor and the widgets listening
 * to the recipient may sit on different nodes. Readers connect through the shared port (the
 * kernel spreads them over both nodes); each gets the notification and the new unread count
 * once, and the stored notification is the only one. Nothing depends on timing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LiveEvent } from '../../actors/live/live-events.js';
import { startTestCluster, type TestCluster } from '../fixtures/cluster.js';
import { clusterTestsEnabled } from '../fixtures/nats.js';
import { LiveClient } from '../unit/live/fixtures.js';
import { call, comment } from './helpers.js';

const enabled = clusterTestsEnabled();

describe('cluster mode: notifications', { skip: !enabled }, () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster({ nodes: 2 });
  });
  after(async () => {
    await c?.destroy();
  });

  test('a reply through one node notifies its parent author live on every node, once', async () => {
    for (const name of ['ann', 'bob']) {
      const made = await call(c, 'POST', '/api/v1/sso-users', { id: name, username: name, email: `${name}@example.org` });
      assert.equal(made.status, 200, JSON.stringify(made.body));
    }
    const ann = `${c.tenant.tenantId}:ann`;
    const urlId = '/cluster/notify';
    const root = await comment(c, urlId, { userId: ann });
    const page = await call<{ urlIdWS: string; tenantIdWS: string; userIdWS: string }>(c, 'GET', `/api/v1/comments?urlId=${encodeURIComponent(urlId)}&contextUserId=${encodeURIComponent(ann)}`);
    assert.equal(page.status, 200);
    const { urlIdWS, tenantIdWS, userIdWS } = page.body;
    const subUrl = `ws://127.0.0.1:${c.port}/sub?urlId=${encodeURIComponent(urlIdWS)}&tenantIdWS=${encodeURIComponent(tenantIdWS)}&userIdWS=${encodeURIComponent(userIdWS)}`;
    const readers = await Promise.all(Array.from({ length: 6 }, () => LiveClient.connect(subUrl)));

    const reply = await comment(c, urlId, { userId: `${c.tenant.tenantId}:bob`, commenterName: 'bob', parentId: root });
    for (const reader of readers) {
      const seen: LiveEvent[] = [];
      while (!seen.some((e) => e.type === 'notification-update')) {
        const event = await reader.next();
        if (event.type === 'notification' || event.type === 'notification-update') seen.push(event);
      }
      assert.deepEqual(
        seen.map((e) => e.type),
        ['notification', 'notification-update'],
      );
      assert.equal((seen[0]!['notification'] as { fromCommentId: string }).fromCommentId, reply);
      assert.deepEqual(seen[1]!['changes'], { count: 1 });
      reader.close();
    }
    const listed = await call<{ notifications: { fromCommentId: string }[] }>(c, 'GET', `/api/v1/notifications?userId=${encodeURIComponent(ann)}`);
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.notifications.map((n) => n.fromCommentId),
      [reply],
    );
  });
});
