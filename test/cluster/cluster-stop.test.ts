/**
 * Cluster mode with real processes: nodes on one loopback port, one nats-server, one MongoDB
 * (FerretDB). Lease times are short (3 s) so failures are taken over quickly; nothing here
 * depends on how fast anything is, only on what ends up stored and delivered.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startTestCluster } from '../fixtures/cluster.js';
import { clusterTestsEnabled } from '../fixtures/nats.js';
import { assertNoDuplicateActivation, assertVotesKept, comment, pool, untilServing, vote } from './helpers.js';

const enabled = clusterTestsEnabled();

describe('cluster mode: a stopped node', { skip: !enabled }, () => {
  test('SIGSTOP of a node past its lease, then SIGCONT: its shards move, its late commits are refused, no actor is active twice', async () => {
    const c = await startTestCluster({ nodes: 3 });
    try {
      const commentIds = await Promise.all(Array.from({ length: 12 }, (_, i) => comment(c, `/cluster/stop/${i}`)));
      const paused = c.nodes[2]!;
      let sent = 0;
      const cycle = (async () => {
        while (sent < 150) await new Promise((resolve) => setTimeout(resolve, 10));
        await paused.signal('SIGSTOP');
        // Well past the 3 s lease: the others take its shards over meanwhile.
        await new Promise((resolve) => setTimeout(resolve, 8000));
        await paused.signal('SIGCONT');
      })();
      const outcomes = await pool(450, 24, async (i) => {
        sent++;
        return vote(c, commentIds[i % 12]!, `stopper-${i}`, i % 3 === 0 ? 'down' : 'up');
      });
      await cycle;
      await untilServing(c, 60_000);
      // The resumed node noticed that its leases ran out while it was stopped.
      const deadline = Date.now() + 20_000;
      while (!paused.logs.some((l) => l.event === 'shard-lost') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      assert.ok(paused.logs.some((l) => l.event === 'shard-lost'), 'the paused node let its shards go');
      const acknowledged = await assertVotesKept(c, commentIds, outcomes);
      assert.ok(acknowledged >= 200, `most votes are acknowledged (${acknowledged})`);
      const keys = assertNoDuplicateActivation(c);
      assert.ok(keys > 0);
      const refusals = c.nodes.flatMap((n) => n.logs).map((l) => JSON.stringify(l));
      const byStorage = refusals.filter((l) => l.includes('FencedError') && l.includes('refused by storage')).length;
      const byLease = refusals.filter((l) => l.includes('FencedError') && l.includes('lease ran out')).length;
      process.stdout.write(`# SIGSTOP: ${acknowledged} votes acknowledged; late commits refused: ${byStorage} by the storage fence, ${byLease} by the node's own lease check\n`);
    } finally {
      await c.destroy();
    }
  });
});
