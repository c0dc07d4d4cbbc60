import type uWS from 'uWebSockets.js';
import { forwardedClient, normalizeAddress } from '../client-address.js';
import { decoder } from './native.js';
import type { FastRequest } from './types.js';

/** A GET as a fast lane reads it (see `FastRequest`). */
export class FastView implements FastRequest {
  #ip: string | undefined;

  constructor(
    readonly res: uWS.HttpResponse,
    readonly req: uWS.HttpRequest,
    readonly path: string,
    readonly query: string,
    readonly trustProxy: boolean,
  ) {}

  header(name: string): string {
    return this.req.getHeader(name);
  }

  get ip(): string {
    if (this.#ip === undefined) {
      const forwarded = this.trustProxy ? forwardedClient({ 'x-forwarded-for': this.header('x-forwarded-for'), forwarded: this.header('forwarded') }) : undefined;
      const socket = forwarded ?? decoder.decode(this.res.getRemoteAddressAsText());
      this.#ip = normalizeAddress(socket) ?? socket;
    }
    return this.#ip;
  }
}
