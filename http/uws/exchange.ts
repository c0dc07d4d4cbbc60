import type uWS from 'uWebSockets.js';
import { forwardedClient, normalizeAddress } from '../client-address.js';
import { countRefusal } from '../../engine/metrics/http-meters.js';
import { decoder, FALLBACK_HEADERS, NATIVE } from './native.js';
import type { IncomingRequest, Reply, Responder } from './types.js';
import { writeHead, writeReply } from './write-reply.js';

let collecting: Record<string, string> = {};
let collectedBytes = 0;
function collectHeader(key: string, value: string): void {
  collectedBytes += key.length + value.length;
  collecting[key] = key in collecting ? `${collecting[key]}, ${value}` : value;
}

/**
 * One request and its response: the request data copied out of uWebSockets.js, and the one
 * way to answer it. One object per request, with its methods on the prototype, because this is
 * the hottest allocation of the server.
 */
export class Exchange implements IncomingRequest, Responder {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Characters of all header names and values. */
  readonly headerBytes: number;
  body: Buffer | undefined = undefined;
  aborted = false;
  /** Answered: from then on `res` must not be touched. */
  done = false;
  /** Inside a uWebSockets.js callback, where writes are corked already. */
  inCallback = true;
  #ip: string | undefined;
  readonly #res: uWS.HttpResponse;
  /** Wakes a stream waiting for the socket to drain (on drain, or when the client goes away). */
  #wake: (() => void) | undefined;

  constructor(res: uWS.HttpResponse, req: uWS.HttpRequest, method: string, trustProxy: boolean) {
    this.#res = res;
    this.method = method;
    collecting = {};
    collectedBytes = 0;
    if (NATIVE) {
      req.forEach(collectHeader);
    } else {
      for (const name of FALLBACK_HEADERS) {
        const value = req.getHeader(name);
        if (value !== '') collecting[name] = value;
      }
    }
    this.headers = collecting;
    this.headerBytes = collectedBytes;
    if (trustProxy) {
      const forwarded = forwardedClient(collecting);
      if (forwarded !== undefined) this.#ip = normalizeAddress(forwarded);
    }
    // The fallback's getUrl keeps the query string and its getQuery throws.
    const url = req.getUrl();
    const mark = NATIVE ? -1 : url.indexOf('?');
    this.path = mark < 0 ? url : url.slice(0, mark);
    this.query = NATIVE ? (req.getQuery() ?? '') : mark < 0 ? '' : url.slice(mark + 1);
  }

  /**
   * Read on first use: a system call most requests never need. `res` stays valid until
   * answered. Normalised (see client-address.ts), so that limits see one spelling per address.
   */
  get ip(): string {
    if (this.#ip === undefined) {
      const socket = NATIVE && !this.aborted && !this.done ? decoder.decode(this.#res.getRemoteAddressAsText()) : 'unknown';
      this.#ip = normalizeAddress(socket) ?? socket;
    }
    return this.#ip;
  }

  send(reply: Reply): void {
    if (this.aborted || this.done) return;
    this.done = true;
    if (this.inCallback) writeReply(this.#res, reply);
    else this.#res.cork(() => writeReply(this.#res, reply));
  }

  /** The client went away: nothing is written from now on. */
  abort(): void {
    this.aborted = true;
    this.#wakeUp();
  }

  async stream(head: Omit<Reply, 'body'>, first: string, rest: AsyncIterator<string>): Promise<void> {
    if (this.aborted || this.done) {
      await rest.return?.();
      return;
    }
    this.done = true;
    const res = this.#res;
    // One writable handler for the whole stream, registered before anything can wait on it.
    // uWebSockets.js puts the running handler back after calling it, over any handler
    // registered meanwhile; and the stream resumes inside that call (promise jobs run before
    // the native callback returns) when its source has the next part at hand. A handler
    // registered per wait would then be replaced by the previous one, whose wait is over,
    // and the stream would wait forever. The same handler each time cannot be lost; it
    // wakes whoever waits now.
    res.onWritable(() => {
      this.#wakeUp();
      return true;
    });
    let drained = this.#corked(() => {
      writeHead(res, head);
      return res.write(first);
    });
    let ended = false;
    try {
      for (;;) {
        if (!drained) await this.#drain();
        if (this.aborted) return;
        const next = await rest.next();
        if (this.aborted) return;
        if (next.done === true) {
          ended = true;
          this.#corked(() => res.end());
          return;
        }
        drained = this.#corked(() => res.write(next.value));
      }
    } finally {
      if (!ended) {
        if (!this.aborted) this.#corked(() => res.close());
        await rest.return?.();
      }
    }
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #corked<T>(write: () => T): T {
    if (this.inCallback) return write();
    let result!: T;
    this.#res.cork(() => {
      result = write();
    });
    return result;
  }

  /**
   * Resolves once the socket took what was written (or the client went away). Called right
   * after a write that found the socket full, with no await between: the writable event
   * cannot come before the wait is set.
   */
  #drain(): Promise<void> {
    if (this.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
  }

  /** Answers from inside a uWebSockets.js callback and closes the connection (the body is left unread). */
  refuse(reply: Reply, code: string): void {
    countRefusal(code);
    this.done = true;
    this.#res.cork(() => writeReply(this.#res, reply, true));
  }
}
