/**
 * Where webhooks may go. A tenant must not make the server call into its own network: a URL
 * whose host is, or resolves to, a loopback, private, link-local or otherwise non-public
 * address is refused (unless the operator allows it, `WEBHOOK_ALLOW_PRIVATE=true`). Checked
 * when subscribing and again at every delivery, on the very addresses the connection then uses
 * (a host that resolved to a public address once cannot be switched to an internal one later:
 * DNS rebinding).
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { ApiError } from '../engine/errors.js';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** Whether an IP address is one webhooks may not be sent to (IPv4-mapped IPv6 judged as IPv4). */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped !== null) return blocked.check(mapped[1]!, 'ipv4');
  return blocked.check(address, 'ipv6');
}

/** Resolves a host name to all its addresses. */
export type Resolver = (host: string) => Promise<readonly LookupAddress[]>;

const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) => dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

/** The host of a URL without IPv6 brackets. */
function hostOf(url: URL): string {
  const host = url.hostname;
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * Checks a subscription URL: absolute `http:`/`https:` (`invalid-url`), a host that resolves
 * (`webhook-host-unresolved`), and no address of it forbidden (`webhook-address-forbidden`)
 * unless `allowPrivate`.
 */
export async function checkWebhookUrl(raw: string, allowPrivate: boolean, resolve: Resolver = systemResolver): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ApiError('invalid-url', 'The webhook url must be an absolute http(s) URL.');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    throw new ApiError('invalid-url', 'The webhook url must be an absolute http(s) URL.');
  }
  const host = hostOf(url);
  let addresses: readonly string[];
  if (isIP(host) !== 0) addresses = [host];
  else {
    try {
      addresses = (await resolve(host)).map((a) => a.address);
    } catch {
      throw new ApiError('webhook-host-unresolved', `The host ${host} of the webhook url does not resolve.`);
    }
    if (addresses.length === 0) throw new ApiError('webhook-host-unresolved', `The host ${host} of the webhook url does not resolve.`);
  }
  if (!allowPrivate) {
    const bad = addresses.find(isForbiddenAddress);
    if (bad !== undefined) {
      throw new ApiError('webhook-address-forbidden', `The host ${host} of the webhook url is (or resolves to) ${bad}, a loopback, private or link-local address.`);
    }
  }
  return url;
}

/** Why a delivery was not sent: the receiver's address is forbidden. */
export class ForbiddenAddressError extends Error {
  override readonly name = 'ForbiddenAddressError';
}

/**
 * The `lookup` a delivery connects with: resolves like the system does, and refuses (unless
 * `allowPrivate`) when any address of the host is forbidden, so the address connected to is
 * one that was checked.
 */
export function guardedLookup(allowPrivate: boolean, resolve: Resolver = systemResolver): LookupFunction {
  return ((host: string, options: LookupOneOptions | LookupAllOptions, callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    resolve(host).then(
      (addresses) => {
        const family = typeof options === 'object' && options !== null ? options.family : undefined;
        const usable = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses;
        if (usable.length === 0) return callback(Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' }), '', 0);
        const bad = allowPrivate ? undefined : addresses.find((a) => isForbiddenAddress(a.address));
        if (bad !== undefined) return callback(new ForbiddenAddressError(`${host} resolves to ${bad.address}, a loopback, private or link-local address`), '', 0);
        if (typeof options === 'object' && options !== null && options.all === true) return callback(null, [...usable]);
        return callback(null, usable[0]!.address, usable[0]!.family);
      },
      (err: unknown) => callback(err as Error, '', 0),
    );
  }) as LookupFunction;
}

/** Refuses a URL whose host is a forbidden IP literal (literals are connected to without a lookup). */
export function assertDeliverable(url: URL, allowPrivate: boolean): void {
  const host = hostOf(url);
  if (!allowPrivate && isIP(host) !== 0 && isForbiddenAddress(host)) throw new ForbiddenAddressError(`${host} is a loopback, private or link-local address`);
}
