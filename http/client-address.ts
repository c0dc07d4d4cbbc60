/**
 * Client addresses as limits count them. One address has many spellings (`::ffff:1.2.3.4` is
 * `1.2.3.4`, `001.002.003.004` too, `2001:DB8::1` is `2001:db8::1`), and a limit keyed by the
 * text would give each spelling its own allowance; so every address is first normalised. An
 * IPv6 client usually holds a whole /64, so limits count IPv6 addresses by their /64 prefix.
 */
import { isIPv6 } from 'node:net';

const DOTTED = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const MAPPED = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

function ipv4(text: string): string | undefined {
  const m = DOTTED.exec(text);
  if (m === null) return undefined;
  // Each part is decimal, leading zeros included (never octal).
  const parts = m.slice(1).map((p) => Number.parseInt(p, 10));
  return parts.every((p) => p <= 255) ? parts.join('.') : undefined;
}

/**
 * The canonical text of an IPv4 or IPv6 address (IPv4-mapped IPv6 addresses as IPv4), or
 * undefined when `text` is not an address. Brackets and a zone (`%eth0`) are dropped.
 */
export function normalizeAddress(text: string): string | undefined {
  let address = text.trim();
  if (address.startsWith('[') && address.endsWith(']')) address = address.slice(1, -1);
  const v4 = ipv4(address);
  if (v4 !== undefined) return v4;
  const zone = address.indexOf('%');
  if (zone >= 0) address = address.slice(0, zone);
  if (!isIPv6(address)) return undefined;
  const canonical = new URL(`http://[${address}]`).hostname.slice(1, -1);
  const mapped = MAPPED.exec(canonical);
  if (mapped === null) return canonical;
  const high = Number.parseInt(mapped[1]!, 16);
  const low = Number.parseInt(mapped[2]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** What a per-client limit counts a normalised address as: itself for IPv4, its /64 for IPv6. */
export function limitKey(address: string): string {
  if (!address.includes(':')) return address;
  const groups = expand(address);
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/** The eight groups of a canonical IPv6 address. */
function expand(address: string): string[] {
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
  const left = head ? head.split(':') : [];
  if (tail === undefined) return left;
  const right = tail ? tail.split(':') : [];
  return [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
}

/** The last element of a `Forwarded` header (RFC 7239): the one the nearest proxy added. */
function lastForwarded(header: string | undefined, param: 'for' | 'proto'): string | undefined {
  if (!header) return undefined;
  const elements = header.split(',');
  for (const pair of elements[elements.length - 1]!.split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim().toLowerCase() !== param) continue;
    return pair.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
  }
  return undefined;
}

function lastListed(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const items = header.split(',');
  return items[items.length - 1]!.trim() || undefined;
}

/**
 * Behind a trusted reverse proxy: the client address the proxy reported, from the last
 * `X-Forwarded-For` entry (earlier ones are whatever the client sent, so a client could pick
 * its own address with them), else the last `Forwarded` element's `for`.
 */
export function forwardedClient(headers: Readonly<Record<string, string>>): string | undefined {
  const address = lastListed(headers['x-forwarded-for']) ?? lastForwarded(headers['forwarded'], 'for');
  if (address === undefined) return undefined;
  // `Forwarded: for="[2001:db8::1]:4711"` and `for=192.0.2.1:80` carry a port.
  const port = /^(\[[^\]]+\]|[^:]+):\d+$/.exec(address);
  return port === null ? address : port[1]!;
}

/** Behind a trusted reverse proxy: the scheme the client used, lower-cased (`X-Forwarded-Proto`, else `Forwarded: proto=`). */
export function forwardedProto(headers: Readonly<Record<string, string>>): string | undefined {
  return (lastListed(headers['x-forwarded-proto']) ?? lastForwarded(headers['forwarded'], 'proto'))?.toLowerCase();
}
