/**
 * Live readers spread over the nodes of a cluster by the shared port: every reader gets every
 * event of its page, whichever node it landed on, and no node closes one. The page's actor lives
 * on one node; readers on the others get its events through NATS.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type LiveEvent } from '../../actors/live/live-events.js';
import { startTestCluster } from '../fixtures/cluster.js';
import { clusterTestsEnabled } from '../fixtures/nats.js';
import { LiveClient } from '../unit/live/fixtures.js';
import { call, comment, logsOf, pool, vote } from './helpers.js';

const enabled = clusterTestsEnabled();

/** Reads until `done` says the reader has all it waits for; fails with what it got if the socket closes or the time runs out. */
async function readUntil(reader: LiveClient, name: string, done: (seen: LiveEvent[]) => boolean, ms: number): Promise<LiveEvent[]> {
  const seen: LiveEvent[] = [];
  const deadline = Date.now() + ms;
  while (!done(seen)) {
    let timer: NodeJS.Timeout | undefined;
    const next = await Promise.race([reader.next(), new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), deadline - Date.now())))]).catch((err: Error) => {
      assert.fail(`${name}: ${err.message} (had ${seen.length} events)`);
    });
    clearTimeout(timer);
    assert.ok(next !== undefined, `${name}: only ${seen.length} events in ${ms} ms`);
    seen.push(next);
  }
  return seen;
}

describe('cluster mode: live readers on every node', { skip: !enabled }, () => {
  test('twelve readers through the shared port each get every acknowledged vote and vote deletion of their page, once', async () => {
    const c = await startTestCluster({ nodes: 3 });
    try {
      const urlId = '/cluster/live-many';
      const commentIds: string[] = [];
      for (let i = 0; i < 10; i++) commentIds.push(await comment(c, urlId));
      const page = await call<{ urlIdWS: string; tenantIdWS: string }>(c, 'GET', `/api/v1/comments?urlId=${encodeURIComponent(urlId)}`);
      assert.equal(page.status, 200);
      const subUrl = `ws://127.0.0.1:${c.port}/sub?urlId=${encodeURIComponent(page.body.urlIdWS)}&tenantIdWS=${encodeURIComponent(page.body.tenantIdWS)}`;
      const readers = await Promise.all(Array.from({ length: 12 }, () => LiveClient.connect(subUrl)));

      // A loaded machine may time a request out (503 `timeout`: its outcome unknown); its event
      // may come or not. Every acknowledged change must reach every reader.
      const votes = await pool(500, 24, (i) => vote(c, commentIds[i % 10]!, `live-${i}`, i % 4 === 3 ? 'down' : 'up'));
      const unexpected = votes.filter((v) => v.status !== 200 && v.code !== 'timeout');
      assert.deepEqual(unexpected, [], 'every vote is accepted or timed out');
      const voteIds = votes.filter((v) => v.status === 200).map((v) => v.voteId!);
      assert.ok(voteIds.length >= 250, `most votes are acknowledged (${voteIds.length})`);
      const deletions = await pool(Math.floor(voteIds.length / 3), 12, async (i) => {
        const r = await call(c, 'DELETE', `/api/v1/votes/${voteIds[i * 3]}`);
        assert.ok(r.status === 200 || r.body['code'] === 'timeout', JSON.stringify(r.body));
        return { id: voteIds[i * 3]!, acknowledged: r.status === 200 };
      });

      const wantVotes = new Set(voteIds);
      const wantDeleted = new Set(deletions.filter((d) => d.acknowledged).map((d) => d.id));
      const mayDelete = new Set(deletions.map((d) => d.id));
      const has = (seen: LiveEvent[]) => {
        let votesSeen = 0;
        let deletionsSeen = 0;
        for (const e of seen) {
          if (e.type === 'new-vote') votesSeen++;
          else if (e.type === 'deleted-vote') deletionsSeen++;
        }
        return votesSeen >= wantVotes.size && deletionsSeen >= wantDeleted.size;
      };
      // Events of votes timed out may still come: every reader reads until it has every acknowledged one.
      const seenAll = (seen: LiveEvent[]) => {
        if (!has(seen)) return false;
        const ids = new Set(seen.filter((e) => e.type === 'new-vote').map((e) => (e['vote'] as { _id: string })._id));
        const gone = new Set(seen.filter((e) => e.type === 'deleted-vote').map((e) => (e['vote'] as { _id: string })._id));
        return [...wantVotes].every((id) => ids.has(id)) && [...wantDeleted].every((id) => gone.has(id));
      };
      const streams = await Promise.all(readers.map((reader, i) => readUntil(reader, `reader ${i}`, seenAll, 120_000)));
      for (const [i, seen] of streams.entries()) {
        const newVotes = seen.filter((e) => e.type === 'new-vote').map((e) => (e['vote'] as { _id: string })._id);
        assert.equal(new Set(newVotes).size, newVotes.length, `reader ${i}: no vote event twice`);
        // Beyond the acknowledged ones, only votes whose request timed out (ids unknown here).
        assert.ok(newVotes.length <= wantVotes.size + (votes.length - voteIds.length), `reader ${i}: ${newVotes.length} vote events for ${votes.length} votes`);
        const gone = seen.filter((e) => e.type === 'deleted-vote').map((e) => (e['vote'] as { _id: string })._id);
        assert.equal(new Set(gone).size, gone.length, `reader ${i}: no deletion event twice`);
        for (const id of gone) assert.ok(mayDelete.has(id), `reader ${i}: only votes deleted (${id})`);
      }
      for (const reader of readers) reader.close();
      assert.deepEqual(logsOf(c, 'live-closed-by-server'), [], 'no node closed a reader');
      const deadline = Date.now() + 10_000;
      while (logsOf(c, 'live-closed-by-client').length < readers.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      process.stdout.write(`# live readers by node: ${JSON.stringify(Object.fromEntries(c.nodes.map((n) => [n.name, n.logs.filter((l) => l.event === 'live-closed-by-client').length])))}\n`);
    } finally {
      await c.destroy();
    }
  });
});
