/**
 * The secrets the authorization server hands out (docs/oauth.md): authorization codes, access
 * tokens and refresh tokens. Each is an opaque string carrying the grant it belongs to and
 * 256 random bits, `fcoa_<tenantId>.<grantId>.<secret>` (`fcoc_` codes, `fcor_` refresh
 * tokens), so the grant's actor is found without a lookup. Only SHA-256 hashes are stored.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { hashSecret, newSecret } from '../../engine/ids.js';

/** An authorization code may be exchanged within 10 minutes. */
export const CODE_MS = 10 * 60 * 1000;
/** An access token lives one hour. */
export const ACCESS_MS = 60 * 60 * 1000;
/** A refresh token lives 30 days (a partner client's is extended by as much at each use). */
export const REFRESH_MS = 30 * 24 * 60 * 60 * 1000;
/** A rotated refresh token keeps working this long (a retry gets the current pair back). */
export const GRACE_MS = 30 * 1000;

export type TokenKind = 'code' | 'access' | 'refresh';

const PREFIX: Readonly<Record<TokenKind, string>> = { code: 'c', access: 'a', refresh: 'r' };
const KIND_OF: Readonly<Record<string, TokenKind>> = { c: 'code', a: 'access', r: 'refresh' };
const TOKEN = /^fco([car])_([A-Za-z0-9_-]{1,64})\.([0-9a-f]{24})\.([A-Za-z0-9_-]{43})$/;

/** What a token names. */
export interface TokenRef {
  readonly kind: TokenKind;
  readonly tenantId: string;
  readonly grantId: string;
  /** The id of the grant's actor: `<tenantId>:<grantId>`. */
  readonly grantKey: string;
  /** The SHA-256 of the whole token, as stored. */
  readonly hash: string;
}

/** A new token of a grant. */
export function newToken(kind: TokenKind, tenantId: string, grantId: string): string {
  return `fco${PREFIX[kind]}_${tenantId}.${grantId}.${newSecret(32)}`;
}

/** The grant a token names, or undefined when it is not a token of this server's form. */
export function parseToken(token: string): TokenRef | undefined {
  const m = TOKEN.exec(token);
  if (m === null) return undefined;
  return { kind: KIND_OF[m[1]!]!, tenantId: m[2]!, grantId: m[3]!, grantKey: grantKey(m[2]!, m[3]!), hash: hashSecret(token) };
}

/** The id of a grant's actor. */
export function grantKey(tenantId: string, grantId: string): string {
  return `${tenantId}:${grantId}`;
}

/**
 * The key a rotated refresh token seals its successors under: derived from the token itself, so
 * storage alone (which holds only its hash) can never open what was sealed.
 */
function sealKey(token: string, grantId: string): Buffer {
  return Buffer.from(hkdfSync('sha256', token, grantId, 'oauth-refresh-grace', 32));
}

/** Encrypts `value` so that only the holder of `token` can read it back (AES-256-GCM). */
export function seal(token: string, grantId: string, value: unknown): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealKey(token, grantId), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** What `seal` sealed with `token`, or undefined when it was sealed with another. */
export function unseal<T>(token: string, grantId: string, sealed: string): T | undefined {
  const raw = Buffer.from(sealed, 'base64url');
  if (raw.length < 29) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealKey(token, grantId), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    const text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}
