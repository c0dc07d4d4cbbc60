/**
 * Charges that fail on their way to the ledger are sent again and recorded exactly once: when
 * the ledger's commit failed (nothing recorded), and when it succeeded but the answer was lost
 * (recorded once, the repeat recognised by its mark). Real storage on both adapters; the faults
 * are injected at the storage port, as an unreachable database or a lost node would cause them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TENANT_COLLECTIONS } from '../../actors/tenant/collections.js';
import { TenantKind } from '../../actors/tenant/tenant-actor.js';
import { COLLECTIONS } from '../../storage/collections.js';
import { createStore } from '../../storage/create-store.js';
import { StorageUnavailableError } from '../../storage/errors.js';
import type { WriteOp } from '../../storage/store.js';
import { InstrumentedStore } from '../fixtures/instrumented-store.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';

/** Fails chosen commits that write a tenant's daily usage (its ledger). */
class LedgerFaults extends InstrumentedStore {
  /** Commits to fail before anything is applied. */
  refuse = 0;
  /** Commits to apply and then report as failed (the answer lost). */
  loseAnswer = 0;

  override async commit(ops: readonly WriteOp[]): Promise<void> {
    const ledger = ops.some((op) => op.collection === TENANT_COLLECTIONS.dailyUsage);
    if (ledger && this.refuse > 0) {
      this.refuse--;
      throw new StorageUnavailableError('injected: the ledger commit did not reach storage');
    }
    await super.commit(ops);
    if (ledger && this.loseAnswer > 0) {
      this.loseAnswer--;
      throw new StorageUnavailableError('injected: the ledger commit landed but its answer was lost');
    }
  }
}

function comment(urlId: string): Record<string, unknown> {
  return { commenterName: 'Ann', comment: 'Hello', url: `https://example.com${urlId}`, urlId, locale: 'en_us' };
}

for (const storage of storages()) {
  describe(`charges sent again on ${storage}`, () => {
    let t: TestServer;
    let store: LedgerFaults | undefined;
    before(async () => {
      t = await startTestServer(storage, {}, {
        store: (config) =>
          (store = new LedgerFaults(
            createStore({ dataDir: config.dataDir, mongodbUri: config.mongodbUri, mongodbDb: config.mongodbDb, mongoTimeoutMs: config.storageTimeoutMs }, COLLECTIONS),
          )),
      });
    });
    after(async () => {
      await t.destroy();
    });

    /** Credits and calls the ledger holds, once every charge under way landed. */
    async function ledger(): Promise<{ credits: number; errors: number }> {
      assert.ok(await t.server.services.charges.settled(60_000), 'every charge landed');
      const days = await t.server.services.system.ask(TenantKind, t.tenant.tenantId, 'listUsage', {});
      return { credits: days.reduce((sum, d) => sum + d.apiCreditsUsed, 0), errors: days.reduce((sum, d) => sum + d.apiErrorCount, 0) };
    }

    /** The credits of one `GET /api/v1/me`, measured. */
    async function unit(): Promise<number> {
      const before = await ledger();
      assert.equal((await t.api('GET', '/api/v1/me')).status, 200);
      const cost = (await ledger()).credits - before.credits;
      assert.ok(cost > 0);
      return cost;
    }

    test('a charge whose commit failed is sent again until recorded', async () => {
      const cost = await unit();
      const before = await ledger();
      store!.refuse = 2;
      assert.equal((await t.api('GET', '/api/v1/me')).status, 200);
      // A write waits for its charge: here its first attempt fails, and the call still answers.
      assert.equal((await t.api('POST', '/api/v1/comments', { body: comment('/retry') })).status, 200);
      const afterwards = await ledger();
      assert.equal(store!.refuse, 0, 'both injected failures hit ledger commits');
      assert.equal(afterwards.credits - before.credits, cost + (await writeCost()), 'recorded once each');
      assert.equal(afterwards.errors, before.errors);
    });

    test('a charge recorded whose answer was lost is not recorded a second time', async () => {
      const cost = await unit();
      const before = await ledger();
      store!.loseAnswer = 1;
      assert.equal((await t.api('GET', '/api/v1/me')).status, 200);
      const afterwards = await ledger();
      assert.equal(store!.loseAnswer, 0, 'the injected loss hit a ledger commit');
      assert.equal(afterwards.credits - before.credits, cost);
    });

    test('the ledger applies a mark once, also after a restart', async () => {
      const { system } = t.server.services;
      const tenantId = t.tenant.tenantId;
      const before = await ledger();
      const charge = { credits: 7, at: Date.now(), mark: { sender: 'feedc0de', seq: 41 } };
      await system.ask(TenantKind, tenantId, 'charge', charge);
      await system.ask(TenantKind, tenantId, 'charge', charge);
      assert.equal((await ledger()).credits - before.credits, 7);
      t = await t.restart();
      await t.server.services.system.ask(TenantKind, tenantId, 'charge', charge);
      assert.equal((await ledger()).credits - before.credits, 7, 'the mark is durable');
      await t.server.services.system.ask(TenantKind, tenantId, 'charge', { ...charge, mark: { sender: 'feedc0de', seq: 42 } });
      assert.equal((await ledger()).credits - before.credits, 14, 'the next number is recorded');
      const usage = await t.api<{ tenantDailyUsages: Record<string, unknown>[] }>('GET', '/api/v1/tenant-daily-usage');
      assert.equal(usage.status, 200);
      for (const day of usage.body.tenantDailyUsages) assert.equal(day['chargeMarks'], undefined, 'marks are not shown');
    });

    /** The credits of a comment's creation, measured on another page. */
    async function writeCost(): Promise<number> {
      const before = await ledger();
      assert.equal((await t.api('POST', '/api/v1/comments', { body: comment('/measure') })).status, 200);
      return (await ledger()).credits - before.credits;
    }
  });
}
