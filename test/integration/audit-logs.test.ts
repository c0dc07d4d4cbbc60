import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AuditSweeperKind } from '../../actors/audit/audit-actor.js';
import { AUDIT_LOGS, type AuditLogDoc } from '../../actors/audit/audit-model.js';
import { clock } from '../../engine/clock.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { as, call, ok, refused } from './identity-helpers.js';
import { postComment } from './page-helpers.js';
import { managedTenant, usePackage } from './white-label-helpers.js';

type Json = Record<string, unknown>;
type Log = Json & { crudType: string; resourceName: string; targetId?: string; targetLabel?: string; objectDetails?: { changes: Record<string, { from: unknown; to: unknown }> } | null };

for (const storage of storages()) {
  describe(`audit logs on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage, {}, { tenant: { auditing: true, whiteLabeledTenants: 2 } });
    });
    after(async () => {
      await t?.destroy();
    });

    const logs = async (query: Json = {}, who = {}) => ok(await call<{ auditLogs: Log[]; creditsCost: number }>(t, 'GET', '/api/v1/audit-logs', { ...who, query: query as Record<string, string> }));
    /** Reads are recorded in batches after their answer: waits until those made so far are in the log. */
    const recorded = () => t.server.services.audits.flush();
    const changes = (entries: Log[]) => entries.filter((l) => l.crudType !== 'r');

    test('every call is recorded: who, what, its label at the time, and each change from/to', async () => {
      const start = Date.now() - 1;
      ok(await call(t, 'POST', '/api/v1/sso-users', { body: { id: 'audited', username: 'audited', email: 'a@example.com', displayName: 'Before' } }));
      ok(await call(t, 'PATCH', '/api/v1/sso-users/audited', { body: { displayName: 'After' } }));
      ok(await call(t, 'DELETE', '/api/v1/sso-users/audited'));
      const c = await postComment(t, 'audited-page', { commenterName: 'Ann', comment: 'First text' });
      ok(await t.api('PATCH', `/api/v1/comments/${c._id}`, { body: { comment: 'Second text' } }));
      ok(await call(t, 'GET', '/api/v1/sso-users'));
      refused(await t.api('DELETE', '/api/v1/sso-users/nobody'), 404, 'not-found');

      await recorded();
      const all = await logs({ after: start });
      assert.deepEqual(all.auditLogs.map((l) => `${l.crudType} ${l.resourceName}`), ['r sso-users', 'u comments', 'c comments', 'd sso-users', 'u sso-users', 'c sso-users'], 'newest first; refusals are not recorded');
      assert.equal(all.auditLogs[0]!['url'], 'GET /api/v1/sso-users');
      const [, editComment, , del, patch, create] = all.auditLogs;
      assert.equal(create!.targetId, 'audited');
      assert.equal(create!.targetLabel, 'audited');
      assert.deepEqual(patch!.objectDetails!.changes['displayName'], { from: 'Before', to: 'After' });
      assert.deepEqual(Object.keys(patch!.objectDetails!.changes), ['displayName'], 'only what changed');
      assert.equal(del!.targetLabel, 'audited', 'a deleted target stays identifiable');
      assert.deepEqual(editComment!.objectDetails!.changes['comment'], { from: 'First text', to: 'Second text' });
      assert.equal(editComment!.targetLabel, 'Ann: First text', 'the label as it was');
      for (const entry of all.auditLogs) {
        assert.equal(entry['tenantId'], t.tenant.tenantId);
        assert.equal(typeof entry['apiKeyId'], 'string', 'who: the key (its id)');
        assert.equal(entry['ip'], '127.0.0.1');
        assert.ok(!JSON.stringify(entry).includes(t.tenant.apiKey), 'never the key itself');
      }
    });

    test('paging, order, before/after (exclusive), target, limits, credits; immutable', async () => {
      // The reads this test makes are recorded too: the window ends before the first of them.
      await recorded();
      const end = Date.now();
      const logs = async (query: Json = {}) => ok(await call<{ auditLogs: Log[]; creditsCost: number }>(t, 'GET', '/api/v1/audit-logs', { query: { before: end, ...query } as unknown as Record<string, string> }));
      const all = (await logs()).auditLogs;
      assert.ok(all.length >= 5);
      const asc = (await logs({ order: 'ASC' })).auditLogs;
      assert.deepEqual(asc.map((l) => l['_id']), [...all].reverse().map((l) => l['_id']));
      assert.deepEqual((await logs({ skip: 1, limit: 2 })).auditLogs.map((l) => l['_id']), all.slice(1, 3).map((l) => l['_id']));
      const pivot = Date.parse(all[2]!['when'] as string);
      const newer = (await logs({ after: pivot })).auditLogs;
      assert.ok(newer.every((l) => Date.parse(l['when'] as string) > pivot), 'after is exclusive');
      const older = (await logs({ before: Math.min(pivot, end) })).auditLogs;
      assert.ok(older.every((l) => Date.parse(l['when'] as string) < pivot), 'before is exclusive');
      const targeted = (await logs({ target: 'AUDITED' })).auditLogs;
      assert.deepEqual(targeted.map((l) => l.resourceName), ['sso-users', 'sso-users', 'sso-users'], 'case-insensitive substring of targetLabel');
      assert.equal((await logs()).creditsCost, 1, 'one credit per 100');
      refused(await t.api('GET', '/api/v1/audit-logs', { query: { limit: 10_001 } }), 400, 'invalid-param');
      refused(await t.api('GET', '/api/v1/audit-logs', { query: { order: 'UP' } }), 400, 'invalid-param');
      for (const method of ['POST', 'PATCH', 'DELETE']) assert.ok([404, 405].includes((await t.api(method, '/api/v1/audit-logs')).status), `${method}: no way to write`);
    });

    test("managed tenants: their calls are theirs; the manager sees them with includeManagedTenants; no one else's", async () => {
      const child = await managedTenant(t, 'Audited child');
      await usePackage(t, child, { hasAuditing: true });
      ok(await call(t, 'POST', '/api/v1/tenant-users', { ...as(child), body: { username: 'childuser', email: 'childuser@example.com' } }));
      ok(await call(t, 'POST', '/api/v1/sso-users', { ...as(t.tenant, child.tenantId), body: { id: 'by-parent', username: 'p', email: 'p@example.com' } }));
      const childLogs = changes((await logs({}, as(child))).auditLogs);
      assert.deepEqual(childLogs.map((l) => l.resourceName), ['sso-users', 'tenant-users']);
      assert.equal(childLogs[0]!['actingTenantId'], t.tenant.tenantId, "the manager's key, acting on it");
      const mine = (await logs()).auditLogs;
      assert.ok(mine.every((l) => l['tenantId'] === t.tenant.tenantId));
      const both = (await logs({ includeManagedTenants: true })).auditLogs;
      assert.ok(both.some((l) => l['tenantId'] === child.tenantId));
      assert.ok(both.some((l) => l['tenantId'] === t.tenant.tenantId));
      assert.ok((await logs({ includeManagedTenants: true }, as(child))).auditLogs.every((l) => l['tenantId'] === child.tenantId), 'a managed tenant sees only its own');
      const unaudited = await t.addTenant({ name: 'Unaudited' });
      ok(await call(t, 'POST', '/api/v1/sso-users', { ...as(unaudited), body: { id: 'x', username: 'x', email: 'x@example.com' } }));
      assert.deepEqual((await logs({}, as(unaudited))).auditLogs, [], 'a package without hasAuditing records nothing');
    });

    test('entries expire after two years: hidden from reads at once, removed by the sweeper', async () => {
      const count = (await logs()).auditLogs.length;
      assert.ok(count > 0);
      await recorded();
      const later = Date.now() + 2 * 366 * 86_400_000;
      const restore = clock.set(() => Date.now() + 2 * 366 * 86_400_000);
      try {
        assert.deepEqual((await logs()).auditLogs, []);
        const { removed } = await t.server.services.system.ask(AuditSweeperKind, 'all', 'sweep', null);
        assert.ok(removed > count, 'the entries of earlier reads too');
        await recorded();
      } finally {
        restore();
      }
      const left = await t.server.services.store.find<AuditLogDoc>(AUDIT_LOGS, {});
      assert.deepEqual(left.map((l) => [l.crudType, l.resourceName]), [['r', 'audit-logs']], 'only the read made two years on is left');
      assert.ok(left[0]!.whenMs >= later);
    });
  });
}
