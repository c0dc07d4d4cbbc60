import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const PROCESS_RANDOM = randomBytes(5);
let counter = randomBytes(3).readUIntBE(0, 3);

/**
 * A new 24-hex-character id in the layout of a MongoDB ObjectId (seconds, process random,
 * counter), so ids sort by creation time and never collide within or across processes.
 */
export function newId(nowMs: number = Date.now()): string {
  const buf = Buffer.allocUnsafe(12);
  buf.writeUInt32BE(Math.floor(nowMs / 1000) >>> 0, 0);
  PROCESS_RANDOM.copy(buf, 4);
  counter = (counter + 1) & 0xffffff;
  buf.writeUIntBE(counter, 9, 3);
  return buf.toString('hex');
}

/** A random URL-safe secret with `bytes` bytes of entropy. */
export function newSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** The SHA-256 of a high-entropy secret, hex. Secrets are stored only in this form. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/**
 * Whether `given` equals one of `known` (digests as bytes). Compares against every one, in
 * constant time each, so the time taken reveals neither whether nor which one matched.
 */
export function matchesAnyDigest(known: readonly Buffer[], given: Buffer): boolean {
  let found = false;
  for (const digest of known) if (digest.length === given.length && timingSafeEqual(digest, given)) found = true;
  return found;
}
