import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LIVE_EVENT_TYPES, pageTopic, userTopic } from '../../actors/live/live-events.js';
import type { ProvisionedTenant } from '../../actors/tenant/provision.js';
import { EventLogKind, eventLogActorId } from '../../actors/live/event-log-protocol.js';
import { UserKind, userActorId } from '../../actors/user/protocol.js';
import { ApiError } from '../../engine/errors.js';
import { COLLECTIONS } from '../../storage/collections.js';
import { createStore } from '../../storage/create-store.js';
import { eventually } from '../fixtures/eventually.js';
import { InstrumentedStore } from '../fixtures/instrumented-store.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { emit, LiveClient, Refused, subscribe, subUrl, voteEvent } from '../unit/live/fixtures.js';

/** The close code of `client`, failing instead of hanging if it is still open after a while. */
function closeCode(client: LiveClient): Promise<number> {
  return Promise.race([
    client.closed,
    new Promise<number>((_, reject) => setTimeout(() => reject(new Error('the connection is still open')), 10_000).unref()),
  ]);
}

async function refusal(url: string): Promise<Refused> {
  try {
    const client = await LiveClient.connect(url);
    client.close();
  } catch (err) {
    if (err instanceof Refused) return err;
    throw err;
  }
  assert.fail(`the upgrade to ${url} was accepted`);
}

for (const storage of storages()) {
  describe(`live channel /sub on ${storage}`, () => {
    let t: TestServer;
    let other: ProvisionedTenant;
    let tenantId: string;
    before(async () => {
      t = await startTestServer(storage);
      other = await t.addTenant();
      tenantId = t.tenant.tenantId;
    });
    after(async () => {
      await t.destroy();
    });

    test('a page event reaches every subscriber of that page, and no subscriber of another page or tenant', async () => {
      const readers = await Promise.all([1, 2, 3].map(() => subscribe(t, tenantId, '/post/1')));
      const otherPage = await subscribe(t, tenantId, '/post/2');
      const otherTenant = await subscribe(t, other.tenantId, '/post/1');
      const withUser = await subscribe(t, tenantId, '/post/1', 'alice');

      await emit(t, pageTopic(tenantId, '/post/1'), [voteEvent(1)]);
      for (const reader of [...readers, withUser]) {
        const event = await reader.next();
        assert.equal(event.type, LIVE_EVENT_TYPES.newVote);
        // The public projection: no voter, whatever the publisher put in.
        assert.deepEqual(event.vote, { _id: 'v1', commentId: 'c1', userId: null, direction: 1, verificationId: null });
      }
      // Had the event leaked to the other subscribers, it would come before their own first event.
      await emit(t, pageTopic(tenantId, '/post/2'), [voteEvent(2)]);
      await emit(t, pageTopic(other.tenantId, '/post/1'), [voteEvent(3)]);
      assert.equal((await otherPage.next())['seq'], 2);
      assert.equal((await otherTenant.next())['seq'], 3);

      for (const client of [...readers, otherPage, otherTenant, withUser]) client.close();
    });

    test('user events reach only connections made with that user\'s userIdWS', async () => {
      const alice = await subscribe(t, tenantId, '/post/1', 'alice');
      const bob = await subscribe(t, tenantId, '/post/1', 'bob');
      const anonymous = await subscribe(t, tenantId, '/post/1');
      await emit(t, userTopic(tenantId, 'alice'), [{ type: LIVE_EVENT_TYPES.notification, timestamp: 1, notification: { _id: 'n1' } }]);
      await emit(t, pageTopic(tenantId, '/post/1'), [voteEvent(10)]);
      assert.equal((await alice.next()).type, LIVE_EVENT_TYPES.notification);
      assert.equal((await alice.next())['seq'], 10);
      assert.equal((await bob.next())['seq'], 10);
      assert.equal((await anonymous.next())['seq'], 10);
      for (const client of [alice, bob, anonymous]) client.close();
    });

    test('the text ping is answered with the text pong', async () => {
      const client = await subscribe(t, tenantId, '/post/1');
      client.socket.send('ping');
      assert.deepEqual(await client.take(1), ['pong']);
      client.socket.send('something else');
      client.socket.send('ping');
      assert.deepEqual(await client.take(1), ['pong'], 'other messages are ignored');
      client.socket.send('x'.repeat(2000));
      assert.notEqual(await client.closed, 1000, 'a message over the 1 KiB limit ends the connection');
    });

    test('events reach every subscriber once each, in commit order', async () => {
      const readers = await Promise.all([1, 2, 3, 4].map(() => subscribe(t, tenantId, '/ordered')));
      const topic = pageTopic(tenantId, '/ordered');
      // 150 messages to one actor, in flight together: their writes coalesce into few commits.
      const sent: Promise<null>[] = [];
      for (let seq = 0; seq < 150; seq++) sent.push(emit(t, topic, [voteEvent(2 * seq), voteEvent(2 * seq + 1)], 'ordered'));
      await Promise.all(sent);
      const expected = Array.from({ length: 300 }, (_, i) => i);
      for (const reader of readers) {
        const seqs = (await reader.take(300)).map((text) => (JSON.parse(text) as { seq: number }).seq);
        assert.deepEqual(seqs, expected);
      }
      for (const reader of readers) reader.close();
    });

    test('the message is the LiveEvent JSON, with % escaped so that decodeURIComponent leaves it intact', async () => {
      const client = await subscribe(t, tenantId, '/percent');
      const comment = { _id: 'c9', commentHTML: '<b>50% off</b> %20 %E2%82%AC %', comment: '50% off %20 %E2%82%AC %' };
      await emit(t, pageTopic(tenantId, '/percent'), [{ type: LIVE_EVENT_TYPES.newComment, timestamp: 5, comment }]);
      const [text] = await client.take(1);
      assert.ok(!text!.includes('%'));
      const event = JSON.parse(decodeURIComponent(text!)) as { comment: unknown; timestamp: number };
      assert.deepEqual(event.comment, comment);
      assert.deepEqual(JSON.parse(text!), event, 'clients that do not decode read the same event');
      client.close();
    });

    test('forged, incomplete and cross-tenant ids are refused with an APIError and an honest status', async () => {
      const ids = t.server.services.liveIds;
      const tenantIdWS = ids.tenantIdWS(tenantId);
      const urlIdWS = ids.urlIdWS(tenantId, '/post/1');
      const tamper = (id: string) => id.slice(0, -2) + (id.endsWith('AA') ? 'BB' : 'AA');
      const cases: [Record<string, string>, number, string][] = [
        [{ urlId: urlIdWS }, 400, 'missing-param'],
        [{ tenantIdWS }, 400, 'missing-param'],
        [{ tenantIdWS: tenantId, urlId: urlIdWS }, 403, 'invalid-live-id'],
        [{ tenantIdWS: tamper(tenantIdWS), urlId: urlIdWS }, 403, 'invalid-live-id'],
        [{ tenantIdWS, urlId: '/post/1' }, 403, 'invalid-live-id'],
        [{ tenantIdWS, urlId: tamper(urlIdWS) }, 403, 'invalid-live-id'],
        [{ tenantIdWS, urlId: ids.urlIdWS(other.tenantId, '/post/1') }, 403, 'invalid-live-id'],
        [{ tenantIdWS: ids.tenantIdWS(other.tenantId), urlId: urlIdWS }, 403, 'invalid-live-id'],
        [{ tenantIdWS, urlId: urlIdWS, userIdWS: ids.userIdWS(other.tenantId, 'alice') }, 403, 'invalid-live-id'],
        [{ tenantIdWS, urlId: urlIdWS, userIdWS: 'alice' }, 403, 'invalid-live-id'],
        [{ tenantIdWS: ids.tenantIdWS('no-such-tenant'), urlId: ids.urlIdWS('no-such-tenant', '/post/1') }, 401, 'invalid-tenant-id'],
      ];
      for (const [query, status, code] of cases) {
        const refused = await refusal(subUrl(t, query));
        assert.deepEqual([refused.status, refused.body['status'], refused.body['code']], [status, 'failed', code], JSON.stringify(query));
      }
      const repeated = await refusal(`${subUrl(t, { tenantIdWS, urlId: urlIdWS })}&urlId=${urlIdWS}`);
      assert.deepEqual([repeated.status, repeated.body['code']], [400, 'invalid-param']);

      // What the official widget sends when it has no user: accepted, page events only.
      const anonymous = await LiveClient.connect(subUrl(t, { tenantIdWS, urlId: urlIdWS, userIdWS: 'undefined' }));
      await emit(t, pageTopic(tenantId, '/post/1'), [voteEvent(20)]);
      assert.equal((await anonymous.next())['seq'], 20);
      anonymous.close();

      const plain = await t.api('GET', '/sub', { auth: 'none', query: { tenantIdWS, urlId: urlIdWS } });
      assert.deepEqual([plain.status, plain.body['code']], [426, 'websocket-required']);
    });

    test('a page that requires single sign-on is only for connections with a user id, live and in the log', async () => {
      const ids = t.server.services.liveIds;
      assert.equal((await t.api('PUT', '/api/v1/widget-config', { query: { urlId: '/members' }, body: { requireSSO: true } })).status, 200);
      const page = { tenantIdWS: ids.tenantIdWS(tenantId), urlId: ids.urlIdWS(tenantId, '/members') };
      const refused = await refusal(subUrl(t, page));
      assert.deepEqual([refused.status, refused.body['code']], [403, 'sso-required']);
      const member = await LiveClient.connect(subUrl(t, { ...page, userIdWS: ids.userIdWS(tenantId, 'member-1') }));
      await emit(t, pageTopic(tenantId, '/members'), [voteEvent(40)]);
      assert.equal((await member.next())['seq'], 40);
      member.close();

      const anonymousLog = await t.api('GET', `/event-log/${tenantId}`, { auth: 'none', query: { urlId: '/members', startTime: 0 } });
      assert.deepEqual([anonymousLog.status, anonymousLog.body['code']], [403, 'sso-required']);
      const memberLog = await t.api<{ events: unknown[] }>('GET', `/event-log/${tenantId}`, { auth: 'none', query: { urlId: '/members', startTime: 0, userIdWS: ids.userIdWS(tenantId, 'member-1') } });
      assert.equal(memberLog.body.events.length, 1);
      // Other pages of the tenant are unaffected.
      const open = await subscribe(t, tenantId, '/post/1');
      open.close();
    });

    test('switching a page to single sign-on closes its anonymous readers, and only those', async () => {
      const ids = t.server.services.liveIds;
      const page = { tenantIdWS: ids.tenantIdWS(tenantId), urlId: ids.urlIdWS(tenantId, '/turning') };
      const anonymous = await LiveClient.connect(subUrl(t, page));
      const member = await LiveClient.connect(subUrl(t, { ...page, userIdWS: ids.userIdWS(tenantId, 'member-2') }));
      const elsewhere = await subscribe(t, tenantId, '/still-open');
      const otherTenant = await subscribe(t, other.tenantId, '/turning');

      assert.equal((await t.api('PUT', '/api/v1/widget-config', { query: { urlId: '/turning' }, body: { requireSSO: true } })).status, 200);
      assert.equal(await closeCode(anonymous), 1008, 'the anonymous reader is closed as refused');
      await emit(t, pageTopic(tenantId, '/turning'), [voteEvent(50)]);
      assert.equal((await member.next())['seq'], 50, 'a reader with a user stays');
      await emit(t, pageTopic(tenantId, '/still-open'), [voteEvent(51)]);
      assert.equal((await elsewhere.next())['seq'], 51, 'readers of other pages stay');
      await emit(t, pageTopic(other.tenantId, '/turning'), [voteEvent(52)]);
      assert.equal((await otherTenant.next())['seq'], 52, 'readers of another tenant stay');

      // The tenant-wide setting reaches every page without overrides of its own.
      const tenantWide = await subscribe(t, tenantId, '/tenant-wide');
      assert.equal((await t.api('PATCH', '/api/v1/widget-config', { body: { requireSSO: true } })).status, 200);
      assert.equal(await closeCode(tenantWide), 1008);
      assert.equal((await t.api('PATCH', '/api/v1/widget-config', { body: { requireSSO: false } })).status, 200);
      for (const client of [member, elsewhere, otherTenant]) client.close();
    });

    test('on a page restricted to groups, only readers in one of them may listen', async () => {
      const ids = t.server.services.liveIds;
      const system = t.server.services.system;
      for (const [id, groupIds] of [['in-group', ['g1', 'g9']], ['outsider', ['g2']]] as const) {
        await system.ask(UserKind, userActorId(tenantId, id), 'upsertSso', { fields: { username: id, groupIds: [...groupIds] }, secure: true });
      }
      assert.equal((await t.api('POST', '/api/v1/pages', { body: { urlId: '/club', url: 'https://example.com/club', title: 'Club', accessibleByGroupIds: ['g1'] } })).status, 200);
      const page = { tenantIdWS: ids.tenantIdWS(tenantId), urlId: ids.urlIdWS(tenantId, '/club') };
      const as = (userId: string) => subUrl(t, { ...page, userIdWS: ids.userIdWS(tenantId, userId) });

      // Groups matter only where single sign-on is required, as for the page's reaction lists.
      const outsiderBefore = await LiveClient.connect(as('outsider'));
      const memberBefore = await LiveClient.connect(as('in-group'));
      assert.equal((await t.api('PUT', '/api/v1/widget-config', { query: { urlId: '/club' }, body: { requireSSO: true } })).status, 200);
      assert.equal(await closeCode(outsiderBefore), 1008, 'a reader outside the groups is closed once the page requires single sign-on');

      const refused = await refusal(as('outsider'));
      assert.deepEqual([refused.status, refused.body['code']], [403, 'page-forbidden']);
      const unknownUser = await refusal(as('nobody-known'));
      assert.deepEqual([unknownUser.status, unknownUser.body['code']], [403, 'page-forbidden']);
      const member = await LiveClient.connect(as('in-group'));
      await emit(t, pageTopic(tenantId, '/club'), [voteEvent(60)]);
      assert.equal((await member.next())['seq'], 60);
      assert.equal((await memberBefore.next())['seq'], 60, 'a member connected before stays');
      const log = await t.api('GET', `/event-log/${tenantId}`, { auth: 'none', query: { urlId: '/club', startTime: 0, userIdWS: ids.userIdWS(tenantId, 'outsider') } });
      assert.deepEqual([log.status, log.body['code']], [403, 'page-forbidden'], 'nor may an outsider catch up from the log');

      // A member who leaves the group is closed; the other member stays.
      await system.ask(UserKind, userActorId(tenantId, 'leaving'), 'upsertSso', { fields: { username: 'leaving', groupIds: ['g1'] }, secure: true });
      const leaver = await LiveClient.connect(as('leaving'));
      await system.ask(UserKind, userActorId(tenantId, 'leaving'), 'upsertSso', { fields: { groupIds: ['g3'] }, secure: true });
      assert.equal(await closeCode(leaver), 1008, 'a reader who left the page\'s groups is closed');
      await emit(t, pageTopic(tenantId, '/club'), [voteEvent(61)]);
      assert.equal((await member.next())['seq'], 61, 'the members who stayed still listen');

      // Taking the group away from the page closes its member too.
      const pageId = (await t.api<{ page: { id: string } }>('GET', '/api/v1/pages/by-url-id', { query: { urlId: '/club' } })).body.page.id;
      assert.equal((await t.api('PATCH', `/api/v1/pages/${pageId}`, { body: { accessibleByGroupIds: ['g2'] } })).status, 200);
      assert.equal(await closeCode(member), 1008, 'a reader whose group the page no longer admits is closed');
      assert.equal(await closeCode(memberBefore), 1008);
    });

    test('ids stay valid across a restart, and subscribers reconnect to the new server', async () => {
      const before = await subscribe(t, tenantId, '/restart');
      const url = subUrl(t, { tenantIdWS: t.server.services.liveIds.tenantIdWS(tenantId), urlId: t.server.services.liveIds.urlIdWS(tenantId, '/restart') });
      t = await t.restart();
      await before.closed;
      const after = await LiveClient.connect(url.replace(/:\d+\//, `:${t.server.port}/`));
      await emit(t, pageTopic(tenantId, '/restart'), [voteEvent(30)]);
      assert.equal((await after.next())['seq'], 30);
      after.close();
    });
  });
}

for (const storage of storages()) {
  describe(`live channel /sub and failed commits on ${storage}`, () => {
    let t: TestServer;
    let wrapper: InstrumentedStore | undefined;
    before(async () => {
      t = await startTestServer(storage, {}, {
        store: (config) =>
          (wrapper = new InstrumentedStore(
            createStore({ dataDir: config.dataDir, mongodbUri: config.mongodbUri, mongodbDb: config.mongodbDb, mongoTimeoutMs: config.storageTimeoutMs }, COLLECTIONS),
          )),
      });
    });
    after(async () => {
      await t.destroy();
    });

    test('the event of a change whose commit fails is never published nor logged', async () => {
      const tenantId = t.tenant.tenantId;
      const topic = pageTopic(tenantId, '/failing');
      const client = await subscribe(t, tenantId, '/failing');
      await emit(t, topic, [voteEvent(1)]);
      assert.equal((await client.next())['seq'], 1);
      // Let the first event's log entry become durable, so that the injected failure hits the next commit.
      await t.server.services.system.ask(EventLogKind, eventLogActorId(tenantId, '/failing'), 'trim', null);

      wrapper!.failNextCommits(1);
      await assert.rejects(emit(t, topic, [voteEvent(2)]), (err: unknown) => err instanceof ApiError && err.code === 'storage-unavailable');
      await emit(t, topic, [voteEvent(3)]);
      assert.equal((await client.next())['seq'], 3, 'the refused change published nothing');
      const log = await t.api<{ events: { data: string }[] }>('GET', `/event-log/${tenantId}`, { auth: 'none', query: { urlId: '/failing', startTime: 0 } });
      assert.deepEqual(log.body.events.map((e) => (JSON.parse(e.data) as { seq: number }).seq), [1, 3]);
      client.close();
    });

    test('an event-log write that fails is retried, and the entry is logged once', async () => {
      const tenantId = t.tenant.tenantId;
      const topic = pageTopic(tenantId, '/retried');
      const client = await subscribe(t, tenantId, '/retried');
      const logged = async () => {
        const log = await t.api<{ events?: { data: string }[] }>('GET', `/event-log/${tenantId}`, { auth: 'none', query: { urlId: '/retried', startTime: 0 } });
        // While the failed commit is being dealt with, the read is refused (503), never wrong.
        return (log.body.events ?? []).map((e) => (JSON.parse(e.data) as { seq: number }).seq);
      };
      wrapper!.failNextCommits(1);
      // Published as an actor would after its own durable commit; the log's commit is the one that fails.
      t.server.services.bus.publish(topic, voteEvent(7));
      assert.equal((await client.next())['seq'], 7, 'delivery does not wait for the log');
      await eventually(async () => (await logged()).length > 0, 10_000);
      assert.deepEqual(await logged(), [7]);
      client.close();
    });
  });
}
