/**
 * Presence in cluster mode: readers connect through the shared port (the kernel spreads them
 * over both nodes), and every node answers the same presence: each reader online once, however
 * many sockets it holds on however many nodes; `p-u` frames reach a watcher on any node; a
 * reader whose last socket closes is offline everywhere. Conditions are polled, never timed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestCluster, type TestCluster } from '../fixtures/cluster.js';
import { eventually } from '../fixtures/eventually.js';
import { clusterTestsEnabled } from '../fixtures/nats.js';
import { LiveClient } from '../unit/live/fixtures.js';
import { call, comment } from './helpers.js';

const enabled = clusterTestsEnabled();

describe('cluster mode: presence', { skip: !enabled }, () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster({ nodes: 2 });
  });
  after(async () => {
    await c?.destroy();
  });

  test('every node sees every reader once; frames cross nodes; the last socket closing takes a reader offline everywhere', async () => {
    const tenantId = c.tenant.tenantId;
    const urlId = '/cluster/presence';
    const names = ['u1', 'u2', 'u3', 'u4', 'u5', 'u6'];
    for (const name of names) {
      const made = await call(c, 'POST', '/api/v1/sso-users', { id: name, username: name, email: `${name}@example.org`, isProfileActivityPrivate: false });
      assert.equal(made.status, 200, JSON.stringify(made.body));
    }
    const users = names.map((n) => `${tenantId}:${n}`);
    await comment(c, urlId, { userId: users[0] });
    const idsOf = async (userId: string) => {
      const page = await call<{ urlIdWS: string; tenantIdWS: string; userIdWS: string }>(c, 'GET', `/api/v1/comments?urlId=${encodeURIComponent(urlId)}&contextUserId=${encodeURIComponent(userId)}`);
      assert.equal(page.status, 200, JSON.stringify(page.body));
      return page.body;
    };
    const subUrl = (ids: { urlIdWS: string; tenantIdWS: string; userIdWS: string }) =>
      `ws://127.0.0.1:${c.port}/sub?urlId=${encodeURIComponent(ids.urlIdWS)}&tenantIdWS=${encodeURIComponent(ids.tenantIdWS)}&userIdWS=${encodeURIComponent(ids.userIdWS)}`;

    const watcherIds = await idsOf(users[5]!);
    const watcher = await LiveClient.connect(subUrl(watcherIds), {}, { presence: true });
    // Three sockets per reader: on two nodes, each reader almost surely lands on both.
    const sockets: LiveClient[][] = [];
    for (const user of users.slice(0, 5)) {
      const url = subUrl(await idsOf(user));
      sockets.push(await Promise.all([1, 2, 3].map(() => LiveClient.connect(url))));
    }
    const joined = new Set<string>();
    while (users.slice(0, 5).some((u) => !joined.has(u))) {
      const event = await watcher.next();
      if (event.type === 'p-u') for (const id of event['uj'] as string[]) joined.add(id);
    }

    const status = (ids: string[]) => call<{ userIdsOnline: Record<string, boolean> }>(c, 'GET', `/user-presence-status?tenantId=${tenantId}&urlIdWS=${encodeURIComponent(watcherIds.urlIdWS)}&userIds=${encodeURIComponent(ids.join(','))}`);
    const online = () => call<{ totalCount: number; users: { id: string }[] }>(c, 'GET', `/pages/${tenantId}/users/online?urlId=${encodeURIComponent(urlId)}`);
    // Whichever node answers (the port spreads requests), it knows all six readers, once each.
    await eventually(async () => {
      for (let i = 0; i < 8; i++) {
        const r = await online();
        if (r.status !== 200 || r.body.totalCount !== 6 || r.body.users.length !== 6) return false;
      }
      return true;
    }, 60_000);
    const all = await status(users);
    assert.ok(Object.values(all.body.userIdsOnline).every(Boolean), JSON.stringify(all.body));

    // Two of u1's three sockets close: u1 stays online.
    sockets[0]![0]!.close();
    sockets[0]![1]!.close();
    await Promise.all([sockets[0]![0]!.closed, sockets[0]![1]!.closed]);
    for (let i = 0; i < 8; i++) assert.equal((await status([users[0]!])).body.userIdsOnline[users[0]!], true);
    // Its last socket closes: offline on every node.
    sockets[0]![2]!.close();
    await eventually(async () => {
      for (let i = 0; i < 8; i++) if ((await status([users[0]!])).body.userIdsOnline[users[0]!] !== false) return false;
      return true;
    }, 60_000);
    let left = false;
    while (!left) {
      const event = await watcher.next();
      left = event.type === 'p-u' && (event['ul'] as string[]).includes(users[0]!);
    }
    for (const group of sockets.slice(1)) for (const socket of group) socket.close();
    watcher.close();
  });
});
