/**
 * Static bytes kept compressed in advance (gzip and brotli, once per process), and the choice
 * of one of them for a request by its `Accept-Encoding` (RFC 9110 §12.5.3), with a strong
 * ETag per encoding for conditional requests (§13.1.2).
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** The encodings kept, smallest usually first: the order breaks ties between equal q-values. */
export const ENCODINGS = ['br', 'gzip', 'identity'] as const;
export type Encoding = (typeof ENCODINGS)[number];

/** One encoding of the bytes, with its own validator. */
export interface Variant {
  readonly encoding: Encoding;
  readonly body: Buffer;
  /** Strong, quoted: differs per encoding, as the bytes on the wire do. */
  readonly etag: string;
}

/** The same bytes in every kept encoding (an encoding that would not be smaller is not kept). */
export type Encoded = ReadonlyMap<Encoding, Variant>;

/**
 * Compresses `identity` both ways, at the highest levels: done once per file and process, off
 * the event loop (zlib's thread pool).
 */
export async function encodeAll(identity: Buffer, text = true): Promise<Encoded> {
  const tag = createHash('sha256').update(identity).digest('base64url').slice(0, 22);
  const [br, gz] = await Promise.all([
    brotliAsync(identity, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_MODE]: text ? constants.BROTLI_MODE_TEXT : constants.BROTLI_MODE_GENERIC,
        [constants.BROTLI_PARAM_SIZE_HINT]: identity.length,
      },
    }),
    gzipAsync(identity, { level: constants.Z_BEST_COMPRESSION }),
  ]);
  const variants = new Map<Encoding, Variant>();
  if (br.length < identity.length) variants.set('br', { encoding: 'br', body: br, etag: `"${tag}-br"` });
  if (gz.length < identity.length) variants.set('gzip', { encoding: 'gzip', body: gz, etag: `"${tag}-gz"` });
  variants.set('identity', { encoding: 'identity', body: identity, etag: `"${tag}"` });
  return variants;
}

/** The q-value of each coding named in an `Accept-Encoding` value (`*` included), lower-case. */
function qualities(accept: string): Map<string, number> {
  const named = new Map<string, number>();
  for (const item of accept.split(',')) {
    const [name = '', ...params] = item.split(';');
    const coding = name.trim().toLowerCase();
    if (coding === '') continue;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split('=');
      if (key?.trim().toLowerCase() !== 'q') continue;
      const parsed = Number(value?.trim());
      q = Number.isFinite(parsed) && parsed >= 0 && parsed <= 1 ? parsed : 0;
    }
    // Repeated: the most favourable spelling counts.
    named.set(coding, Math.max(q, named.get(coding) ?? 0));
  }
  return named;
}

/**
 * The variant to send for `accept` (the request's `Accept-Encoding`, '' when absent: then
 * identity, as nothing says the client can decode more). The highest q-value wins, ties going
 * to the smaller bytes. Identity is acceptable unless excluded (`identity;q=0`, or `*;q=0`
 * without naming it), ranked as `*` or else as the least wanted coding named; when every kept
 * encoding is excluded, identity is sent all the same (§12.5.3 lets a server do so rather
 * than refuse).
 */
export function chooseVariant(encoded: Encoded, accept: string): Variant {
  const identity = encoded.get('identity')!;
  if (accept.trim() === '') return identity;
  const named = qualities(accept);
  const star = named.get('*');
  // Identity, acceptable unless excluded, ranks with the least wanted coding named: a client
  // that names only codings it ranks below 1 still wants them over no coding at all.
  let lowest = 1;
  for (const q of named.values()) if (q > 0) lowest = Math.min(lowest, q);
  let best: Variant | undefined;
  let bestQ = 0;
  for (const encoding of ENCODINGS) {
    const variant = encoded.get(encoding);
    if (variant === undefined) continue;
    // x-gzip is gzip's old name (§8.4.1.3).
    const q = named.get(encoding) ?? (encoding === 'gzip' ? named.get('x-gzip') : undefined) ?? (encoding === 'identity' ? (star ?? lowest) : (star ?? 0));
    if (q > bestQ) {
      best = variant;
      bestQ = q;
    }
  }
  return best ?? identity;
}

/**
 * Whether an `If-None-Match` value matches `etag` (weak comparison, §13.1.2: a `W/` prefix is
 * ignored; `*` matches any current representation).
 */
export function noneMatch(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch.trim() === '*') return true;
  const matches = ifNoneMatch.match(/(?:W\/)?"[^"]*"/g) ?? [];
  return matches.some((tag) => (tag.startsWith('W/') ? tag.slice(2) : tag) === etag);
}
