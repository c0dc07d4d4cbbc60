/**
 * Credit charges across a failover: the node holding a tenant's ledger is paused past its lease
 * (SIGSTOP), or killed (SIGKILL), while calls pour in through every node. Afterwards the ledger
 * holds exactly the calls answered: each charge sent again to the shard's new owner, recorded
 * once. Nothing here depends on timing, only on what the ledger ends up holding.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TENANT_COLLECTIONS } from '../../actors/tenant/collections.js';
import type { DailyUsageDoc } from '../../actors/tenant/usage.js';
import { startTestCluster, type NodeProcess, type TestCluster } from '../fixtures/cluster.js';
import { clusterTestsEnabled } from '../fixtures/nats.js';
import { call, logsOf, pool, type Reply } from './helpers.js';

const enabled = clusterTestsEnabled();

/** Every call the test makes through the cluster, by outcome (each route used costs 1 credit). */
class Tally {
  answered = 0;
  votes = 0;
  /** Calls that got no answer (their node died under them): charged or not. */
  unanswered = 0;
  other = 0;

  async send(c: TestCluster, method: string, path: string, body?: unknown): Promise<Reply> {
    const r = await call(c, method, path, body);
    if (r.status === 200) {
      this.answered++;
      if (path.startsWith('/api/v1/votes')) this.votes++;
    } else if (r.status === 0) this.unanswered++;
    else this.other++;
    return r;
  }
}

async function ledger(c: TestCluster): Promise<{ credits: number; votes: number }> {
  const store = await c.store();
  const days = await store.find<DailyUsageDoc>(TENANT_COLLECTIONS.dailyUsage, { tenantId: c.tenant.tenantId });
  return { credits: days.reduce((sum, d) => sum + d.apiCreditsUsed, 0), votes: days.reduce((sum, d) => sum + d.voteCount, 0) };
}

/** The node whose tenant actor (the ledger) was activated last. */
function ledgerNode(c: TestCluster): NodeProcess {
  const key = `tenant:${c.tenant.tenantId}`;
  const last = logsOf(c, 'actor-activated')
    .filter((line) => line['key'] === key)
    .sort((a, b) => a.at - b.at)
    .at(-1);
  assert.ok(last !== undefined, 'the ledger is active somewhere');
  return c.nodes.find((node) => node.name === last.node)!;
}

async function comments(c: TestCluster, tally: Tally, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < 6; i++) {
    const urlId = `/${prefix}/${i}`;
    const r = await tally.send(c, 'POST', '/api/v1/comments', { commenterName: 'Ann', comment: 'Hello', url: `https://example.com${urlId}`, urlId, locale: 'en_us' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    ids.push((r.body['comment'] as { _id: string })._id);
  }
  return ids;
}

/** Waits until every charge sent again on a surviving node landed (or was given up). */
async function retriesSettled(nodes: readonly NodeProcess[]): Promise<void> {
  const deadline = Date.now() + 150_000;
  for (;;) {
    const open = nodes.reduce(
      (sum, node) =>
        sum + node.logs.filter((l) => l.event === 'charge-retrying').length - node.logs.filter((l) => l.event === 'charge-recorded-after-retry' || (l.event === 'charge-not-recorded' && Number(l['attempts']) > 1)).length,
      0,
    );
    if (open === 0) return;
    assert.ok(Date.now() < deadline, `${open} charges still being sent again`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function report(c: TestCluster, what: string, tally: Tally, recorded: { credits: number }): void {
  const retried = logsOf(c, 'charge-retrying').length;
  const landed = logsOf(c, 'charge-recorded-after-retry').length;
  process.stdout.write(`# ${what}: ${tally.answered} calls answered, ${tally.other} refused, ${tally.unanswered} unanswered; ledger ${recorded.credits} credits; ${retried} charge messages sent again, ${landed} landed after a retry\n`);
}

describe('cluster mode: credit charges across a failover of the ledger', { skip: !enabled }, () => {
  test('SIGSTOP of the ledger\'s node past its lease: the ledger holds exactly the calls answered', async () => {
    const c = await startTestCluster({ nodes: 3 });
    try {
      const tally = new Tally();
      const commentIds = await comments(c, tally, 'charges-stop');
      const paused = ledgerNode(c);
      let sent = 0;
      let pausedAt = Infinity;
      const cycle = (async () => {
        while (sent < 120) await new Promise((resolve) => setTimeout(resolve, 10));
        pausedAt = Date.now();
        await paused.signal('SIGSTOP');
        await new Promise((resolve) => setTimeout(resolve, 8000));
        await paused.signal('SIGCONT');
      })();
      await pool(400, 24, (i) => {
        sent++;
        return tally.send(c, 'POST', `/api/v1/votes?commentId=${commentIds[i % 6]}&direction=up&anonUserId=payer-${i}`);
      });
      await cycle;
      assert.equal(tally.unanswered, 0, 'every call was answered (the paused node answers once resumed)');
      await retriesSettled(c.nodes);
      const recorded = await ledger(c);
      report(c, 'SIGSTOP', tally, recorded);
      assert.deepEqual(logsOf(c, 'charge-not-recorded'), [], 'no charge was given up');
      assert.ok(logsOf(c, 'actor-activated').some((l) => l['key'] === `tenant:${c.tenant.tenantId}` && l.node !== paused.name && l.at > pausedAt), 'the ledger moved to another node');
      assert.deepEqual(recorded, { credits: tally.answered, votes: tally.votes });
    } finally {
      await c.destroy();
    }
  });

  test('SIGKILL of the ledger\'s node: every answered call is in the ledger, and nothing is counted twice', async () => {
    const c = await startTestCluster({ nodes: 3 });
    try {
      const tally = new Tally();
      const commentIds = await comments(c, tally, 'charges-kill');
      const killed = ledgerNode(c);
      let sent = 0;
      const kill = (async () => {
        while (sent < 120) await new Promise((resolve) => setTimeout(resolve, 10));
        await killed.signal('SIGKILL');
      })();
      await pool(400, 24, (i) => {
        sent++;
        return tally.send(c, 'POST', `/api/v1/votes?commentId=${commentIds[i % 6]}&direction=up&anonUserId=payer-${i}`);
      });
      await kill;
      const survivors = c.nodes.filter((node) => node !== killed);
      await retriesSettled(survivors);
      const recorded = await ledger(c);
      report(c, 'SIGKILL', tally, recorded);
      assert.deepEqual(survivors.flatMap((node) => node.logs.filter((l) => l.event === 'charge-not-recorded')), [], 'no charge was given up');
      // A call cut off with its node may or may not have been charged; every answered one was.
      assert.ok(recorded.credits >= tally.answered && recorded.credits <= tally.answered + tally.unanswered, `${recorded.credits} credits for ${tally.answered} answered and ${tally.unanswered} unanswered calls`);
      assert.ok(recorded.votes >= tally.votes && recorded.votes <= tally.votes + tally.unanswered, `${recorded.votes} votes counted for ${tally.votes} answered`);
      assert.ok(tally.answered >= 200, `most calls are answered (${tally.answered})`);
    } finally {
      await c.destroy();
    }
  });
});
