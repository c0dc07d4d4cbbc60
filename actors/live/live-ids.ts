import { createHmac, timingSafeEqual } from 'node:crypto';

const MAC_BYTES = 12;

/**
 * The opaque ids widgets use to subscribe to live events (`tenantIdWS`, `urlIdWS`,
 * `userIdWS`). Each carries its value and a MAC binding it to its tenant under a server
 * secret, so no table is needed to resolve them, and an id handed out for one tenant's page
 * cannot be used with another tenant's `tenantIdWS`.
 */
export class LiveIds {
  readonly #secret: Buffer;

  constructor(secret: string) {
    this.#secret = Buffer.from(secret, 'utf8');
  }

  tenantIdWS(tenantId: string): string {
    return this.#sign('t', tenantId, tenantId);
  }

  urlIdWS(tenantId: string, urlId: string): string {
    return this.#sign('u', tenantId, urlId);
  }

  /**
   * A user's id carries its tenant too, so that the per-user channel (`tenantIdWS` of
   * `__internal_profiles`, which names no tenant) can tell whose user it is.
   */
  userIdWS(tenantId: string, userId: string): string {
    return this.#sign('s', tenantId, `${tenantId}\u0000${userId}`);
  }

  /**
   * The key an anonymous author's edit keys are made with (see actors/page/edit-key.ts): bound
   * to the tenant and the author's anonymous id under the server secret, so only this server
   * can make one, and one author's key proves nothing about another's comments.
   */
  authorEditSecret(tenantId: string, anonUserId: string): string {
    return createHmac('sha256', this.#secret).update(`e\u0000${tenantId}\u0000${anonUserId}`).digest('base64url');
  }

  /** The tenant id inside a `tenantIdWS`, or undefined if it is not one this server made. */
  tenantOf(tenantIdWS: string): string | undefined {
    const value = this.#open(tenantIdWS);
    return value !== undefined && this.#valid('t', value, value, tenantIdWS) ? value : undefined;
  }

  /** The urlId inside a `urlIdWS` made for `tenantId`, or undefined. */
  urlIdOf(tenantId: string, urlIdWS: string): string | undefined {
    const value = this.#open(urlIdWS);
    return value !== undefined && this.#valid('u', tenantId, value, urlIdWS) ? value : undefined;
  }

  /** The user id inside a `userIdWS` made for `tenantId`, or undefined. */
  userIdOf(tenantId: string, userIdWS: string): string | undefined {
    const user = this.userOf(userIdWS);
    return user !== undefined && user.tenantId === tenantId ? user.userId : undefined;
  }

  /** The tenant and user inside a `userIdWS`, or undefined if it is not one this server made. */
  userOf(userIdWS: string): { tenantId: string; userId: string } | undefined {
    const value = this.#open(userIdWS);
    const cut = value === undefined ? -1 : value.indexOf('\u0000');
    if (cut <= 0) return undefined;
    const tenantId = value!.slice(0, cut);
    return this.#valid('s', tenantId, value!, userIdWS) ? { tenantId, userId: value!.slice(cut + 1) } : undefined;
  }

  #mac(kind: string, tenantId: string, value: string): Buffer {
    return createHmac('sha256', this.#secret).update(`${kind}\u0000${tenantId}\u0000${value}`).digest().subarray(0, MAC_BYTES);
  }

  #sign(kind: string, tenantId: string, value: string): string {
    return `${Buffer.from(value, 'utf8').toString('base64url')}.${this.#mac(kind, tenantId, value).toString('base64url')}`;
  }

  #open(id: string): string | undefined {
    const dot = id.lastIndexOf('.');
    if (dot <= 0 || id.length > 8192) return undefined;
    return Buffer.from(id.slice(0, dot), 'base64url').toString('utf8');
  }

  #valid(kind: string, tenantId: string, value: string, id: string): boolean {
    const given = Buffer.from(id.slice(id.lastIndexOf('.') + 1), 'base64url');
    const expected = this.#mac(kind, tenantId, value);
    return given.length === expected.length && timingSafeEqual(given, expected) && this.#sign(kind, tenantId, value) === id;
  }
}
