/**
 * Presence on a page's live channel, with real websocket clients: readers joining and leaving
 * (`p-u` frames; two tabs of one user are one reader), the status, online, offline and info
 * reads, anonymous readers counted and never named, another tenant's ids answering nothing,
 * and `new-config` when the page's widget configuration changes; on every storage.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LiveEvent } from '../../actors/live/live-events.js';
import { eventually } from '../fixtures/eventually.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { LiveClient, subUrl } from '../unit/live/fixtures.js';
import { allowSite, commentAs, ok, pub, SITE, ssoUserOf } from './reader-helpers.js';

/** The next frame of a type, skipping others. */
async function nextOf(client: LiveClient, type: string): Promise<LiveEvent> {
  for (;;) {
    const event = await client.next();
    if (event.type === type) return event;
  }
}

for (const storage of storages()) {
  describe(`presence on ${storage}`, () => {
    let t: TestServer;
    let tenantId: string;
    let ann: string;
    let carl: string;
    let dora: string;
    const urlId = '/presence/page';
    before(async () => {
      t = await startTestServer(storage);
      tenantId = t.tenant.tenantId;
      await allowSite(t);
      ann = await ssoUserOf(t, 'ann', { displayName: 'Ann', isProfileActivityPrivate: false });
      carl = await ssoUserOf(t, 'carl', { displayName: 'Carl', isProfileActivityPrivate: false });
      dora = await ssoUserOf(t, 'dora', { displayName: 'Dora', isProfileActivityPrivate: true });
      await commentAs(t, ann, urlId, 'Ann was here');
      await commentAs(t, dora, urlId, 'Dora was here');
    });
    after(async () => {
      await t?.destroy();
    });

    const connect = (userId: string | undefined, options: { presence?: boolean; config?: boolean } = {}, headers: Record<string, string> = {}) => {
      const ids = t.server.services.liveIds;
      return LiveClient.connect(
        subUrl(t, { tenantIdWS: ids.tenantIdWS(tenantId), urlId: ids.urlIdWS(tenantId, urlId), ...(userId ? { userIdWS: ids.userIdWS(tenantId, userId) } : {}) }),
        { origin: SITE, ...headers },
        options,
      );
    };
    const status = async (ids: string[]) =>
      (ok(await pub(t, 'GET', '/user-presence-status', { query: { tenantId, urlIdWS: t.server.services.liveIds.urlIdWS(tenantId, urlId), userIds: ids.join(',') } }), 'status') as { userIdsOnline: Record<string, boolean> }).userIdsOnline;
    type Online = { users: { id: string; displayName: string; isPrivate?: boolean }[]; totalCount: number; anonCount: number; nextAfterUserId: string | null };

    test('readers join and leave: one user in two tabs is one reader, anonymous readers are counted and not named', async () => {
      const watcher = await connect(carl, { presence: true });
      const joinedCarl = await nextOf(watcher, 'p-u');
      assert.deepEqual([joinedCarl['uj'], joinedCarl['sc']], [[carl], 1]);

      const tab1 = await connect(ann);
      const tab2 = await connect(ann);
      const anonymous = await connect(undefined, {}, { cookie: 'fc_anon=BBBBBBBBBBBBBBBBBBBBBB' });
      const anonymousTab2 = await connect(undefined, {}, { cookie: 'fc_anon=BBBBBBBBBBBBBBBBBBBBBB' });
      const seen = new Set<string>();
      let sc = 0;
      await eventually(async () => {
        const frame = await nextOf(watcher, 'p-u');
        for (const id of frame['uj'] as string[]) seen.add(id);
        sc = frame['sc'] as number;
        return seen.size >= 2;
      }, 30_000);
      const anonIds = [...seen].filter((id) => id.startsWith('anon:'));
      assert.equal(anonIds.length, 1, 'one anonymous reader, in two tabs');
      assert.ok(seen.has(ann));
      assert.ok(!anonIds[0]!.includes('BBBB'), 'the session is never shown');
      assert.equal(sc, 3);

      assert.deepEqual(await status([ann, carl, dora, anonIds[0]!, 'nobody']), { [ann]: true, [carl]: true, [dora]: false, [anonIds[0]!]: true, nobody: false });
      const online = ok(await pub(t, 'GET', `/pages/${tenantId}/users/online`, { query: { urlId } }), 'online') as unknown as Online;
      assert.deepEqual(online.users.map((u) => u.displayName), ['Ann', 'Carl']);
      assert.deepEqual([online.totalCount, online.anonCount, online.nextAfterUserId], [3, 1, null]);
      const offline = ok(await pub(t, 'GET', `/pages/${tenantId}/users/offline`, { query: { urlId } }), 'offline') as unknown as Online;
      assert.deepEqual(offline.users, [{ id: dora, displayName: '', isPrivate: true }], 'a private commenter is listed without a name');
      const info = ok(await pub(t, 'GET', `/pages/${tenantId}/users/info`, { query: { ids: `${ann},${anonIds[0]}` } }), 'info') as unknown as Online;
      assert.deepEqual(info.users.map((u) => u.id), [ann]);

      tab1.close();
      await tab1.closed;
      assert.equal((await status([ann]))[ann], true, 'the second tab keeps the user online');
      tab2.close();
      const left = await nextOf(watcher, 'p-u');
      assert.deepEqual([left['ul'], left['uj'], left['sc']], [[ann], [], 2]);
      assert.equal((await status([ann]))[ann], false);
      for (const client of [anonymous, anonymousTab2, watcher]) client.close();
    });

    test('online lists page by name; another tenant\'s ids answer nothing of it', async () => {
      const names = ['eve', 'finn', 'gus'];
      const users = await Promise.all(names.map((n) => ssoUserOf(t, n, { displayName: n.toUpperCase(), isProfileActivityPrivate: false })));
      const sockets = await Promise.all(users.map((u) => connect(u)));
      await eventually(async () => (await status(users)) [users[2]!] === true, 30_000);
      const page = async (after?: { afterName: string; afterUserId: string }) => ok(await pub(t, 'GET', `/pages/${tenantId}/users/online`, { query: { urlId, ...after } }), 'online') as unknown as Online & { nextAfterName: string | null };
      const all = await page();
      assert.deepEqual(all.users.map((u) => u.displayName), ['EVE', 'FINN', 'GUS']);
      const rest = await page({ afterName: 'EVE', afterUserId: users[0]! });
      assert.deepEqual(rest.users.map((u) => u.displayName), ['FINN', 'GUS']);

      const other = await t.addTenant();
      const foreign = await t.api('GET', '/user-presence-status', { auth: 'none', query: { tenantId: other.tenantId, urlIdWS: t.server.services.liveIds.urlIdWS(tenantId, urlId), userIds: users.join(',') } });
      assert.equal(foreign.status, 200);
      assert.ok(Object.values((foreign.body as { userIdsOnline: Record<string, boolean> }).userIdsOnline).every((v) => v === false));
      assert.equal((await pub(t, 'GET', '/user-presence-status', { query: { tenantId, urlIdWS: 'x', userIds: Array.from({ length: 501 }, (_, i) => `u${i}`).join(',') } })).status, 400);
      for (const socket of sockets) socket.close();
    });

    test('a change of the page\'s widget configuration reaches its readers as new-config', async () => {
      const reader = await connect(undefined, { config: true });
      await eventually(async () => t.server.services.presence.readers(tenantId, urlId).total > 0, 30_000);
      ok(await t.api('PATCH', '/api/v1/widget-config', { query: { urlId }, body: { hasDarkBackground: true } }), 'configure');
      const frame = await nextOf(reader, 'new-config');
      assert.equal((frame['config'] as Record<string, unknown>)['hasDarkBackground'], true);
      reader.close();
    });
  });
}
