/**
 * Calls of every identity operation (SSO users, tenant users, moderators, tenants, packages,
 * audit logs) with valid input, for the OpenAPI wire-shape test: `t.api` validates each answer.
 */
import assert from 'node:assert/strict';
import type { TestServer } from '../fixtures/server.js';
import { as } from './identity-helpers.js';
import { packageBody } from './white-label-helpers.js';

type Json = Record<string, unknown>;

function ok<T>(r: { status: number; body: T }, what: string): T {
  assert.equal(r.status, 200, `${what}: ${JSON.stringify(r.body)}`);
  return r.body;
}

export async function callIdentityOperations(t: TestServer): Promise<void> {
  ok(await t.api('POST', '/api/v1/sso-users', { body: { id: 'shape', username: 'shape', email: 'shape@shapes.example', groupIds: ['g1'], badgeConfig: { badgeIds: ['b1'] } } }), 'add SSO user');
  ok(await t.api('GET', '/api/v1/sso-users'), 'SSO users');
  ok(await t.api('GET', '/api/v1/sso-users/by-id/shape'), 'SSO user by id');
  ok(await t.api('GET', '/api/v1/sso-users/by-email/shape%40shapes.example'), 'SSO user by email');
  ok(await t.api('PATCH', '/api/v1/sso-users/shape', { body: { displayName: 'Shape' } }), 'patch SSO user');
  ok(await t.api('PUT', '/api/v1/sso-users/shape', { body: { username: 'shape2', email: 'shape@shapes.example' } }), 'put SSO user');
  ok(await t.api('DELETE', '/api/v1/sso-users/shape', { query: { deleteComments: true } }), 'delete SSO user');

  const tu = ok(await t.api<{ tenantUser: Json }>('POST', '/api/v1/tenant-users', { body: { username: 'shapeuser', email: 'shapeuser@shapes.example', isAdminAdmin: true, lastLoginDate: 1000 } }), 'add tenant user').tenantUser;
  ok(await t.api('GET', '/api/v1/tenant-users'), 'tenant users');
  ok(await t.api('GET', `/api/v1/tenant-users/${tu['id']}`), 'tenant user');
  ok(await t.api('PATCH', `/api/v1/tenant-users/${tu['id']}`, { body: { displayName: 'Shape User' } }), 'patch tenant user');
  ok(await t.api('PUT', `/api/v1/tenant-users/${tu['id']}`, { body: { username: 'shapeuser', email: 'shapeuser@shapes.example', locale: 'fr_fr' } }), 'put tenant user');
  ok(await t.api('POST', `/api/v1/tenant-users/${tu['id']}/send-login-link`), 'send a login link');
  ok(await t.api('GET', `/api/v1/users/${tu['id']}`), 'a tenant user as a User');

  const mod = ok(await t.api<{ moderator: Json }>('POST', '/api/v1/moderators', { body: { name: 'Shape Mod', email: 'mod@shapes.example', userId: tu['id'] } }), 'add moderator').moderator;
  ok(await t.api('GET', '/api/v1/moderators'), 'moderators');
  ok(await t.api('GET', `/api/v1/moderators/${mod['_id']}`), 'moderator');
  ok(await t.api('PATCH', `/api/v1/moderators/${mod['_id']}`, { body: { name: 'Shape Moderator' } }), 'patch moderator');
  ok(await t.api('POST', `/api/v1/moderators/${mod['_id']}/send-invite`, { query: { fromName: 'Shapes' } }), 'send an invite');
  ok(await t.api('DELETE', `/api/v1/moderators/${mod['_id']}`), 'delete moderator');
  ok(await t.api('DELETE', `/api/v1/tenant-users/${tu['id']}`), 'delete tenant user');

  // White labelling and the audit log need a package that allows them.
  const parent = await t.addTenant({ name: 'Shapes parent', whiteLabeledTenants: 2, auditing: true });
  const asParent = as(parent);
  const child = ok(await t.api<{ tenant: Json }>('POST', '/api/v1/tenants', { ...asParent, body: { name: 'Shapes child', email: 'child@shapes.example', domainConfiguration: [{ domain: 'child.example' }], meta: { plan: 'gold' } } }), 'add tenant').tenant;
  ok(await t.api('GET', '/api/v1/tenants', asParent), 'tenants');
  ok(await t.api('GET', `/api/v1/tenants/${child['id']}`, asParent), 'tenant');
  const pkg = ok(await t.api<{ tenantPackage: Json }>('POST', '/api/v1/tenant-packages', { ...asParent, body: packageBody({ tenantId: child['id'] }) }), 'add package').tenantPackage;
  ok(await t.api('GET', '/api/v1/tenant-packages', asParent), 'packages');
  ok(await t.api('GET', `/api/v1/tenant-packages/${pkg['_id']}`, asParent), 'package');
  ok(await t.api('PATCH', `/api/v1/tenant-packages/${pkg['_id']}`, { ...asParent, body: { name: 'Patched' } }), 'patch package');
  ok(await t.api('PUT', `/api/v1/tenant-packages/${pkg['_id']}`, { ...asParent, body: packageBody({ name: 'Replaced' }) }), 'put package');
  ok(await t.api('PATCH', `/api/v1/tenants/${child['id']}`, { ...asParent, body: { packageId: pkg['_id'], billingInfoValid: true, billingInfo: { name: 'C', address: 'A', city: 'C', state: 'S', zip: 'Z', country: 'NL' } } }), 'patch tenant');
  ok(await t.api('GET', '/api/v1/audit-logs', asParent), 'audit logs');
  ok(await t.api('PATCH', `/api/v1/tenants/${child['id']}`, { ...asParent, body: { packageId: null } }), 'release the package');
  ok(await t.api('DELETE', `/api/v1/tenant-packages/${pkg['_id']}`, asParent), 'delete package');
  ok(await t.api('DELETE', `/api/v1/tenants/${child['id']}`, { ...asParent, query: { su: true } }), 'delete tenant');
}
