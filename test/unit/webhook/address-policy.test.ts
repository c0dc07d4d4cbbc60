import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { describe, test } from 'node:test';
import { checkWebhookUrl, ForbiddenAddressError, guardedLookup, isForbiddenAddress, type Resolver } from '../../../webhooks/address-policy.js';
import { ApiError } from '../../../engine/errors.js';

const resolver = (addresses: Record<string, string[]>): Resolver => async (host) => {
  const found = addresses[host];
  if (found === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
};

async function code(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (err) {
    return err instanceof ApiError ? err.code : String(err);
  }
}

describe('webhook address policy', () => {
  test('loopback, private, link-local and other non-public addresses are forbidden; public ones are not', () => {
    for (const address of ['127.0.0.1', '127.9.9.9', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fc00::1', 'fd12::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:10.1.1.1', 'not-an-ip']) {
      assert.ok(isForbiddenAddress(address), address);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:93.184.216.34']) {
      assert.ok(!isForbiddenAddress(address), address);
    }
  });

  test('a subscription URL is refused when any address of its host is forbidden', async () => {
    const resolve = resolver({ 'public.example': ['93.184.216.34'], 'mixed.example': ['93.184.216.34', '10.0.0.5'], 'v6.example': ['fe80::1'] });
    assert.equal((await checkWebhookUrl('https://public.example/hook', false, resolve)).href, 'https://public.example/hook');
    assert.equal(await code(checkWebhookUrl('https://mixed.example/hook', false, resolve)), 'webhook-address-forbidden');
    assert.equal(await code(checkWebhookUrl('http://v6.example/hook', false, resolve)), 'webhook-address-forbidden');
    assert.equal(await code(checkWebhookUrl('http://[fd00::1]/hook', false, resolve)), 'webhook-address-forbidden');
    assert.equal(await code(checkWebhookUrl('http://nowhere.example/', false, resolve)), 'webhook-host-unresolved');
    assert.equal(await code(checkWebhookUrl('file:///etc/passwd', false, resolve)), 'invalid-url');
    assert.equal(await code(checkWebhookUrl('gopher://public.example/', false, resolve)), 'invalid-url');
    assert.equal(await code(checkWebhookUrl('https://mixed.example/hook', true, resolve)), undefined, 'the operator may allow private addresses');
  });

  test('the lookup deliveries connect with refuses a host that now resolves to a forbidden address (DNS rebinding)', async () => {
    const resolve = resolver({ 'rebound.example': ['93.184.216.34', '127.0.0.1'], 'fine.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'] });
    const lookup = (allowPrivate: boolean, host: string, all: boolean) =>
      new Promise<{ err: Error | null; address: unknown }>((resolveLookup) => {
        guardedLookup(allowPrivate, resolve)(host, { all } as never, (err: Error | null, address: unknown) => resolveLookup({ err, address }));
      });
    const refused = await lookup(false, 'rebound.example', false);
    assert.ok(refused.err instanceof ForbiddenAddressError);
    assert.deepEqual((await lookup(false, 'fine.example', false)).address, '93.184.216.34');
    assert.equal(((await lookup(false, 'fine.example', true)).address as LookupAddress[]).length, 2);
    assert.equal((await lookup(true, 'rebound.example', false)).err, null);
  });
});
