import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LiveEvent } from '../../../actors/live/live-events.js';
import {
  EntryIds,
  entriesToDrop,
  type EventLogDoc,
  type EventLogLimits,
  type LogItem,
  mergeEntries,
  toItem,
  windowJson,
} from '../../../actors/live/event-log-model.js';

const LIMITS: EventLogLimits = { maxEventsPerPage: 5, retentionMs: 1000, sweepBatch: 10 };

function doc(id: string, at: number, timestamp = at): EventLogDoc {
  return { _id: id, tenantId: 't', urlId: '/p', at, timestamp, broadcastId: id, event: { id } as unknown as LiveEvent };
}

function ids(items: readonly LogItem[]): string[] {
  return items.map((item) => item.id);
}

describe('entry ids', () => {
  test('sort in the order they were made, even when the clock steps back', () => {
    const source = new EntryIds();
    const made = [1000, 1000, 999, 5000, 4000, 4000].map((now) => source.next(now));
    const sorted = made.map((m) => m.id).sort();
    assert.deepEqual(sorted, made.map((m) => m.id));
    assert.deepEqual(made.map((m) => m.at), [1000, 1000, 1000, 5000, 5000, 5000]);
  });

  test('two processes never make the same id', () => {
    assert.notEqual(new EntryIds().next(7).id, new EntryIds().next(7).id);
  });
});

describe('merging appended entries', () => {
  test('appends in order, skips ids already logged, and places a late batch by id', () => {
    const items: LogItem[] = [];
    let added = mergeEntries(items, [doc('b', 2), doc('c', 3)]);
    assert.deepEqual(ids(items), ['b', 'c']);
    assert.deepEqual(added.map((d) => d._id), ['b', 'c']);
    added = mergeEntries(items, [doc('c', 3), doc('d', 4)]);
    assert.deepEqual(ids(items), ['b', 'c', 'd']);
    assert.deepEqual(added.map((d) => d._id), ['d'], 'a retried entry is not stored twice');
    added = mergeEntries(items, [doc('a', 1), doc('a', 1), doc('e', 5)]);
    assert.deepEqual(ids(items), ['a', 'b', 'c', 'd', 'e']);
    assert.deepEqual(added.map((d) => d._id), ['a', 'e']);
  });
});

describe('retention', () => {
  const items = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((id, i) => toItem(doc(id, 1000 + i * 100), 'c'));

  test('keeps the newest maxEventsPerPage entries', () => {
    assert.equal(entriesToDrop(items, 1000, LIMITS), 2);
    assert.equal(entriesToDrop(items.slice(0, 5), 1000, LIMITS), 0);
  });

  test('drops entries older than retentionMs, oldest first', () => {
    assert.equal(entriesToDrop(items, 2300, LIMITS), 3);
    assert.equal(entriesToDrop(items, 10_000, LIMITS), 7);
    assert.equal(entriesToDrop([], 10_000, LIMITS), 0);
  });
});

describe('catch-up windows', () => {
  const items = [doc('a', 1000, 10), doc('b', 1001, 20), doc('c', 1002, 20), doc('d', 1003, 30)].map((d) => toItem(d, 'c'));
  const window = (start: number, end: number, now = 1500) => (JSON.parse(windowJson(items, start, end, now, LIMITS)) as { _id: string }[]).map((e) => e._id);

  test('both ends are inclusive, and the answer is oldest first', () => {
    assert.deepEqual(window(20, 30), ['b', 'c', 'd']);
    assert.deepEqual(window(0, 20), ['a', 'b', 'c']);
    assert.deepEqual(window(21, 29), []);
  });

  test('expired entries are never served', () => {
    assert.deepEqual(window(0, 100, 2001), ['b', 'c', 'd']);
    assert.deepEqual(window(0, 100, 10_000), []);
  });

  test('each entry is the API description\'s EventLogEntry', () => {
    const [entry] = JSON.parse(windowJson(items, 10, 10, 1500, LIMITS)) as Record<string, unknown>[];
    assert.deepEqual(entry, { _id: 'a', createdAt: new Date(1000).toISOString(), tenantId: 't', urlId: '/p', broadcastId: 'a', data: '{"id":"a"}' });
  });
});
