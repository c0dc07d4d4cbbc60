import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { clock } from '../../engine/clock.js';
import { COLLECTIONS } from '../../storage/collections.js';
import { createStore } from '../../storage/create-store.js';
import { InstrumentedStore } from '../fixtures/instrumented-store.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';

interface Usage {
  id: string;
  tenantId: string;
  yearNumber: number;
  monthNumber: number;
  dayNumber: number;
  apiCreditsUsed: number;
  apiErrorCount: number;
  overageCredits?: number;
  billed: boolean;
}

const DAY = 86_400_000;

for (const storage of storages()) {
  describe(`credits and daily usage on ${storage}`, () => {
    let restoreClock: (() => void) | undefined;
    afterEach(() => {
      restoreClock?.();
      restoreClock = undefined;
    });

    describe('charging', () => {
      let t: TestServer;
      before(async () => {
        t = await startTestServer(storage);
      });
      after(async () => {
        await t.destroy();
      });

      test('every successful call is charged; the usage list reports it per day, oldest first', async () => {
        let now = Date.UTC(2026, 0, 30, 12);
        restoreClock = clock.set(() => now);
        for (let i = 0; i < 5; i++) assert.equal((await t.api('GET', '/api/v1/me')).status, 200);
        await t.api('POST', '/api/v1/domain-configs', { body: { domain: 'one.example' } });
        now += DAY;
        for (let i = 0; i < 3; i++) await t.api('GET', '/api/v1/me');
        await t.api('GET', '/api/v1/me', { auth: 'none', headers: { 'x-api-key': 'wrong', 'x-tenant-id': t.tenant.tenantId } });
        await t.api('GET', '/api/v1/domain-configs/missing.example');

        const r = await t.api<{ tenantDailyUsages: Usage[]; creditsCost: number }>('GET', '/api/v1/tenant-daily-usage');
        assert.equal(r.status, 200);
        const days = r.body.tenantDailyUsages;
        assert.deepEqual(
          days.map((d) => [d.yearNumber, d.monthNumber, d.dayNumber, d.apiCreditsUsed]),
          [
            [2026, 1, 30, 6],
            [2026, 1, 31, 3],
          ],
        );
        assert.equal(days[1]!.apiErrorCount, 1, 'the failed lookup is counted as an error, not charged');
        assert.equal(days[0]!.tenantId, t.tenant.tenantId);
        assert.equal(days[0]!.billed, false);
        assert.equal(r.body.creditsCost, 1, 'one credit per 10 objects, at least one');

        const filtered = await t.api<{ tenantDailyUsages: Usage[] }>('GET', '/api/v1/tenant-daily-usage', {
          query: { yearNumber: 2026, monthNumber: 1, dayNumber: 30 },
        });
        assert.deepEqual(filtered.body.tenantDailyUsages.map((d) => d.dayNumber), [30]);
        const aliases = await t.api<{ tenantDailyUsages: Usage[] }>('GET', '/api/v1/tenant-daily-usage', { query: { year: 2026, month: 1, day: 31 } });
        assert.deepEqual(aliases.body.tenantDailyUsages.map((d) => d.dayNumber), [31]);
        const none = await t.api<{ tenantDailyUsages: Usage[] }>('GET', '/api/v1/tenant-daily-usage', { query: { year: 2025 } });
        assert.deepEqual(none.body.tenantDailyUsages, []);
        const skipped = await t.api<{ tenantDailyUsages: Usage[] }>('GET', '/api/v1/tenant-daily-usage', { query: { skip: 1 } });
        assert.deepEqual(skipped.body.tenantDailyUsages.map((d) => d.dayNumber), [31]);
      });

      test('the cost is one credit per ten objects listed', async () => {
        let now = Date.UTC(2025, 0, 1, 12);
        restoreClock = clock.set(() => now);
        for (let day = 0; day < 25; day++) {
          await t.api('GET', '/api/v1/me');
          now += DAY;
        }
        const r = await t.api<{ tenantDailyUsages: Usage[]; creditsCost: number }>('GET', '/api/v1/tenant-daily-usage', { query: { year: 2025 } });
        assert.equal(r.body.tenantDailyUsages.length, 25);
        assert.equal(r.body.creditsCost, 3);
      });

      test('usage survives a restart', async () => {
        restoreClock = clock.set(() => Date.UTC(2026, 0, 31, 18));
        t = await t.restart();
        const r = await t.api<{ tenantDailyUsages: Usage[] }>('GET', '/api/v1/tenant-daily-usage', { query: { year: 2026 } });
        assert.deepEqual(r.body.tenantDailyUsages.map((d) => d.apiCreditsUsed), [6, 8]);
      });
    });

    describe('a fixed-price package', () => {
      let t: TestServer;
      before(async () => {
        t = await startTestServer(storage, {}, { tenant: { monthlyCredits: 5 } });
      });
      after(async () => {
        await t.destroy();
      });

      test('refuses calls once the month allowance is spent, and resumes next month', async () => {
        let now = Date.UTC(2026, 2, 31, 10);
        restoreClock = clock.set(() => now);
        for (let i = 0; i < 5; i++) assert.equal((await t.api('GET', '/api/v1/me')).status, 200, `call ${i}`);
        const refused = await t.api('GET', '/api/v1/me');
        assert.deepEqual([refused.status, refused.body['code']], [402, 'credits-exhausted']);
        assert.equal(refused.body['maxMonthlyAPICredits'], 5);
        const write = await t.api('POST', '/api/v1/domain-configs', { body: { domain: 'late.example' } });
        assert.equal(write.status, 402);

        now = Date.UTC(2026, 3, 1, 0, 0, 1);
        const usage = await t.api<{ tenantDailyUsages: Usage[] }>('GET', '/api/v1/tenant-daily-usage', { query: { year: 2026, month: 3 } });
        assert.equal(usage.status, 200);
        assert.deepEqual(usage.body.tenantDailyUsages.map((d) => d.apiCreditsUsed), [5], 'refused calls were not charged');
        assert.equal((await t.api('GET', '/api/v1/domain-configs/late.example')).status, 404);
      });
    });

    describe('a fixed-price package on slow storage', () => {
      let t: TestServer;
      let store: InstrumentedStore | undefined;
      before(async () => {
        t = await startTestServer(storage, {}, {
          tenant: { monthlyCredits: 2 },
          store: (config) =>
            (store = new InstrumentedStore(
              createStore({ dataDir: config.dataDir, mongodbUri: config.mongodbUri, mongodbDb: config.mongodbDb, mongoTimeoutMs: config.storageTimeoutMs }, COLLECTIONS),
            )),
        });
      });
      after(async () => {
        await t.destroy();
      });

      test('a client that waits for each answer gets exactly its allowance, however slow storage is', async () => {
        restoreClock = clock.set(() => Date.UTC(2026, 5, 15, 10));
        // Every storage call takes 40 ms, and the client pauses longer than reads' charges gather
        // (10 ms) between calls: each charge is on its way to the ledger when the next call comes.
        store!.slowDown(40);
        const statuses: number[] = [];
        // A read whose handler never waits on the tenant's ledger (settings come from its published view).
        for (let i = 0; i < 5; i++) {
          statuses.push((await t.api('GET', '/api/v1/comments', { query: { urlId: '/credits' } })).status);
          await new Promise((r) => setTimeout(r, 15));
        }
        assert.deepEqual(statuses, [200, 200, 402, 402, 402]);
        store!.slowDown(0);
        const usage = await t.api<{ tenantDailyUsages: Usage[] }>('GET', '/api/v1/tenant-daily-usage');
        assert.equal(usage.status, 402, 'the allowance is spent: even the usage read is refused');
      });
    });

    describe('a flex package', () => {
      let t: TestServer;
      before(async () => {
        t = await startTestServer(storage, {}, { tenant: { monthlyCredits: 3, flex: true } });
      });
      after(async () => {
        await t.destroy();
      });

      test('keeps serving past the allowance and records the overage', async () => {
        restoreClock = clock.set(() => Date.UTC(2026, 4, 10, 10));
        for (let i = 0; i < 7; i++) assert.equal((await t.api('GET', '/api/v1/me')).status, 200);
        const usage = await t.api<{ tenantDailyUsages: Usage[] }>('GET', '/api/v1/tenant-daily-usage');
        const [day] = usage.body.tenantDailyUsages;
        assert.equal(day!.apiCreditsUsed, 7);
        assert.equal(day!.overageCredits, 4);
      });
    });
  });
}
