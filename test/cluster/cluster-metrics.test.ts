/**
 * Metrics and readiness of cluster nodes: each node's own listener shows the asks it forwarded
 * to the node owning a shard, the shards it owns, its lease renewals and its NATS connection;
 * readiness follows NATS.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startTestCluster, type TestCluster } from '../fixtures/cluster.js';
import { eventually } from '../fixtures/eventually.js';
import { type Scrape, scrapeMetrics } from '../fixtures/metrics.js';
import { clusterTestsEnabled } from '../fixtures/nats.js';
import { comment, logsOf, pool } from './helpers.js';

const enabled = clusterTestsEnabled();
const SHARDS = 16;

/** Each node's metrics port, as it logged it. */
function metricsPorts(c: TestCluster): number[] {
  return c.nodes.map((node) => {
    const line = node.logs.find((l) => l.event === 'metrics-listening');
    assert.ok(line !== undefined, `${node.name} logged no metrics listener`);
    return Number(line['port']);
  });
}

async function readyStatus(port: number): Promise<{ status: number; code?: string }> {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`);
  const body = (await res.json()) as { code?: string };
  return { status: res.status, ...(body.code === undefined ? {} : { code: body.code }) };
}

const sum = (scrapes: readonly Scrape[], name: string, labels: Record<string, string> = {}) => scrapes.reduce((total, s) => total + s.value(name, labels), 0);

describe('cluster mode: metrics and readiness', { skip: !enabled }, () => {
  test('forwarded asks, owned shards, lease renewals and NATS state show on every node; readiness follows NATS', async () => {
    const c = await startTestCluster({ nodes: 2, shards: SHARDS, env: { METRICS_PORT: '0' } });
    try {
      const ports = metricsPorts(c);
      assert.equal(logsOf(c, 'metrics-listening').length, 2);
      // Every shard leased, by one node or the other, before traffic.
      await eventually(async () => sum(await Promise.all(ports.map((p) => scrapeMetrics(p))), 'comments_cluster_shards_owned') === SHARDS, 30_000);
      for (const port of ports) await eventually(async () => (await readyStatus(port)).status === 200, 30_000);

      // Pages on many shards, each request on its own connection: some land on the node that does not own the page.
      await pool(24, 6, (i) => comment(c, `/cluster/metrics/${i}`));
      const scrapes = await Promise.all(ports.map((p) => scrapeMetrics(p)));
      assert.ok(sum(scrapes, 'comments_cluster_forwarded_asks_total', { outcome: 'ok' }) > 0, 'asks were forwarded to the owning node');
      assert.ok(sum(scrapes, 'comments_cluster_forwarded_ask_duration_seconds_count') > 0);
      assert.equal(sum(scrapes, 'comments_cluster_shards_owned'), SHARDS);
      for (const s of scrapes) assert.equal(s.value('comments_cluster_nats_connected'), 1);
      assert.ok(sum(scrapes, 'comments_http_requests_total', { route: '/api/v1/comments', method: 'POST', status_class: '2xx' }) >= 24);
      assert.ok(sum(scrapes, 'comments_storage_commit_duration_seconds_count', { storage: 'mongodb' }) > 0);
      await eventually(async () => sum(await Promise.all(ports.map((p) => scrapeMetrics(p))), 'comments_cluster_lease_renewals_total') > 0, 20_000);

      // NATS away: not ready, and the gauge says why; back: ready again.
      await c.nats.stop();
      for (const port of ports) {
        await eventually(async () => (await readyStatus(port)).code === 'cluster-unavailable', 30_000);
        await eventually(async () => (await scrapeMetrics(port)).value('comments_cluster_nats_connected') === 0, 30_000);
      }
      await c.nats.start();
      for (const port of ports) await eventually(async () => (await readyStatus(port)).status === 200, 60_000);
    } finally {
      await c.destroy();
    }
  });
});
