import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LiveIds } from '../../../actors/live/live-ids.js';
import { ipHashOf } from '../../../http/moderation/ip-hash.js';
import type { AppServices } from '../../../http/services.js';

const server = (secret: string) => ({ liveIds: new LiveIds(secret) }) as unknown as AppServices;

test('one address, however spelled, is one hash; another address another', () => {
  const app = server('secret-one');
  const hash = ipHashOf(app, 't1', '203.0.113.7')!;
  assert.match(hash, /^[A-Za-z0-9_-]{32}$/);
  assert.equal(ipHashOf(app, 't1', '::ffff:203.0.113.7'), hash);
  assert.equal(ipHashOf(app, 't1', ' 203.0.113.007 '), hash);
  assert.notEqual(ipHashOf(app, 't1', '203.0.113.8'), hash);
});

test('an IPv6 client is its /64', () => {
  const app = server('secret-one');
  assert.equal(ipHashOf(app, 't1', '2001:db8:1:2::1'), ipHashOf(app, 't1', '2001:DB8:1:2:ffff::9'));
  assert.notEqual(ipHashOf(app, 't1', '2001:db8:1:2::1'), ipHashOf(app, 't1', '2001:db8:1:3::1'));
});

test('keyed: another tenant or another server secret gives another hash', () => {
  const hash = ipHashOf(server('secret-one'), 't1', '203.0.113.7');
  assert.notEqual(ipHashOf(server('secret-one'), 't2', '203.0.113.7'), hash);
  assert.notEqual(ipHashOf(server('secret-two'), 't1', '203.0.113.7'), hash);
});

test('no address, no hash; other text is hashed as given, case aside', () => {
  const app = server('secret-one');
  assert.equal(ipHashOf(app, 't1', undefined), null);
  assert.equal(ipHashOf(app, 't1', null), null);
  assert.equal(ipHashOf(app, 't1', '  '), null);
  assert.equal(ipHashOf(app, 't1', 'Client-Token'), ipHashOf(app, 't1', 'client-token'));
});
