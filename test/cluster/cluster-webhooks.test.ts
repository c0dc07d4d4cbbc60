/**
 * Webhooks in cluster mode: page actors on any node queue the events in their own batches and
 * announce them to the tenant's webhooks actor, wherever its shard lives; that node's sender
 * delivers them. Nothing here depends on timing, only on what arrives.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../fixtures/eventually.js';
import { startTestCluster, type TestCluster } from '../fixtures/cluster.js';
import { clusterTestsEnabled } from '../fixtures/nats.js';
import { WebhookReceiver } from '../fixtures/webhook-receiver.js';

const enabled = clusterTestsEnabled();

describe('cluster mode: webhooks', { skip: !enabled }, () => {
  let receiver: WebhookReceiver;
  let c: TestCluster;
  before(async () => {
    receiver = await WebhookReceiver.start();
    c = await startTestCluster({ nodes: 2, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  });
  after(async () => {
    await c?.destroy();
    await receiver?.close();
  });

  test('comments changed through any node reach the receiver, in order per comment, and nothing stays pending', async () => {
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(c.url + path, { method, headers: c.headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      const text = await res.text();
      assert.equal(res.status, 200, `${method} ${path}: ${text}`);
      return JSON.parse(text) as Record<string, unknown>;
    };
    const url = receiver.url('/cluster');
    for (const [event, method] of [['comment-created', 'POST'], ['comment-updated', 'PUT'], ['comment-deleted', 'DELETE']]) await call('POST', '/api/v1/webhooks', { url, event, method });
    const ids = await Promise.all(
      Array.from({ length: 12 }, async (_, n) => {
        const created = await call('POST', '/api/v1/comments', { commenterName: 'Ann', comment: `one ${n}`, url: `https://example.com/c${n % 6}`, urlId: `c${n % 6}`, locale: 'en_us' });
        const id = (created['comment'] as { _id: string })._id;
        await call('PATCH', `/api/v1/comments/${id}`, { comment: `two ${n}` });
        await call('DELETE', `/api/v1/comments/${id}`);
        return id;
      }),
    );
    await eventually(async () => new Set(receiver.received.map((h) => h.headers['webhook-id'])).size >= 36, 60_000);
    for (const id of ids) {
      const methods = receiver.received.filter((h) => h.json['id'] === id).map((h) => h.method);
      // At-least-once: a delivery may repeat (a shard moving), never come before the one it follows.
      const firsts = methods.filter((m, i) => methods.indexOf(m) === i);
      assert.deepEqual(firsts, ['POST', 'PUT', 'DELETE'], `comment ${id}`);
    }
    await eventually(async () => (await call('GET', '/api/v1/pending-webhook-events/count'))['count'] === 0, 60_000);
  });
});
