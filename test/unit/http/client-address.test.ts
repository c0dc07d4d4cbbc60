import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forwardedClient, forwardedProto, limitKey, normalizeAddress } from '../../../http/client-address.js';

test('every spelling of one address normalises to one text', () => {
  for (const spelling of ['1.2.3.4', '001.002.003.004', ' 1.2.3.4 ', '::ffff:1.2.3.4', '::FFFF:102:304', '0:0:0:0:0:ffff:0102:0304', '[::ffff:1.2.3.4]']) {
    assert.equal(normalizeAddress(spelling), '1.2.3.4', spelling);
  }
  assert.equal(normalizeAddress('2001:DB8:0:0::1'), '2001:db8::1');
  assert.equal(normalizeAddress('[2001:db8::1]'), '2001:db8::1');
  assert.equal(normalizeAddress('fe80::1%eth0'), 'fe80::1');
  assert.equal(normalizeAddress('::1'), '::1');
});

test('what is not an address is undefined', () => {
  for (const bad of ['', 'localhost', '1.2.3', '1.2.3.256', '1.2.3.4.5', '0x7f.1.1.1', '::g', '1.2.3.4/24', 'a'.repeat(100)]) {
    assert.equal(normalizeAddress(bad), undefined, bad);
  }
});

test('limits count IPv4 addresses alone and IPv6 addresses by their /64', () => {
  assert.equal(limitKey('1.2.3.4'), '1.2.3.4');
  assert.equal(limitKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(limitKey('2001:db8:1:2:bbbb:cccc:dddd:eeee'), '2001:db8:1:2::/64');
  assert.equal(limitKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(limitKey('::1'), '0:0:0:0::/64');
});

test('behind a proxy, the client is the last forwarded entry; the scheme is read in any case', () => {
  assert.equal(forwardedClient({ 'x-forwarded-for': 'spoofed, 9.9.9.9, 5.6.7.8' }), '5.6.7.8');
  assert.equal(forwardedClient({ forwarded: 'for=1.1.1.1, for="[2001:db8::7]:4711";proto=https' }), '[2001:db8::7]');
  assert.equal(forwardedClient({ forwarded: 'for=192.0.2.60:8080' }), '192.0.2.60');
  assert.equal(forwardedClient({}), undefined);
  assert.equal(forwardedProto({ 'x-forwarded-proto': 'HTTPS' }), 'https');
  assert.equal(forwardedProto({ forwarded: 'for=1.1.1.1;Proto=HTTPS' }), 'https');
  assert.equal(forwardedProto({ 'x-forwarded-proto': 'http, https' }), 'https');
  assert.equal(forwardedProto({}), undefined);
});
