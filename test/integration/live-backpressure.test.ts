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

const STEPS = 200;
const PAYLOAD = 'x'.repeat(50_000);

/** 50 KB that fill the sockets; presence updates are not logged, so storage is spared them. */
function bulk(seq: number): LiveEvent {
  return { type: LIVE_EVENT_TYPES.presenceUpdate, timestamp: 0, seq, uj: [PAYLOAD] };
}

/** A small event that is logged: what the slow subscriber must get back by catching up. */
function vote(seq: number): LiveEvent {
  return { type: LIVE_EVENT_TYPES.newVote, timestamp: 0, seq, vote: { _id: `v${seq}` } };
}

function parse(text: string): { type: string; seq: number; timestamp: number } {
  return JSON.parse(text) as { type: string; seq: number; timestamp: number };
}

/** The test's own frames (they carry `seq`): the server's presence frames of readers joining are left out. */
function ours(texts: readonly string[]): { type: string; seq: number; timestamp: number }[] {
  return texts.map(parse).filter((e) => e.seq !== undefined);
}

/** The next `count` of the test's own frames. */
async function takeOurs(client: LiveClient, count: number): Promise<{ type: string; seq: number; timestamp: number }[]> {
  const out: { type: string; seq: number; timestamp: number }[] = [];
  while (out.length < count) out.push(...ours(await client.take(1)));
  return out;
}

function voteSeqs(texts: readonly string[]): number[] {
  return texts.map(parse).filter((e) => e.type === LIVE_EVENT_TYPES.newVote).map((e) => e.seq);
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
      // The bulk frames are presence frames (never logged): the clients keep them.
      const keep = { presence: true };
      const fast = await subscribe(t, tenantId, '/slow', undefined, keep);
      const slow = await subscribe(t, tenantId, '/slow', undefined, keep);
      const stalled = await Promise.all(Array.from({ length: 60 }, () => subscribe(t, tenantId, '/slow', undefined, keep)));
      for (const client of [slow, ...stalled]) tcp(client).pause();

      const rssBefore = process.memoryUsage().rss;
      let rssPeak = rssBefore;
      // 10 MB for each subscriber, published as a page's commits would be: a few events per turn.
      for (let seq = 0; seq < STEPS; seq++) {
        t.server.services.bus.publish(topic, bulk(seq));
        t.server.services.bus.publish(topic, vote(seq));
        const got = await takeOurs(fast, 2);
        assert.deepEqual(got.map((e) => [e.type, e.seq]), [[LIVE_EVENT_TYPES.presenceUpdate, seq], [LIVE_EVENT_TYPES.newVote, seq]], 'a reading subscriber gets everything, in order');
        rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
      }
      // Unbounded buffering would hold 61 x 10 MB here; the server keeps at most
      // SUB_LIMITS.maxBackpressureBytes per subscriber (the rest is the log and the fast reader).
      const grownMb = (rssPeak - rssBefore) / 1e6;
      assert.ok(grownMb < 150, `memory grew by ${grownMb.toFixed(0)} MB`);
      assert.ok(SUB_LIMITS.maxBackpressureBytes <= 256 * 1024);

      tcp(slow).resume();
      const code = await slow.closed;
      assert.equal(code, 1006, 'the server closed the connection');
      const received = ours(slow.messages);
      assert.ok(received.length > 0 && received.length < 2 * STEPS, `received ${received.length} before the cut`);
      assert.deepEqual(
        received.map((e) => e.seq),
        Array.from({ length: received.length }, (_, i) => Math.floor(i / 2)),
        'what arrived is an unbroken prefix',
      );

      // What every official client does next: catch up from the last timestamp it saw.
      const lastSeen = received.at(-1)!.timestamp;
      const log = await t.api<{ events: { data: string }[] }>('GET', `/event-log/${tenantId}`, { auth: 'none', query: { urlId: '/slow', startTime: lastSeen } });
      const caughtUp = voteSeqs(log.body.events.map((entry) => entry.data));
      assert.deepEqual([...new Set([...voteSeqs(slow.messages), ...caughtUp])], Array.from({ length: STEPS }, (_, i) => i));

      for (const client of stalled) {
        tcp(client).resume();
        assert.equal(await client.closed, 1006);
      }
      fast.close();
    });
  });
}
