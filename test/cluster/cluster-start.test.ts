/**
 * A cluster serves from the moment its nodes listen: a node waits, before it takes connections,
 * until every shard has a live owner and its own shards are leased. The hard case is a restart
 * of killed nodes under the same NODE_IDs (as `npm run cluster` restarts a node that died): the
 * lease table still holds their leases, in their own names. With an ask timeout shorter than
 * the lease, a node that waited for those leases to run out would answer 503 `cluster-unavailable`
 * (no node took up the shard in time). A loaded machine may still time a request out (503
 * `timeout`): such a request is sent again; a missing owner must never be the answer.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, test } from 'node:test';
import { startTestCluster } from '../fixtures/cluster.js';
import { clusterTestsEnabled } from '../fixtures/nats.js';
import { call } from './helpers.js';

const enabled = clusterTestsEnabled();

function healthz(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}

describe('cluster mode: ready when listening', { skip: !enabled }, () => {
  test('nodes killed and started again under the same ids answer their first writes, on every shard', async () => {
    // The lease outlasts the ask timeout (4 s): an ask waiting for a left-over lease fails.
    const c = await startTestCluster({ nodes: 2, leaseMs: 8000 });
    try {
      const first = await call(c, 'POST', '/api/v1/comments', { commenterName: 'Ann', comment: 'Before', url: 'https://example.com/start', urlId: '/start', locale: 'en_us' });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      await Promise.all(c.nodes.map((node) => node.signal('SIGKILL')));
      const restarted = await Promise.all([c.addNode('n1'), c.addNode('n2')]);
      assert.equal(await healthz(c.port), 200);
      // Comments on many pages: their page actors hash to shards all over the table.
      const refused: string[] = [];
      await Promise.all(
        Array.from({ length: 16 }, async (_, i) => {
          for (let attempt = 1; ; attempt++) {
            const w = await call(c, 'POST', '/api/v1/comments', { commenterName: 'Ann', comment: `After ${i}`, url: `https://example.com/start/${i}`, urlId: `/start/${i}`, locale: 'en_us' });
            if (w.status === 200) return;
            if (w.status !== 503 || w.body['code'] !== 'timeout' || attempt === 20) {
              refused.push(`${w.status} ${JSON.stringify(w.body)}`);
              return;
            }
            await new Promise((resolve) => setTimeout(resolve, 250));
          }
        }),
      );
      assert.deepEqual(refused, [], 'every write is answered, none for want of a shard owner');
      for (const node of restarted) assert.ok(node.logs.some((l) => l.event === 'cluster-ready'), `${node.name} was ready before listening`);
    } finally {
      await c.destroy();
    }
  });
});
