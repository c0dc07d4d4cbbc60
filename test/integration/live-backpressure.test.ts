import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { LIVE_EVENT_TYPES, type LiveEvent, pageTopic } from '../../actors/live/live-events.js';
import { SUB_LIMITS } from '../../http/live/sub-channel.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { type LiveClient, subscribe } from '../unit/live/fixtures.js';

/** The client's TCP socket: pausing it stops reading, as a stalled browser tab or a slow phone would. */
function tcp(client: LiveClient): Socket {
  return (client.socket as unknown as { _socket: Socket })._socket;
}

const EVENTS = 400;
const PAYLOAD = 'x'.repeat(40_000);

function bigEvent(seq: number): LiveEvent {
  return { type: LIVE_EVENT_TYPES.newComment, timestamp: 1_000_000 + seq, seq, comment: { _id: `c${seq}`, commentHTML: PAYLOAD } };
}

function seqOf(text: string): number {
  return (JSON.parse(text) as { seq: number }).seq;
}

for (const storage of storages()) {
  describe(`slow subscribers on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage);
    });
    after(async () => {
      await t.destroy();
    });

    test('a subscriber that stops reading is disconnected, not silently skipped, and catches up from the log; memory stays bounded', async () => {
      const tenantId = t.tenant.tenantId;
      const topic = pageTopic(tenantId, '/slow');
      const fast = await subscribe(t, tenantId, '/slow');
      const slow = await subscribe(t, tenantId, '/slow');
      const stalled = await Promise.all(Array.from({ length: 30 }, () => subscribe(t, tenantId, '/slow')));
      for (const client of [slow, ...stalled]) tcp(client).pause();

      const rssBefore = process.memoryUsage().rss;
      let rssPeak = rssBefore;
      // 16 MB for each subscriber, published as a page's commits would be: a few events per turn.
      for (let seq = 0; seq < EVENTS; seq += 2) {
        t.server.services.bus.publish(topic, bigEvent(seq));
        t.server.services.bus.publish(topic, bigEvent(seq + 1));
        assert.deepEqual((await fast.take(2)).map(seqOf), [seq, seq + 1], 'a reading subscriber gets everything, in order');
        rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
      }
      // Unbounded buffering would hold 31 x 16 MB here; the server keeps at most
      // SUB_LIMITS.maxBackpressureBytes per subscriber (the rest is the log and the fast reader).
      const grownMb = (rssPeak - rssBefore) / 1e6;
      assert.ok(grownMb < 200, `memory grew by ${grownMb.toFixed(0)} MB`);
      assert.ok(SUB_LIMITS.maxBackpressureBytes <= 256 * 1024);

      tcp(slow).resume();
      const code = await slow.closed;
      assert.equal(code, 1006, 'the server closed the connection');
      const received = slow.messages.map(seqOf);
      assert.ok(received.length > 0 && received.length < EVENTS, `received ${received.length} before the cut`);
      assert.deepEqual(received, Array.from({ length: received.length }, (_, i) => i), 'what arrived is an unbroken prefix');

      // What every official client does next: catch up from the last timestamp it saw.
      const lastSeen = (JSON.parse(slow.messages.at(-1)!) as LiveEvent).timestamp;
      const log = await t.api<{ events: { data: string }[] }>('GET', `/event-log/${tenantId}`, { auth: 'none', query: { urlId: '/slow', startTime: lastSeen } });
      const caughtUp = log.body.events.map((entry) => seqOf(entry.data));
      assert.deepEqual([...new Set([...received, ...caughtUp])], Array.from({ length: EVENTS }, (_, i) => i));

      for (const client of stalled) {
        tcp(client).resume();
        assert.equal(await client.closed, 1006);
      }
      fast.close();
    });
  });
}
