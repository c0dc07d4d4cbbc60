import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventually } from '../fixtures/eventually.js';
import { demoHeaders, spawnServer } from '../fixtures/server-process.js';
import { storages } from '../fixtures/server.js';
import { withServerStorage } from '../fixtures/server-storage.js';
import { gate, WebhookReceiver } from '../fixtures/webhook-receiver.js';

const COMMENTS = 100;
/** Ten subscriptions (ten receivers' URLs), so each comment queues ten events. */
const RECEIVERS = Array.from({ length: 10 }, (_, i) => `/r${i}`);
const EVENTS = COMMENTS * RECEIVERS.length;

/**
 * A server killed with 1,000 webhook events pending (some of them in flight to a receiver that
 * does not answer): after a restart on the same storage every one of them is delivered.
 */
for (const storage of storages()) {
  describe(`webhooks across a crash on ${storage}`, () => {
    test('SIGKILL with 1,000 events pending: after the restart every one is delivered', () =>
      withServerStorage(storage, 'webhook-crash', async (env) => {
        const held = gate<number>();
        let answering = false;
        const receiver = await WebhookReceiver.start(() => (answering ? 200 : held.promise));
        const serverEnv = { ...env, WEBHOOK_ALLOW_PRIVATE: 'true' };
        try {
          const first = await spawnServer(serverEnv);
          const headers = demoHeaders(first);
          const api = async (method: string, path: string, body?: unknown) => {
            const res = await fetch(first.url + path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
            return { status: res.status, body: (await res.json()) as Record<string, unknown> };
          };
          for (const path of RECEIVERS) assert.equal((await api('POST', '/api/v1/webhooks', { url: receiver.url(path), event: 'comment-created' })).status, 200);
          let next = 0;
          const worker = async () => {
            for (let n = next++; n < COMMENTS; n = next++) {
              const res = await api('POST', '/api/v1/comments', { commenterName: 'Ann', comment: `crash ${n}`, url: `https://example.com/crash-${n % 10}`, urlId: `crash-${n % 10}`, locale: 'en_us' });
              assert.equal(res.status, 200, JSON.stringify(res.body));
            }
          };
          await Promise.all(Array.from({ length: 8 }, worker));
          // Every comment was acknowledged, so its events are durable: a thousand, none delivered.
          assert.equal((await api('GET', '/api/v1/pending-webhook-events/count')).body['count'], EVENTS);
          await eventually(async () => receiver.open > 0, 30_000);
          const inFlightAtKill = new Set(receiver.received.map((h) => h.headers['webhook-id']));
          await first.kill('SIGKILL');

          answering = true;
          held.open(200);
          const before = receiver.received.length;
          const second = await spawnServer(serverEnv);
          try {
            const delivered = () => new Set(receiver.received.slice(before).map((h) => h.headers['webhook-id']));
            await eventually(async () => delivered().size >= EVENTS, 90_000);
            assert.equal(delivered().size, EVENTS, 'a thousand distinct events delivered after the restart');
            for (const id of inFlightAtKill) assert.ok(delivered().has(id), 'an event in flight at the crash is sent again, with the same webhook-id');
            await eventually(async () => {
              const res = await fetch(`${second.url}/api/v1/pending-webhook-events/count`, { headers });
              return ((await res.json()) as { count: number }).count === 0;
            }, 30_000);
          } finally {
            await second.kill('SIGTERM');
          }
        } finally {
          held.open(200);
          await receiver.close();
        }
      }));
  });
}
