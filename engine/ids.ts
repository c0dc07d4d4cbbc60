import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const PROCESS_RANDOM = randomBytes(5).toString('hex');
let counter = randomBytes(3).readUIntBE(0, 3);
let lastSecond = -1;
let secondHex = '';

/**
 * A new 24-hex-character id in the layout of a MongoDB ObjectId (seconds, process random,
 * counter), so ids sort by creation time and never collide within or across processes. Made
 * from strings: a busy page makes several per vote.
 */
export function newId(nowMs: number = Date.now()): string {
  const second = Math.floor(nowMs / 1000) >>> 0;
  if (second !== lastSecond) {
    lastSecond = second;
    secondHex = second.toString(16).padStart(8, '0');
  }
  counter = (counter + 1) & 0xffffff;
  return secondHex + PROCESS_RANDOM + counter.toString(16).padStart(6, '0');
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
  return matchingDigest(known, given) >= 0;
}

/** Like `matchesAnyDigest`, answering which one matched (its index), or -1. */
export function matchingDigest(known: readonly Buffer[], given: Buffer): number {
  let found = -1;
  for (let i = 0; i < known.length; i++) {
    const digest = known[i]!;
    if (digest.length === given.length && timingSafeEqual(digest, given)) found = i;
  }
  return found;
}
