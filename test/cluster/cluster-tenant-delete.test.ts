/**
 * Deleting a tenant in cluster mode: its actors live on every node (its pages hash to shards
 * all over), and each node is asked to passivate them before the documents go, so nothing a
 * node held in memory is written back after the deletion.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startTestCluster } from '../fixtures/cluster.js';
import { clusterTestsEnabled } from '../fixtures/nats.js';
import { documentsMentioning } from '../integration/tenant-data.js';
import { call, comment } from './helpers.js';

describe('cluster mode: deleting a tenant', { skip: !clusterTestsEnabled() }, () => {
  test("removes the tenant's documents and actors on every node, and the tenant answers nowhere", async () => {
    const c = await startTestCluster({ nodes: 2 });
    try {
      const tenantId = c.tenant.tenantId;
      for (let i = 0; i < 16; i++) await comment(c, `/delete/${i}`, { commenterEmail: `w${i}@example.com`, commenterName: `W${i}` });
      const sso = await call(c, 'POST', '/api/v1/sso-users', { id: 'member', username: 'member', email: 'member@example.com' });
      assert.equal(sso.status, 200, JSON.stringify(sso.body));
      const store = await c.store();
      assert.ok((await documentsMentioning(store, tenantId)).length > 30);

      const deleted = await call(c, 'DELETE', `/api/v1/tenants/${tenantId}?su=true`);
      assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
      assert.deepEqual(await documentsMentioning(store, tenantId), []);
      for (let i = 0; i < 4; i++) {
        const after = await call(c, 'GET', '/api/v1/sso-users');
        assert.equal(after.status, 401, 'every node refuses the tenant');
      }
      assert.deepEqual(await documentsMentioning(store, tenantId), [], 'and nothing came back');
      const passivations = c.nodes.flatMap((n) => n.logs).filter((l) => l.event === 'unhandled-error');
      assert.deepEqual(passivations, []);
    } finally {
      await c.destroy();
    }
  });
});
