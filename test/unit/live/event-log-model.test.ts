import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LiveEvent } from '../../../actors/live/live-events.js';
import {
  chunksToDrop,
  EntryIds,
  type EventLogDoc,
  type EventLogLimits,
  insertChunk,
  loadedChunk,
  type LogChunk,
  storeChunk,
  unseenEntries,
  windowJson,
} from '../../../actors/live/event-log-model.js';

const LIMITS: EventLogLimits = { maxEventsPerPage: 5, maxBytesPerPage: 1_000_000, maxReadBytes: 1_000_000, retentionMs: 1000, sweepBatch: 10 };

function doc(id: string, at: number, timestamp = at): EventLogDoc {
  return { _id: id, tenantId: 't', urlId: '/p', at, timestamp, broadcastId: id, event: { id } as unknown as LiveEvent };
}

const PAGE = { tenantId: 't', urlId: '/p' };

/** The page's chunks after appending each batch as the actor does. */
function appendAll(batches: EventLogDoc[][]): LogChunk[] {
  const chunks: LogChunk[] = [];
  for (const batch of batches) {
    const added = unseenEntries(chunks, batch, PAGE.tenantId, PAGE.urlId);
    if (added.length > 0) insertChunk(chunks, storeChunk(added).chunk);
  }
  return chunks;
}

const read = (chunks: readonly LogChunk[], start = 0, end = Number.MAX_SAFE_INTEGER, now = 1500, limits = LIMITS) =>
  (JSON.parse(windowJson(chunks, PAGE, start, end, now, limits).json) as { _id: string }[]).map((e) => e._id);

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

describe('appending entries', () => {
  test('appends in order, skips ids already logged, and places a late batch by id', () => {
    const chunks: LogChunk[] = [];
    const append = (batch: EventLogDoc[]) => {
      const added = unseenEntries(chunks, batch, PAGE.tenantId, PAGE.urlId);
      if (added.length > 0) insertChunk(chunks, storeChunk(added).chunk);
      return added.map((d) => d._id);
    };
    assert.deepEqual(append([doc('b', 2), doc('c', 3)]), ['b', 'c']);
    assert.deepEqual(append([doc('c', 3), doc('d', 4)]), ['d'], 'a retried entry is not stored twice');
    assert.deepEqual(append([doc('e', 5), doc('a', 1), doc('a', 1)]), ['a', 'e'], 'a late batch is sorted and repeats dropped');
    assert.deepEqual(read(chunks, 0, 100, 10), ['a', 'b', 'c', 'd', 'e'], 'interleaved chunks are read in id order');
    assert.deepEqual(chunks.map((c) => c.id), ['a', 'b', 'd']);
  });

  test('a chunk records its bounds: last id, count, newest receipt, event timestamps', () => {
    const { chunk, writes } = storeChunk([doc('a', 100, 7), doc('b', 90, 9), doc('c', 95, 8)]);
    assert.deepEqual({ ...chunk, entriesJson: undefined }, { id: 'a', lastId: 'c', count: 3, at: 100, firstTimestamp: 7, lastTimestamp: 9, bytes: Buffer.byteLength(chunk.entriesJson), entriesJson: undefined, items: undefined });
    assert.deepEqual(writes.map((w) => w.op === 'put' && w.doc._id), ['a', 'a']);
  });
});

describe('loading chunks', () => {
  test('a chunk stored before its bounds were recorded gets them from its entries', () => {
    const { chunk } = storeChunk([doc('a', 1000, 10), doc('b', 1001, 30), doc('c', 1002, 20)]);
    const old = loadedChunk({ _id: 'a', tenantId: 't', urlId: '/p', at: 1002, count: 3 }, { _id: 'a', entriesJson: chunk.entriesJson });
    assert.deepEqual([old.lastId, old.count, old.firstTimestamp, old.lastTimestamp], ['c', 3, 10, 30]);
    assert.deepEqual(read([old], 15, 30), ['b', 'c']);
  });

  test('a chunk without its body holds nothing', () => {
    const lost = loadedChunk({ _id: 'a', tenantId: 't', urlId: '/p', at: 1002, count: 3, lastId: 'c', firstTimestamp: 1, lastTimestamp: 3 }, undefined);
    assert.equal(lost.count, 0);
    assert.deepEqual(read([lost]), []);
  });
});

describe('retention', () => {
  // Seven chunks of one entry each, received 100 ms apart.
  const chunks = appendAll(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((id, i) => [doc(id, 1000 + i * 100)]));

  test('keeps the chunks holding the newest maxEventsPerPage entries', () => {
    assert.equal(chunksToDrop(chunks, 1000, LIMITS), 2);
    assert.equal(chunksToDrop(chunks.slice(0, 5), 1000, LIMITS), 0);
  });

  test('drops chunks whose entries are all older than retentionMs, oldest first', () => {
    assert.equal(chunksToDrop(chunks, 2300, LIMITS), 3);
    assert.equal(chunksToDrop(chunks, 10_000, LIMITS), 7);
    assert.equal(chunksToDrop([], 10_000, LIMITS), 0);
  });

  test('a chunk reaching into the newest entries is kept whole, and reads serve only those', () => {
    const big = appendAll([[doc('a', 1000), doc('b', 1000), doc('c', 1000)], [doc('d', 1000), doc('e', 1000), doc('f', 1000)]]);
    assert.equal(chunksToDrop(big, 1000, LIMITS), 0, 'the first chunk still holds one of the newest five');
    assert.deepEqual(read(big), ['b', 'c', 'd', 'e', 'f']);
  });
});

describe('catch-up windows', () => {
  const chunks = appendAll([[doc('a', 1000, 10), doc('b', 1001, 20)], [doc('c', 1002, 20), doc('d', 1003, 30)]]);

  test('both ends are inclusive, and the answer is oldest first', () => {
    assert.deepEqual(read(chunks, 20, 30), ['b', 'c', 'd']);
    assert.deepEqual(read(chunks, 0, 20), ['a', 'b', 'c']);
    assert.deepEqual(read(chunks, 21, 29), []);
  });

  test('expired entries are never served', () => {
    assert.deepEqual(read(chunks, 0, 100, 2001), ['b', 'c', 'd']);
    assert.deepEqual(read(chunks, 0, 100, 10_000), []);
  });

  test('a chunk whose timestamps miss the window is not parsed', () => {
    const fresh = appendAll([[doc('a', 1000, 10), doc('b', 1001, 20)], [doc('c', 1002, 30)]]);
    assert.deepEqual(read(fresh, 25, 40), ['c']);
    assert.equal(fresh[0]!.items, undefined);
    assert.equal(fresh[1]!.items?.length, 1);
  });

  test('each entry is the API description\'s EventLogEntry', () => {
    const [entry] = JSON.parse(windowJson(chunks, PAGE, 10, 10, 1500, LIMITS).json) as Record<string, unknown>[];
    assert.deepEqual(entry, { _id: 'a', createdAt: new Date(1000).toISOString(), tenantId: 't', urlId: '/p', broadcastId: 'a', data: '{"id":"a"}' });
  });
});

describe('bounds in bytes', () => {
  const big = (id: string, at: number) => ({ ...doc(id, at), event: { id, text: 'x'.repeat(1000) } as unknown as LiveEvent });

  test('retention keeps the newest chunks that fit in maxBytesPerPage, and always the newest', () => {
    const chunks = appendAll([[big('a', 1000)], [big('b', 1001)], [big('c', 1002)], [big('d', 1003)]]);
    const perChunk = chunks[0]!.bytes;
    assert.ok(perChunk > 1000);
    const limits = { ...LIMITS, maxEventsPerPage: 100, maxBytesPerPage: perChunk * 2 };
    assert.equal(chunksToDrop(chunks, 1100, limits), 2);
    assert.equal(chunksToDrop(chunks, 1100, { ...limits, maxBytesPerPage: 10 }), 3, 'the newest chunk stays, however big');
  });

  test('a read stops at maxReadBytes (after at least one entry) and says there is more', () => {
    const chunks = appendAll([[big('a', 1000), big('b', 1001), big('c', 1002)]]);
    const whole = windowJson(chunks, PAGE, 0, Number.MAX_SAFE_INTEGER, 1100, LIMITS);
    assert.equal(whole.more, false);
    const one = (JSON.parse(whole.json) as { data: string }[])[0]!;
    const limits = { ...LIMITS, maxReadBytes: Buffer.byteLength(JSON.stringify(one)) * 2 + 1 };
    const first = windowJson(chunks, PAGE, 0, Number.MAX_SAFE_INTEGER, 1100, limits);
    assert.deepEqual([(JSON.parse(first.json) as unknown[]).length, first.more], [2, true]);
    const tiny = windowJson(chunks, PAGE, 0, Number.MAX_SAFE_INTEGER, 1100, { ...LIMITS, maxReadBytes: 1 });
    assert.deepEqual([(JSON.parse(tiny.json) as unknown[]).length, tiny.more], [1, true]);
  });
});
