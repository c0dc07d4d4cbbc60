/**
 * The links in emails: a commenter's verification link and the unsubscribe link. Each is
 * signed (HMAC-SHA256 under a key derived from the server's stored secret), so it cannot be
 * guessed or altered and needs no storage until it is opened. Verification links expire after
 * 30 days; unsubscribe links do not.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../engine/errors.js';

/** How long a verification link works. */
export const VERIFY_LINK_MS = 30 * 24 * 3600 * 1000;

/** Public paths of the links (routes in http/routes/email-links.ts). */
export const LINK_PATHS = { verify: '/email/v1/verify', unsubscribe: '/email/v1/unsubscribe' } as const;

export class EmailLinks {
  #key: Buffer | undefined;
  #baseUrl: string;

  constructor(baseUrl: string) {
    this.#baseUrl = baseUrl.replace(/\/+$/, '');
  }

  /** Derives the links' key from the server's stored secret (the same on every node). */
  setSecret(serverSecret: string): void {
    this.#key = createHmac('sha256', serverSecret).update('email-links').digest();
  }

  /** The server's public base URL (known once it listens, when PUBLIC_URL is not set). */
  get baseUrl(): string {
    return this.#baseUrl;
  }

  set baseUrl(url: string) {
    this.#baseUrl = url.replace(/\/+$/, '');
  }

  /** The host receivers see in Message-IDs. */
  get host(): string {
    try {
      return new URL(this.#baseUrl).hostname || 'localhost';
    } catch {
      return 'localhost';
    }
  }

  verifyUrl(tenantId: string, userId: string, nowMs: number): string {
    const exp = String(nowMs + VERIFY_LINK_MS);
    const sig = this.#sign(['verify', tenantId, userId, exp]);
    return `${this.#baseUrl}${LINK_PATHS.verify}?${new URLSearchParams({ tenantId, userId, exp, sig })}`;
  }

  unsubscribeUrl(tenantId: string, email: string): string {
    const sig = this.#sign(['unsubscribe', tenantId, email]);
    return `${this.#baseUrl}${LINK_PATHS.unsubscribe}?${new URLSearchParams({ tenantId, email, sig })}`;
  }

  /** Throws `invalid-link` unless the verification link is genuine and unexpired. */
  checkVerify(tenantId: string, userId: string, exp: string, sig: string, nowMs: number): void {
    this.#check(['verify', tenantId, userId, exp], sig);
    if (!/^\d+$/.test(exp) || Number(exp) < nowMs) throw new ApiError('invalid-link', 'This verification link has expired.');
  }

  /** Throws `invalid-link` unless the unsubscribe link is genuine. */
  checkUnsubscribe(tenantId: string, email: string, sig: string): void {
    this.#check(['unsubscribe', tenantId, email], sig);
  }

  #sign(parts: readonly string[]): string {
    if (this.#key === undefined) throw new Error('email links are used before the server started');
    return createHmac('sha256', this.#key).update(parts.join('\n')).digest('base64url');
  }

  #check(parts: readonly string[], sig: string): void {
    const expected = Buffer.from(this.#sign(parts));
    const given = Buffer.from(sig);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new ApiError('invalid-link');
  }
}
