import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { as, call, ok, refused } from './identity-helpers.js';
import { managedTenant, packageBody, usePackage } from './white-label-helpers.js';

type Json = Record<string, unknown>;

for (const storage of storages()) {
  describe(`white-label tenants and packages on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage, {}, { tenant: { email: 'owner@root.example', whiteLabeledTenants: 10, monthlyCredits: 100_000 } });
    });
    after(async () => {
      await t?.destroy();
    });

    test('a white-label tenant creates, reads, lists and changes the tenants it manages', async () => {
      const created = ok(await call<{ tenant: Json }>(t, 'POST', '/api/v1/tenants', {
        body: { name: 'Alpha', email: 'Admin@Alpha.example', domainConfiguration: [{ domain: 'Alpha.example.com', emailFromName: 'Alpha' }], meta: { plan: 'gold', region: 'eu' }, signUpDate: 1000 },
      }));
      const alpha = created.tenant;
      assert.equal(alpha['email'], 'admin@alpha.example');
      assert.equal(alpha['packageId'], '', 'no package yet');
      assert.equal(alpha['signUpDate'], 1000);
      assert.deepEqual((alpha['domainConfiguration'] as Json[]).map((d) => d['domain']), ['alpha.example.com']);
      assert.equal(alpha['apiSecret'], undefined, 'the secret never leaves');
      const beta = ok(await call<{ tenant: Json }>(t, 'POST', '/api/v1/tenants', { body: { name: 'Beta', domainConfiguration: [], meta: { plan: 'silver' } } })).tenant;

      assert.equal(ok(await call<{ tenant: Json }>(t, 'GET', `/api/v1/tenants/${alpha['id']}`)).tenant['name'], 'Alpha');
      const list = ok(await call<{ tenants: Json[]; creditsCost: number }>(t, 'GET', '/api/v1/tenants'));
      assert.deepEqual(list.tenants.map((x) => x['name']), ['Alpha', 'Beta'], 'by signUpDate');
      assert.equal(list.creditsCost, 1);
      assert.deepEqual(ok(await call<{ tenants: Json[] }>(t, 'GET', '/api/v1/tenants', { query: { skip: 1 } })).tenants.map((x) => x['name']), ['Beta']);
      const gold = ok(await call<{ tenants: Json[] }>(t, 'GET', '/api/v1/tenants', { query: { meta: JSON.stringify({ plan: 'gold' }) } }));
      assert.deepEqual(gold.tenants.map((x) => x['name']), ['Alpha']);
      refused(await t.api('GET', '/api/v1/tenants', { query: { meta: '{bad' } }), 400, 'invalid-param');

      const patched = ok(await call<{ tenant: Json }>(t, 'PATCH', `/api/v1/tenants/${beta['id']}`, { body: { name: 'Beta 2', domainConfiguration: [{ domain: 'beta.example.com' }], billingInfoValid: true, billingInfo: { name: 'B', address: 'A', city: 'C', state: 'S', zip: 'Z', country: 'NL' } } }));
      assert.equal(patched.tenant['name'], 'Beta 2');
      assert.equal(patched.tenant['billingInfoValid'], true);
      assert.deepEqual((patched.tenant['domainConfiguration'] as Json[]).map((d) => d['domain']), ['beta.example.com']);
      // The managed tenant's domain configurations are the ones its own API serves.
      const betaKey = { tenantId: beta['id'] as string, apiKey: '', apiSecret: '' };
      const domains = ok(await call<{ configurations: Json[] }>(t, 'GET', '/api/v1/domain-configs', as({ ...betaKey, apiKey: t.tenant.apiKey })));
      assert.deepEqual(domains.configurations.map((d) => d['domain']), ['beta.example.com']);
    });

    test('every rule of creating and changing a tenant refuses with its own code and changes nothing', async () => {
      const before = ok(await call<{ tenants: Json[] }>(t, 'GET', '/api/v1/tenants')).tenants.length;
      refused(await t.api('POST', '/api/v1/tenants', { body: { domainConfiguration: [] } }), 400, 'name-invalid');
      refused(await t.api('POST', '/api/v1/tenants', { body: { name: 'X' } }), 400, 'missing-param');
      refused(await t.api('POST', '/api/v1/tenants', { body: { name: 'x'.repeat(201), domainConfiguration: [] } }), 400, 'name-invalid');
      refused(await t.api('POST', '/api/v1/tenants', { body: { name: 'X', email: `${'e'.repeat(295)}@x.com`, domainConfiguration: [] } }), 400, 'invalid-email');
      for (const field of ['hasFlexPricing', 'lastBillingIssueReminderDate', 'flexLastBilledAmount']) {
        refused(await t.api('POST', '/api/v1/tenants', { body: { name: 'X', domainConfiguration: [], [field]: field === 'hasFlexPricing' ? true : 1 } }), 400, 'unexpected-param', field);
      }
      refused(await t.api('POST', '/api/v1/tenants', { body: { name: 'X', domainConfiguration: [], signUpDate: Date.now() + 86_400_000 } }), 400, 'sign-up-date-in-future');
      refused(await t.api('POST', '/api/v1/tenants', { body: { name: 'X', email: 'ADMIN@alpha.example', domainConfiguration: [] } }), 409, 'email-taken');
      refused(await t.api('POST', '/api/v1/tenants', { body: { name: 'X', email: 'owner@root.example', domainConfiguration: [] } }), 409, 'email-taken', 'the CLI tenant');
      refused(await t.api('POST', '/api/v1/tenants', { body: { name: 'X', domainConfiguration: [{ domain: 'not a domain' }] } }), 400, 'invalid-domain');
      refused(await t.api('POST', '/api/v1/tenants', { body: { name: 'X', domainConfiguration: [], packageId: 'nope' } }), 400, 'invalid-package');
      assert.equal(ok(await call<{ tenants: Json[] }>(t, 'GET', '/api/v1/tenants')).tenants.length, before);

      const gamma = await managedTenant(t, 'Gamma');
      const small = await t.addTenant({ name: 'Small', whiteLabeledTenants: 1 });
      await managedTenant(t, 'Small child', small);
      refused(await t.api('POST', '/api/v1/tenants', { ...as(small), body: { name: 'Delta', domainConfiguration: [] } }), 403, 'tenant-limit-reached', 'maxWhiteLabeledTenants is 1');
      // One level of nesting: a managed tenant cannot manage tenants.
      refused(await t.api('POST', '/api/v1/tenants', { ...as(gamma), body: { name: 'Sub', domainConfiguration: [] } }), 403, 'nesting-not-allowed');
      // A tenant without a package, or whose package does not allow it, cannot white-label.
      const plain = await t.addTenant({ name: 'Plain' });
      refused(await t.api('POST', '/api/v1/tenants', { ...as(plain), body: { name: 'Sub', domainConfiguration: [] } }), 403, 'no-package');
      const noWl = await t.addTenant({ name: 'Metered', monthlyCredits: 1000 });
      refused(await t.api('POST', '/api/v1/tenants', { ...as(noWl), body: { name: 'Sub', domainConfiguration: [] } }), 403, 'white-labeling-not-allowed');

      const id = gamma.tenantId;
      refused(await t.api('PATCH', `/api/v1/tenants/${id}`, { body: { hasFlexPricing: true } }), 400, 'unexpected-param');
      refused(await t.api('PATCH', `/api/v1/tenants/${id}`, { body: { managedByTenantId: plain.tenantId } }), 400, 'cannot-move-tenant');
      refused(await t.api('PATCH', `/api/v1/tenants/${id}`, { body: { billingInfoValid: true } }), 400, 'invalid-billing-info');
      refused(await t.api('PATCH', `/api/v1/tenants/${id}`, { body: { paymentFrequency: 3 } }), 400, 'payment-frequency-invalid');
      refused(await t.api('PATCH', `/api/v1/tenants/${id}`, { body: { packageId: 'not-its-package' } }), 400, 'invalid-package');
      refused(await t.api('PATCH', `/api/v1/tenants/${id}`, { body: { email: 'owner@root.example' } }), 409, 'email-taken');
      refused(await t.api('PATCH', `/api/v1/tenants/${id}`, { body: { name: '' } }), 400, 'name-invalid');
      const pkg = await usePackage(t, gamma);
      // Its own key may change its record, but not its package or payment frequency.
      refused(await t.api('PATCH', `/api/v1/tenants/${id}`, { ...as(gamma), body: { packageId: '' } }), 403, 'cannot-change-package');
      refused(await t.api('PATCH', `/api/v1/tenants/${id}`, { ...as(gamma), body: { paymentFrequency: 1 } }), 403, 'cannot-change-payment-frequency');
      assert.equal(ok(await call<{ tenant: Json }>(t, 'PATCH', `/api/v1/tenants/${id}`, { ...as(gamma), body: { name: 'Gamma Inc', email: 'g@gamma.example' } })).tenant['packageId'], pkg);
      assert.equal(ok(await call<{ tenant: Json }>(t, 'PATCH', `/api/v1/tenants/${id}`, { body: { paymentFrequency: 1 } })).tenant['paymentFrequency'], 1, 'its manager may');
    });

    test('packages: made by the manager for a managed tenant, below its own limits, at most five, not deletable in use', async () => {
      const child = await managedTenant(t, 'Pkgs', t.tenant);
      const created = ok(await call<{ tenantPackage: Json }>(t, 'POST', '/api/v1/tenant-packages', { body: packageBody({ tenantId: child.tenantId, maxMonthlyAPICredits: 3 }) }));
      const id = created.tenantPackage['_id'] as string;
      assert.equal(created.tenantPackage['tenantId'], child.tenantId);
      // The generated clients' form: the manager's key naming the managed tenant, no tenantId in the body.
      const second = ok(await call<{ tenantPackage: Json }>(t, 'POST', '/api/v1/tenant-packages', { ...as(t.tenant, child.tenantId), body: packageBody({ name: 'Second' }) }));
      assert.equal(second.tenantPackage['tenantId'], child.tenantId);

      const { tenantId: _omit, ...noTenant } = packageBody();
      refused(await t.api('POST', '/api/v1/tenant-packages', { body: noTenant }), 403, 'own-tenant-package');
      refused(await t.api('POST', '/api/v1/tenant-packages', { body: packageBody({ tenantId: child.tenantId, name: 'x'.repeat(51) }) }), 400, 'name-too-long');
      refused(await t.api('POST', '/api/v1/tenant-packages', { body: packageBody({ tenantId: child.tenantId, forWhoText: 'x'.repeat(201) }) }), 400, 'for-who-text-too-long');
      refused(await t.api('POST', '/api/v1/tenant-packages', { body: packageBody({ tenantId: child.tenantId, featureTaglines: ['x'.repeat(101)] }) }), 400, 'feature-tag-lines-too-long');
      refused(await t.api('POST', '/api/v1/tenant-packages', { body: packageBody({ tenantId: child.tenantId, hasFlexPricing: true }) }), 400, 'flex-param-missing');
      refused(await t.api('POST', '/api/v1/tenant-packages', { body: packageBody({ tenantId: child.tenantId, flexPageLoadUnit: 5 }) }), 400, 'unexpected-flex-param');
      refused(await t.api('POST', '/api/v1/tenant-packages', { body: packageBody({ tenantId: child.tenantId, maxMonthlyAPICredits: 100_000 }) }), 400, 'child-tenant-too-large');
      refused(await t.api('POST', '/api/v1/tenant-packages', { body: packageBody({ tenantId: child.tenantId, maxWhiteLabeledTenants: 1 }) }), 403, 'nesting-not-allowed');
      const { maxDomains: _gone, ...incomplete } = packageBody({ tenantId: child.tenantId });
      refused(await t.api('POST', '/api/v1/tenant-packages', { body: incomplete }), 400, 'missing-param');
      const flex = ['flexPageLoadCostCents', 'flexPageLoadUnit', 'flexCommentCostCents', 'flexCommentUnit', 'flexSSOUserCostCents', 'flexSSOUserUnit', 'flexAPICreditCostCents', 'flexAPICreditUnit', 'flexModeratorCostCents', 'flexModeratorUnit', 'flexAdminCostCents', 'flexAdminUnit', 'flexDomainCostCents', 'flexDomainUnit', 'flexMinimumCostCents'];
      const flexPkg = ok(await call<{ tenantPackage: Json }>(t, 'POST', '/api/v1/tenant-packages', { body: packageBody({ tenantId: child.tenantId, hasFlexPricing: true, ...Object.fromEntries(flex.map((f) => [f, 1])) }) }));
      assert.equal(flexPkg.tenantPackage['hasFlexPricing'], true);
      ok(await call(t, 'POST', '/api/v1/tenant-packages', { body: packageBody({ tenantId: child.tenantId, name: 'Four' }) }));
      ok(await call(t, 'POST', '/api/v1/tenant-packages', { body: packageBody({ tenantId: child.tenantId, name: 'Five' }) }));
      refused(await t.api('POST', '/api/v1/tenant-packages', { body: packageBody({ tenantId: child.tenantId, name: 'Six' }) }), 403, 'package-limit-reached');

      const list = ok(await call<{ tenantPackages: Json[] }>(t, 'GET', '/api/v1/tenant-packages', as(t.tenant, child.tenantId)));
      assert.equal(list.tenantPackages.length, 5);
      assert.equal(ok(await call<{ tenantPackage: Json }>(t, 'GET', `/api/v1/tenant-packages/${id}`, as(child))).tenantPackage['name'], 'Basic', 'the tenant reads its package');

      ok(await call(t, 'PATCH', `/api/v1/tenants/${child.tenantId}`, { body: { packageId: id } }));
      const raised = ok(await call<{ tenantPackage: Json }>(t, 'PATCH', `/api/v1/tenant-packages/${id}`, { body: { maxMonthlyAPICredits: 10 } }));
      assert.equal(raised.tenantPackage['maxMonthlyAPICredits'], 10);
      assert.equal(raised.tenantPackage['name'], 'Basic', 'PATCH keeps the rest');

      refused(await t.api('PATCH', `/api/v1/tenant-packages/${id}`, { body: { tenantId: t.tenant.tenantId } }), 400, 'tenant-id-immutable');
      refused(await t.api('PATCH', `/api/v1/tenant-packages/${id}`, { body: { hasFlexPricing: true } }), 400, 'flex-param-missing');
      refused(await t.api('PATCH', `/api/v1/tenant-packages/${id}`, { body: { maxMonthlyAPICredits: 1e9 } }), 400, 'child-tenant-too-large');
      refused(await t.api('PATCH', `/api/v1/tenant-packages/${id}`, { ...as(child), body: { maxMonthlyAPICredits: 999 } }), 403, 'own-tenant-package', 'a tenant cannot raise its own limits');
      refused(await t.api('PUT', `/api/v1/tenant-packages/${id}`, { body: { name: 'Only a name' } }), 400, 'missing-param');
      const replaced = ok(await call<{ tenantPackage: Json }>(t, 'PUT', `/api/v1/tenant-packages/${id}`, { body: packageBody({ name: 'Replaced', maxMonthlyAPICredits: 20 }) }));
      assert.equal(replaced.tenantPackage['name'], 'Replaced');

      refused(await t.api('DELETE', `/api/v1/tenant-packages/${id}`), 409, 'package-in-use');
      refused(await t.api('DELETE', `/api/v1/tenant-packages/${second.tenantPackage['_id']}`, as(child)), 403, 'own-tenant-package');
      ok(await call(t, 'DELETE', `/api/v1/tenant-packages/${second.tenantPackage['_id']}`));
      refused(await t.api('GET', `/api/v1/tenant-packages/${second.tenantPackage['_id']}`), 404, 'not-found');
      t = await t.restart();
      assert.equal(ok(await call<{ tenantPackage: Json }>(t, 'GET', `/api/v1/tenant-packages/${id}`)).tenantPackage['name'], 'Replaced', 'durable');
      assert.equal(ok(await call<{ tenant: Json }>(t, 'GET', `/api/v1/tenants/${child.tenantId}`)).tenant['packageId'], id);
    });

    test("the ledger takes its allowance from the package in use, and follows the package's changes", async () => {
      // Calls naming the managed tenant are charged to it: these are made naming the manager.
      const metered = await managedTenant(t, 'Metered');
      const pkg = ok(await call<{ tenantPackage: Json }>(t, 'POST', '/api/v1/tenant-packages', { body: packageBody({ tenantId: metered.tenantId, maxMonthlyAPICredits: 3 }) }));
      const id = pkg.tenantPackage['_id'] as string;
      ok(await call(t, 'PATCH', `/api/v1/tenants/${metered.tenantId}`, { body: { packageId: id } }));
      for (let i = 0; i < 3; i++) ok(await call(t, 'GET', '/api/v1/sso-users', as(metered)));
      refused(await t.api('GET', '/api/v1/sso-users', as(metered)), 402, 'credits-exhausted');
      ok(await call(t, 'PATCH', `/api/v1/tenant-packages/${id}`, { body: { maxMonthlyAPICredits: 4 } }));
      ok(await call(t, 'GET', '/api/v1/sso-users', as(metered)));
      refused(await t.api('GET', '/api/v1/sso-users', as(metered)), 402, 'credits-exhausted');
      // No package in use: unlimited again.
      ok(await call(t, 'PATCH', `/api/v1/tenants/${metered.tenantId}`, { body: { packageId: null } }));
      ok(await call(t, 'GET', '/api/v1/sso-users', as(metered)));
    });

    test('isolation: a managed tenant reaches neither its manager nor its siblings; a manager only what it manages', async () => {
      const a = await managedTenant(t, 'Iso A');
      const b = await managedTenant(t, 'Iso B');
      const pkgA = await usePackage(t, a);
      const pkgB = await usePackage(t, b);
      const stranger = await t.addTenant({ name: 'Stranger', whiteLabeledTenants: 1 });
      const root = t.tenant.tenantId;
      // A managed tenant's own key.
      refused(await t.api('GET', `/api/v1/tenants/${root}`, as(a)), 404, 'not-found', 'its manager');
      refused(await t.api('GET', `/api/v1/tenants/${b.tenantId}`, as(a)), 404, 'not-found', 'a sibling');
      refused(await t.api('PATCH', `/api/v1/tenants/${b.tenantId}`, { ...as(a), body: { name: 'Taken over' } }), 404, 'not-found');
      refused(await t.api('DELETE', `/api/v1/tenants/${b.tenantId}`, { ...as(a), query: { su: true } }), 404, 'not-found');
      refused(await t.api('GET', `/api/v1/tenant-packages/${pkgB}`, as(a)), 404, 'not-found');
      refused(await t.api('PATCH', `/api/v1/tenant-packages/${pkgB}`, { ...as(a), body: { name: 'x' } }), 404, 'not-found');
      refused(await t.api('GET', '/api/v1/sso-users', as(a, root)), 401, 'invalid-api-key', 'its key names its manager');
      refused(await t.api('GET', '/api/v1/sso-users', as(a, b.tenantId)), 401, 'invalid-api-key', 'its key names a sibling');
      assert.deepEqual(ok(await call<{ tenants: Json[] }>(t, 'GET', '/api/v1/tenants', as(a))).tenants, []);
      assert.deepEqual(ok(await call<{ tenantPackages: Json[] }>(t, 'GET', '/api/v1/tenant-packages', as(a))).tenantPackages.map((p) => p['_id']), [pkgA]);
      // The manager's key naming one managed tenant reaches that one only.
      refused(await t.api('GET', `/api/v1/tenants/${b.tenantId}`, as(t.tenant, a.tenantId)), 404, 'not-found');
      assert.deepEqual(ok(await call<{ tenantPackages: Json[] }>(t, 'GET', '/api/v1/tenant-packages', as(t.tenant, a.tenantId))).tenantPackages.map((p) => p['_id']), [pkgA]);
      assert.equal(ok(await call<{ tenant: Json }>(t, 'GET', `/api/v1/tenants/${a.tenantId}`, as(t.tenant, a.tenantId))).tenant['name'], 'Iso A');
      // Another white-label tenant reaches nothing of these.
      refused(await t.api('GET', `/api/v1/tenants/${a.tenantId}`, as(stranger)), 404, 'not-found');
      refused(await t.api('PATCH', `/api/v1/tenants/${a.tenantId}`, { ...as(stranger), body: { name: 'x' } }), 404, 'not-found');
      refused(await t.api('GET', `/api/v1/tenant-packages/${pkgA}`, as(stranger)), 404, 'not-found');
      refused(await t.api('POST', '/api/v1/tenant-packages', { ...as(stranger), body: packageBody({ tenantId: a.tenantId }) }), 404, 'not-found');
      refused(await t.api('GET', '/api/v1/sso-users', as(stranger, a.tenantId)), 401, 'invalid-api-key');
      assert.ok(ok(await call<{ tenants: Json[] }>(t, 'GET', '/api/v1/tenants', as(stranger))).tenants.every((x) => x['managedByTenantId'] === stranger.tenantId));
    });
  });
}
