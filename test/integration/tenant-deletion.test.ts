import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { TENANT_COLLECTIONS } from '../../actors/tenant/collections.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { as, call, ok, refused } from './identity-helpers.js';
import { documentsMentioning, fillTenant } from './tenant-data.js';
import { managedTenant, usePackage } from './white-label-helpers.js';

type Json = Record<string, unknown>;

function ssoFor(apiSecret: string) {
  return (user: Json): string => {
    const data = Buffer.from(JSON.stringify(user)).toString('base64');
    const timestamp = Date.now();
    return JSON.stringify({ userDataJSONBase64: data, timestamp, verificationHash: createHmac('sha256', apiSecret).update(`${timestamp}${data}`).digest('hex') });
  };
}

/** The API secret of a tenant (made by its manager, it was never printed). */
async function secretOf(t: TestServer, tenantId: string): Promise<string> {
  const doc = await t.server.services.store.get<{ _id: string; apiSecret: string }>(TENANT_COLLECTIONS.tenants, tenantId);
  return doc!.apiSecret;
}

for (const storage of storages()) {
  describe(`deleting a tenant on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage, { webhookAllowPrivate: true }, { tenant: { whiteLabeledTenants: 5 } });
    });
    after(async () => {
      await t?.destroy();
    });

    test('DELETE su=true removes every document of the tenant from every collection, and its live actors; others keep theirs', async () => {
      const doomed = await managedTenant(t, 'Doomed');
      const sibling = await managedTenant(t, 'Sibling');
      // Its calls are audited: its log goes with it, and the call deleting it is not logged in it.
      await usePackage(t, doomed, { hasAuditing: true });
      await fillTenant(t, doomed, ssoFor(await secretOf(t, doomed.tenantId)));
      await fillTenant(t, sibling, ssoFor(await secretOf(t, sibling.tenantId)));
      const store = t.server.services.store;
      const held = await documentsMentioning(store, doomed.tenantId);
      assert.ok(held.length > 20 && held.some((doc) => doc.startsWith('auditLogs/')), 'the tenant has data everywhere');
      const siblingBefore = await documentsMentioning(store, sibling.tenantId);

      refused(await t.api('DELETE', `/api/v1/tenants/${doomed.tenantId}`), 400, 'unsure');
      refused(await t.api('DELETE', `/api/v1/tenants/${doomed.tenantId}`, { query: { su: false } }), 400, 'unsure');
      refused(await t.api('DELETE', `/api/v1/tenants/${doomed.tenantId}`, { ...as(sibling), query: { su: true } }), 404, 'not-found', 'a sibling');
      refused(await t.api('DELETE', `/api/v1/tenants/${t.tenant.tenantId}`, { query: { su: true } }), 409, 'tenant-has-managed-tenants');
      assert.ok((await documentsMentioning(store, doomed.tenantId)).length > 20, 'refusals changed nothing');

      ok(await call(t, 'DELETE', `/api/v1/tenants/${doomed.tenantId}`, { ...as(t.tenant, doomed.tenantId), query: { su: true } }));
      assert.deepEqual(await documentsMentioning(store, doomed.tenantId), [], 'nothing of the tenant is left');
      for (const key of [`tenant:${doomed.tenantId}`, `page:${doomed.tenantId}:page-a`, `user:${doomed.tenantId}:${doomed.tenantId}:api-user`, `site:${doomed.tenantId}`]) {
        assert.equal(t.server.services.system.cellOf(key), undefined, `${key} is not live`);
      }
      const siblingAfter = new Set(await documentsMentioning(store, sibling.tenantId));
      // (A page's pending-counts marker is transient: it goes once the page stores its counts.)
      assert.deepEqual(siblingBefore.filter((doc) => !siblingAfter.has(doc) && !doc.startsWith('pendingCounts/')), [], 'the sibling keeps all of its data');

      refused(await t.api('GET', '/api/v1/sso-users', as(doomed)), 401, 'invalid-tenant-id');
      refused(await t.api('GET', `/api/v1/tenants/${doomed.tenantId}`), 404, 'not-found');
      const like = await fetch(`${t.url}/page-reacts/v1/likes/${doomed.tenantId}?urlId=page-a`);
      assert.ok(like.status >= 400, 'public routes refuse the tenant');
      assert.deepEqual(await documentsMentioning(store, doomed.tenantId), [], 'and storing nothing for it');
      refused(await t.api('DELETE', `/api/v1/tenants/${doomed.tenantId}`, { query: { su: true } }), 404, 'not-found', 'deleting again');

      // A tenant may delete itself (its own key), as the API documents (`sure` accepted too).
      ok(await call(t, 'DELETE', `/api/v1/tenants/${sibling.tenantId}`, { ...as(sibling), query: { sure: true } }));
      assert.deepEqual(await documentsMentioning(store, sibling.tenantId), []);
      t = await t.restart();
      assert.deepEqual(await documentsMentioning(t.server.services.store, doomed.tenantId), [], 'still nothing after a restart');
    });

    test('a deletion cut short by a crash is carried on at the next start', async () => {
      const victim = await managedTenant(t, 'Interrupted');
      await fillTenant(t, victim, ssoFor(await secretOf(t, victim.tenantId)));
      // What DELETE records first, then a crash before the purge ran.
      await t.server.services.store.commit([{ op: 'patch', collection: TENANT_COLLECTIONS.tenants, id: victim.tenantId, set: { deletingAt: Date.now() } }]);
      await t.stop();
      t = await t.restart();
      await t.server.resumed;
      assert.deepEqual(await documentsMentioning(t.server.services.store, victim.tenantId), []);
      refused(await t.api('GET', '/api/v1/sso-users', as(victim)), 401, 'invalid-tenant-id');
    });
  });
}
