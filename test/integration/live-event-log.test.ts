import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { EVENT_LOG, EVENT_LOG_BODIES, EVENT_LOG_LIMITS } from '../../actors/live/event-log-model.js';
import { EventLogKind, eventLogActorId, EventLogSweeperKind, SWEEPER_ID } from '../../actors/live/event-log-protocol.js';
import { LIVE_EVENT_TYPES, type LiveEvent, pageTopic } from '../../actors/live/live-events.js';
import type { ProvisionedTenant } from '../../actors/tenant/provision.js';
import { clock } from '../../engine/clock.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { emit, LiveClient, storedEntries, subscribe, subUrl, voteEvent } from '../unit/live/fixtures.js';

interface Entry {
  _id: string;
  createdAt: string;
  tenantId: string;
  urlId: string;
  broadcastId: string;
  data: string;
}

interface LogAnswer {
  status: string;
  events: Entry[];
}

function seqs(answer: LogAnswer): number[] {
  return answer.events.map((entry) => (JSON.parse(entry.data) as { seq: number }).seq);
}

for (const storage of storages()) {
  describe(`event log on ${storage}`, () => {
    let t: TestServer;
    let other: ProvisionedTenant;
    let tenantId: string;
    const read = (query: Record<string, string | number>, tenant = tenantId, headers: Record<string, string> = {}) =>
      t.api<LogAnswer>('GET', `/event-log/${encodeURIComponent(tenant)}`, { auth: 'none', query, headers });

    before(async () => {
      t = await startTestServer(storage);
      other = await t.addTenant();
      tenantId = t.tenant.tenantId;
    });
    after(async () => {
      await t.destroy();
    });

    test('a subscriber that reconnects fetches what it missed, oldest first, from the last timestamp it saw', async () => {
      const topic = pageTopic(tenantId, '/catch-up');
      // Publication stamps come from the clock: these make them 0, 1000 (twice) and 2000 ms after base.
      const base = Date.now() + 60_000;
      const at = (offset: number) => clock.set(() => base + offset);
      const client = await subscribe(t, tenantId, '/catch-up');
      let restore = at(0);
      try {
        await emit(t, topic, [voteEvent(1)]);
        const [seen] = await client.take(1);
        client.close();
        await client.closed;
        restore();
        restore = at(1000);
        await emit(t, topic, [voteEvent(2), voteEvent(3)]);
        restore();
        restore = at(2000);
        await emit(t, topic, [voteEvent(4)]);

        const lastSeen = (JSON.parse(seen!) as LiveEvent).timestamp;
        assert.equal(lastSeen, base);
        const all = await read({ urlId: '/catch-up', startTime: lastSeen, endTime: base + 10_000 });
        assert.equal(all.status, 200);
        assert.equal(all.body.status, 'success');
        assert.deepEqual(seqs(all.body), [1, 2, 3, 4], 'the start is inclusive: nothing sharing the last millisecond is skipped');
        assert.deepEqual(all.body.events.map((e) => (JSON.parse(e.data) as LiveEvent).timestamp), [base, base + 1000, base + 1000, base + 2000]);
        const first = all.body.events[0]!;
        assert.equal(first.data, seen, 'the logged data is the websocket message');
        assert.deepEqual(Object.keys(first).sort(), ['_id', 'broadcastId', 'createdAt', 'data', 'tenantId', 'urlId']);
        assert.deepEqual([first.tenantId, first.urlId, first.broadcastId], [tenantId, '/catch-up', 'b1']);
        assert.equal(first.createdAt, new Date(base).toISOString());
        assert.deepEqual(
          all.body.events.map((e) => e._id),
          all.body.events.map((e) => e._id).sort(),
        );

        assert.deepEqual(seqs((await read({ urlId: '/catch-up', startTime: base + 1, endTime: base + 1000 })).body), [2, 3]);
        assert.deepEqual(seqs((await read({ urlId: '/catch-up', startTime: base + 2001 })).body), []);
        assert.deepEqual(seqs((await read({ urlId: '/catch-up', startTime: 0 })).body), [1, 2, 3, 4], 'endTime is optional');
      } finally {
        restore();
      }
    });

    test('timestamps never go backwards along a page\'s stream, whatever the publishers stamped', async () => {
      const topic = pageTopic(tenantId, '/stamps');
      const client = await subscribe(t, tenantId, '/stamps');
      // A late publisher's own stamp (as a poll actor whose commit finished after the page's would carry).
      await emit(t, topic, [voteEvent(1), voteEvent(2, { timestamp: 5 }), voteEvent(3)]);
      const stamps = (await client.take(3)).map((text) => (JSON.parse(text) as LiveEvent).timestamp);
      assert.ok(stamps[0]! <= stamps[1]! && stamps[1]! <= stamps[2]!, JSON.stringify(stamps));
      assert.ok(stamps[1]! > 5);
      client.close();
    });

    test('the widgets\' request forms are served with CORS; another tenant\'s ids get nothing; bad input is refused', async () => {
      const ids = t.server.services.liveIds;
      await emit(t, pageTopic(tenantId, '/forms'), [voteEvent(1, { timestamp: 50 })]);
      const origin = { origin: 'https://blog.example.com' };
      const plain = await read({ urlId: '/forms', startTime: 0 }, tenantId, origin);
      assert.deepEqual(seqs(plain.body), [1]);
      assert.equal(plain.headers.get('access-control-allow-origin'), 'https://blog.example.com');
      assert.equal(plain.headers.get('access-control-allow-credentials'), 'true');

      const slash = await t.api<LogAnswer>('GET', `/event-log/${tenantId}/`, { auth: 'none', query: { urlId: '/forms', startTime: 0 } });
      assert.deepEqual(seqs(slash.body), [1], 'the browser widget adds a trailing slash');
      assert.deepEqual(seqs((await read({ urlId: ids.urlIdWS(tenantId, '/forms'), startTime: 0 }, ids.tenantIdWS(tenantId))).body), [1]);
      assert.deepEqual(seqs((await read({ urlId: '/forms', startTime: 0, userIdWS: ids.userIdWS(tenantId, 'alice') })).body), [1]);
      assert.deepEqual(seqs((await read({ urlId: '/forms', startTime: 0, userIdWS: 'undefined' })).body), [1]);

      assert.deepEqual(seqs((await read({ urlId: '/forms', startTime: 0 }, other.tenantId)).body), []);
      assert.deepEqual(seqs((await read({ urlId: ids.urlIdWS(other.tenantId, '/forms'), startTime: 0 })).body), []);
      assert.deepEqual(seqs((await read({ urlId: '/forms', startTime: 0 }, ids.tenantIdWS(other.tenantId))).body), []);

      const refusals: [Record<string, string | number>, number, string][] = [
        [{ urlId: '/forms', startTime: 0, userIdWS: ids.userIdWS(other.tenantId, 'alice') }, 403, 'invalid-live-id'],
        [{ urlId: '/forms', startTime: 0, userIdWS: 'forged' }, 403, 'invalid-live-id'],
        [{ urlId: '/forms', startTime: 0, tenant: 'no-such-tenant' }, 401, 'invalid-tenant-id'],
        [{ urlId: '/forms' }, 400, 'missing-param'],
        [{ startTime: 0 }, 400, 'missing-url-id'],
        [{ urlId: '/forms', startTime: 'yesterday' }, 400, 'invalid-param'],
        [{ urlId: '/forms', startTime: -1 }, 400, 'invalid-param'],
        [{ urlId: '/forms', startTime: 10, endTime: 9 }, 400, 'invalid-param'],
        [{ urlId: '/forms', startTime: 0, since: 0 }, 400, 'unexpected-param'],
      ];
      for (const [{ tenant, ...query }, status, code] of refusals) {
        const r = await read(query, typeof tenant === 'string' ? tenant : tenantId, origin);
        assert.deepEqual([r.status, (r.body as unknown as Record<string, unknown>)['code']], [status, code], JSON.stringify(query));
        assert.equal(r.headers.get('access-control-allow-origin'), 'https://blog.example.com');
      }
    });

    test('logged events survive a restart, in order, with the same entries', async () => {
      const topic = pageTopic(tenantId, '/durable');
      for (let seq = 1; seq <= 20; seq++) await emit(t, topic, [voteEvent(seq)]);
      const before = (await read({ urlId: '/durable', startTime: 0 })).body;
      assert.deepEqual(seqs(before), Array.from({ length: 20 }, (_, i) => i + 1));
      t = await t.restart();
      const afterRestart = (await read({ urlId: '/durable', startTime: 0 })).body;
      assert.deepEqual(afterRestart, before);
    });

    test('any event is logged and survives a restart, whatever names its fields have', async () => {
      // Reaction ids become keys of a page-react event's counts, and a comment's meta rides in
      // its events: MongoDB could not store such names as document fields.
      const odd = voteEvent(1, { counts: { 'a.b': 1, $x: 2, '\u0000': 3 }, comment: { meta: { 'c.d': { $e: true } } } });
      await emit(t, pageTopic(tenantId, '/odd-names'), [odd]);
      const before = (await read({ urlId: '/odd-names', startTime: 0 })).body;
      assert.deepEqual(seqs(before), [1]);
      t = await t.restart();
      assert.deepEqual((await read({ urlId: '/odd-names', startTime: 0 })).body, before);
    });

    test('events published while the server shuts down are still logged', async () => {
      await emit(t, pageTopic(tenantId, '/shutdown'), [voteEvent(1)]);
      await t.server.services.system.shutdown(5000);
      // As an actor whose write became durable during the shutdown drain would do.
      t.server.services.bus.publish(pageTopic(tenantId, '/shutdown'), voteEvent(2));
      t = await t.restart();
      assert.deepEqual(seqs((await read({ urlId: '/shutdown', startTime: 0 })).body), [1, 2]);
    });

    test('events expire after 24 hours, and the sweeper drops them from pages gone quiet', async () => {
      const { system, store } = t.server.services;
      for (let seq = 1; seq <= 3; seq++) await emit(t, pageTopic(tenantId, '/quiet'), [voteEvent(seq)]);
      assert.deepEqual(seqs((await read({ urlId: '/quiet', startTime: 0 })).body), [1, 2, 3]);
      // A trim waits for the writes before it: after it, storage holds what memory holds.
      await system.ask(EventLogKind, eventLogActorId(tenantId, '/quiet'), 'trim', null);
      assert.equal(await storedEntries(store, { tenantId, urlId: '/quiet' }), 3);

      // An hour of margin: stamps never decrease, and an earlier test stamped with a clock set ahead.
      const restore = clock.set(() => Date.now() + EVENT_LOG_LIMITS.retentionMs + 3_600_000);
      try {
        assert.deepEqual(seqs((await read({ urlId: '/quiet', startTime: 0 })).body), [], 'expired events are not served');
        const swept = await system.ask(EventLogSweeperKind, SWEEPER_ID, 'sweep', null);
        assert.ok(swept.pages >= 1);
        assert.equal(await store.count(EVENT_LOG, {}), 0, 'every page gone quiet was swept');
        assert.equal(await store.count(EVENT_LOG_BODIES, {}), 0, 'with the entries of its chunks');
      } finally {
        restore();
      }
    });

    test('presence updates are fanned out but not logged', async () => {
      const ids = t.server.services.liveIds;
      const client = await LiveClient.connect(subUrl(t, { tenantIdWS: ids.tenantIdWS(tenantId), urlId: ids.urlIdWS(tenantId, '/presence') }), {}, { presence: true });
      await emit(t, pageTopic(tenantId, '/presence'), [{ type: LIVE_EVENT_TYPES.presenceUpdate, timestamp: 1, uj: ['u1'] }, voteEvent(1)]);
      // The server's own presence frame (this reader joining) may come in between.
      const seen: LiveEvent[] = [];
      while (!seen.some((e) => e.type === LIVE_EVENT_TYPES.newVote)) {
        const event = await client.next();
        if (event.type === LIVE_EVENT_TYPES.newVote || (event['uj'] as string[] | undefined)?.includes('u1')) seen.push(event);
      }
      assert.deepEqual(seen.map((e) => e.type), [LIVE_EVENT_TYPES.presenceUpdate, LIVE_EVENT_TYPES.newVote]);
      assert.deepEqual(seqs((await read({ urlId: '/presence', startTime: 0 })).body), [1]);
      client.close();
    });
  });
}
