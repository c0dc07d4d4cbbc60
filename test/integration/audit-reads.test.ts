/**
 * The audit log of an audited tenant records reads too, on both storages: each successful GET
 * with who made it and what it read, written after its answer in batches (one audit-log message
 * and commit for many reads), with a bounded backlog per tenant.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AUDIT_LOGS, type AuditLogDoc, type TimedAuditEntry } from '../../actors/audit/audit-model.js';
import { COLLECTIONS } from '../../storage/collections.js';
import { createStore } from '../../storage/create-store.js';
import type { WriteOp } from '../../storage/store.js';
import { InstrumentedStore } from '../fixtures/instrumented-store.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { as, call, ok, refused } from './identity-helpers.js';

type Log = Record<string, unknown> & { crudType: string; resourceName: string; url: string };

/** Counts the commits that write audit-log entries, and the entries. */
class AuditCountingStore extends InstrumentedStore {
  auditCommits = 0;
  auditEntries = 0;

  override async commit(ops: readonly WriteOp[]): Promise<void> {
    const entries = ops.filter((op) => op.collection === AUDIT_LOGS).length;
    await super.commit(ops);
    if (entries > 0) {
      this.auditCommits++;
      this.auditEntries += entries;
    }
  }
}

for (const storage of storages()) {
  describe(`audited reads on ${storage}`, () => {
    let t: TestServer;
    let store: AuditCountingStore | undefined;
    before(async () => {
      t = await startTestServer(storage, {}, {
        tenant: { auditing: true },
        store: (config) =>
          (store = new AuditCountingStore(
            createStore({ dataDir: config.dataDir, mongodbUri: config.mongodbUri, mongodbDb: config.mongodbDb, mongoTimeoutMs: config.storageTimeoutMs }, COLLECTIONS),
          )),
      });
    });
    after(async () => {
      await t?.destroy();
    });

    const recorded = () => t.server.services.audits.flush();
    const reads = async (after: number) => {
      await recorded();
      const r = ok(await call<{ auditLogs: Log[] }>(t, 'GET', '/api/v1/audit-logs', { query: { after, order: 'ASC' } }));
      return r.auditLogs.filter((l) => l.crudType === 'r');
    };

    test('every successful read is recorded with who made it and what it read; refusals and unaudited tenants are not', async () => {
      ok(await call(t, 'POST', '/api/v1/sso-users', { body: { id: 'reader', username: 'reader', email: 'r@example.com' } }));
      const start = Date.now() - 1;
      ok(await call(t, 'GET', '/api/v1/sso-users'));
      ok(await call(t, 'GET', '/api/v1/sso-users/by-id/reader'));
      ok(await call(t, 'GET', '/api/v1/comments', { query: { urlId: 'read-page' } }));
      refused(await t.api('GET', '/api/v1/sso-users/by-id/nobody'), 404, 'not-found');
      const unaudited = await t.addTenant({ name: 'Unaudited' });
      ok(await call(t, 'GET', '/api/v1/sso-users', as(unaudited)));

      const got = await reads(start);
      assert.deepEqual(
        got.map((l) => [l.resourceName, l.url, l['targetId'] ?? null]),
        [
          ['sso-users', 'GET /api/v1/sso-users', null],
          ['sso-users', 'GET /api/v1/sso-users/by-id/reader', 'reader'],
          ['comments', 'GET /api/v1/comments', null],
        ],
      );
      for (const entry of got) {
        assert.equal(entry['tenantId'], t.tenant.tenantId);
        assert.equal(typeof entry['apiKeyId'], 'string', 'who: the key (its id)');
        assert.equal(entry['ip'], '127.0.0.1');
        assert.ok(!JSON.stringify(entry).includes(t.tenant.apiKey), 'never the key itself');
        assert.ok(!String(entry.url).includes('?'), 'never the query, which may hold a key');
      }
      const theirs = await t.server.services.store.find<AuditLogDoc>(AUDIT_LOGS, { tenantId: unaudited.tenantId });
      assert.deepEqual(theirs, [], 'a package without hasAuditing records nothing');
    });

    test('reads gathered in one turn reach the log in one message and one commit', async () => {
      await recorded();
      const commits = store!.auditCommits;
      const entries = store!.auditEntries;
      const now = Date.now();
      const entry = (i: number): TimedAuditEntry => ({
        at: now, tenantId: t.tenant.tenantId, resourceName: 'comments', crudType: 'r', userId: null, username: null, apiKeyId: 'k', actingTenantId: null,
        ip: '127.0.0.1', url: `GET /api/v1/comments/c${i}`, targetId: `c${i}`, targetLabel: null, objectDetails: null,
      });
      for (let i = 0; i < 400; i++) assert.equal(t.server.services.audits.add(entry(i)), undefined, 'a read never waits while the backlog has room');
      await recorded();
      assert.equal(store!.auditEntries - entries, 400);
      assert.equal(store!.auditCommits - commits, 1, '400 reads, one commit');
    });

    test("a tenant's backlog is bounded: past it, reads wait until their entries are written, and none is lost", async () => {
      await recorded();
      const entries = store!.auditEntries;
      const at = Date.now();
      // Storage is slow: the batches sent stay on their way while more reads come.
      store!.slowDown(200);
      const waits: Promise<void>[] = [];
      let firstWait = -1;
      const total = 10_200;
      for (let i = 0; i < total; i++) {
        const wait = t.server.services.audits.add({
          at, tenantId: t.tenant.tenantId, resourceName: 'pages', crudType: 'r', userId: null, username: null, apiKeyId: 'k', actingTenantId: null,
          ip: null, url: 'GET /api/v1/pages', targetId: null, targetLabel: null, objectDetails: null,
        });
        if (wait !== undefined) {
          if (firstWait < 0) firstWait = i;
          waits.push(wait);
        }
      }
      assert.equal(firstWait, 9_999, 'the 10,000th entry gathered or on its way makes its read wait');
      assert.equal(waits.length, total - 9_999);
      await Promise.all(waits);
      store!.slowDown(0);
      await recorded();
      assert.equal(store!.auditEntries - entries, total, 'every entry is written');
      assert.equal(await t.server.services.store.count(AUDIT_LOGS, { tenantId: t.tenant.tenantId, url: 'GET /api/v1/pages' }), total);
    });
  });
}
