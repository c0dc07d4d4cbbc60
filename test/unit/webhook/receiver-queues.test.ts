import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type PendingWebhookEventDoc, PENDING_STATES } from '../../../actors/webhook/protocol.js';
import { ReceiverQueues, type StartLimits } from '../../../actors/webhook/receiver-queues.js';

let next = 0;
/** A pending event of `commentId` to `url`, created at `at` (ms). */
function event(commentId: string, at: number, url = 'https://r.example/a', extra: Partial<PendingWebhookEventDoc> = {}): PendingWebhookEventDoc {
  const id = `e${String(next++).padStart(6, '0')}`;
  return {
    _id: id,
    tenantId: 't',
    commentId,
    comment: { _id: commentId },
    externalId: null,
    createdAt: at,
    attemptCount: 0,
    nextAttemptAt: at,
    eventType: 0,
    type: 1,
    domain: '*',
    lastError: {},
    webhookId: 'w',
    url,
    method: 'POST',
    state: PENDING_STATES.pending,
    ...extra,
  };
}

const open = (inFlight: Iterable<string> = [], free = 100, perReceiver = 100): StartLimits => ({ free, perReceiver, inFlight: new Set(inFlight) });
const ids = (docs: readonly PendingWebhookEventDoc[]) => docs.map((d) => d._id);

describe('receiver queues', () => {
  test("only a comment's oldest event may start; the next waits until it is gone, whatever order they arrived in", () => {
    const q = new ReceiverQueues(10);
    const create = event('c1', 1);
    const update = event('c1', 2);
    const other = event('c2', 3);
    q.offer(update);
    q.offer(other);
    q.offer(create);
    assert.deepEqual(ids(q.due(10, open()).start), [create._id, other._id]);
    // In flight, the create still holds back the update.
    assert.deepEqual(ids(q.due(10, open([create._id, other._id])).start), []);
    // Failed and waiting for its retry: still holds it back.
    q.update({ ...create, attemptCount: 1, nextAttemptAt: 50 });
    const waiting = q.due(10, open([other._id]));
    assert.deepEqual(ids(waiting.start), []);
    assert.equal(waiting.nextAt, 50);
    q.remove(create._id);
    assert.deepEqual(ids(q.due(10, open([other._id])).start), [update._id]);
  });

  test('per receiver and per tenant limits, receivers taking turns; receivers are independent', () => {
    const q = new ReceiverQueues(10);
    const a = [0, 1, 2, 3].map((n) => event(`a${n}`, n, 'https://r.example/a'));
    const b = [0, 1, 2, 3].map((n) => event(`b${n}`, n, 'https://r.example/b'));
    for (const doc of [...a, ...b]) q.offer(doc);
    assert.equal(q.due(10, open([], 100, 2)).start.length, 4, 'two per receiver');
    assert.equal(q.due(10, open([a[0]!._id], 100, 2)).start.filter((d) => d.url.endsWith('/a')).length, 1, 'one in flight counts');
    const first = q.due(10, open([], 1, 4)).start;
    const second = q.due(10, open([], 1, 4)).start;
    assert.notEqual(first[0]!.url, second[0]!.url, 'with one slot, receivers take turns');
    // A stuck receiver (all of its share in flight) does not stop the other.
    assert.deepEqual(ids(q.due(10, open(ids(a.slice(0, 2)), 100, 2)).start), ids(b.slice(0, 2)));
  });

  test('a full window spills to storage and is read back once a quarter full, keeping held copies', () => {
    const q = new ReceiverQueues(4);
    const docs = [0, 1, 2, 3, 4, 5].map((n) => event(`c${n}`, n));
    for (const doc of docs) q.offer(doc);
    assert.equal(q.size, 4);
    assert.deepEqual(q.refillable(), []);
    // Once spilled, even an event with room behind it stays in storage until the refill.
    q.remove(docs[0]!._id);
    q.offer(docs[5]!);
    assert.equal(q.get(docs[5]!._id), undefined);
    q.remove(docs[1]!._id);
    assert.deepEqual(q.refillable(), []);
    q.remove(docs[3]!._id);
    assert.deepEqual(q.refillable(), ['https://r.example/a']);
    q.offer(docs[3]!);
    const attempted = { ...docs[2]!, attemptCount: 3 };
    q.update(attempted);
    q.refill('https://r.example/a', docs.slice(2));
    assert.equal(q.size, 4);
    assert.equal(q.get(docs[2]!._id)!.attemptCount, 3, 'the held copy (an attempt not yet stored) is kept');
    assert.deepEqual(q.refillable(), []);
    assert.deepEqual(ids(q.due(100, open()).start), ids(docs.slice(2)));
    // A refill that filled the window cannot know whether storage holds more: it reads again.
    for (const doc of docs.slice(2)) q.remove(doc._id);
    assert.equal(q.size, 0);
    assert.deepEqual(q.refillable(), ['https://r.example/a']);
    q.refill('https://r.example/a', []);
    assert.deepEqual(q.refillable(), []);
  });

  test('a refill drops held events storage no longer has', () => {
    const q = new ReceiverQueues(2);
    const docs = [0, 1, 2].map((n) => event(`c${n}`, n));
    for (const doc of docs) q.offer(doc);
    q.remove(docs[0]!._id);
    q.refill('https://r.example/a', [docs[2]!]);
    assert.equal(q.get(docs[1]!._id), undefined);
    assert.equal(q.size, 1);
  });

  test('events of a subscription, for removal', () => {
    const q = new ReceiverQueues(10);
    const mine = event('c1', 1, 'https://r.example/a', { webhookId: 'w1' });
    q.offer(mine);
    q.offer(event('c2', 2, 'https://r.example/a', { webhookId: 'w2' }));
    assert.deepEqual(q.idsOf('w1'), [mine._id]);
  });
});
