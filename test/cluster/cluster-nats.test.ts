/**
 * Cluster mode with real processes: nodes on one loopback port, one nats-server, one MongoDB
 * (FerretDB). Lease times are short (3 s) so failures are taken over quickly; nothing here
 * depends on how fast anything is, only on what ends up stored and delivered.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startTestCluster } from '../fixtures/cluster.js';
import { clusterTestsEnabled } from '../fixtures/nats.js';
import { assertNoDuplicateActivation, assertVotesKept, comment, untilServing, vote, type VoteOutcome } from './helpers.js';

const enabled = clusterTestsEnabled();

describe('cluster mode: NATS away', { skip: !enabled }, () => {
  test('NATS stopped and restarted under load: 503 while it is away, full service after, nothing acknowledged lost', async () => {
    const c = await startTestCluster({ nodes: 3 });
    try {
      const commentIds = await Promise.all(Array.from({ length: 8 }, (_, i) => comment(c, `/cluster/nats/${i}`)));
      let phase: 'before' | 'down' | 'after' = 'before';
      const statuses: { phase: string; status: number; code: string | undefined }[] = [];
      const outage = (async () => {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        await c.nats.stop();
        phase = 'down';
        await new Promise((resolve) => setTimeout(resolve, 5000));
        await c.nats.start();
        phase = 'after';
      })();
      const outcomes: VoteOutcome[] = [];
      let i = 0;
      await Promise.all(
        Array.from({ length: 12 }, async () => {
          while (phase !== 'after') {
            const n = i++;
            const started = phase;
            const o = await vote(c, commentIds[n % 8]!, `nats-${n}`, 'up');
            outcomes.push(o);
            statuses.push({ phase: started, status: o.status, code: o.code });
            if (o.status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
          }
        }),
      );
      await outage;
      for (const s of statuses) {
        assert.ok(s.status === 200 || (s.status === 503 && (s.code === 'cluster-unavailable' || s.code === 'timeout')), `unexpected answer ${s.status} ${s.code}`);
      }
      assert.ok(
        statuses.some((s) => s.phase === 'down' && s.status === 503 && s.code === 'cluster-unavailable'),
        'requests get cluster-unavailable while NATS is away',
      );
      await untilServing(c, 60_000);
      const after = await Promise.all(Array.from({ length: 40 }, (_, n) => vote(c, commentIds[n % 8]!, `back-${n}`, 'down')));
      assert.deepEqual(after.filter((o) => o.status !== 200), [], 'full service once NATS is back');
      await assertVotesKept(c, commentIds, [...outcomes, ...after]);
      assertNoDuplicateActivation(c);
    } finally {
      await c.destroy();
    }
  });
});
