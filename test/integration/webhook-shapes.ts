/**
 * Calls of the pending-webhook-event operations with valid input, for the OpenAPI wire-shape
 * test: a subscription to a receiver that always answers 500 keeps a comment's event pending
 * (with an attempt and its error recorded), which is then listed, counted and deleted.
 * Needs a server started with `webhookAllowPrivate`.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from '../fixtures/eventually.js';
import type { TestServer } from '../fixtures/server.js';

function ok<T>(r: { status: number; body: T }, what: string): T {
  assert.equal(r.status, 200, `${what}: ${JSON.stringify(r.body)}`);
  return r.body;
}

export async function callWebhookOperations(t: TestServer): Promise<void> {
  let attempts = 0;
  const receiver = createServer((req, res) => {
    attempts++;
    req.resume();
    res.writeHead(500).end('not today');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    ok(await t.api('POST', '/api/v1/webhooks', { body: { url, event: 'comment-created', domain: 'blog.example', method: 'POST' } }), 'subscribe');
    ok(
      await t.api('POST', '/api/v1/comments', { body: { commenterName: 'Hook', comment: 'for the receiver', url: 'https://blog.example/hooks', urlId: '/hooks', locale: 'en_us' } }),
      'a comment with a subscription',
    );
    type Pending = { pendingWebhookEvents: { _id?: string; id?: string; attemptCount: number }[] };
    let pending: Pending['pendingWebhookEvents'] = [];
    await eventually(async () => {
      pending = ok(await t.api<Pending>('GET', '/api/v1/pending-webhook-events'), 'pending events').pendingWebhookEvents;
      return attempts > 0 && pending.length === 1 && pending[0]!.attemptCount > 0;
    }, 60_000);
    ok(await t.api('GET', '/api/v1/pending-webhook-events/count'), 'pending event count');
    const id = pending[0]!._id ?? pending[0]!.id;
    ok(await t.api('DELETE', `/api/v1/pending-webhook-events/${id}`), 'delete a pending event');
  } finally {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}
