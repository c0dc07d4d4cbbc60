import uWS from 'uWebSockets.js';
import { Exchange } from './exchange.js';
import { FastView } from './fast-view.js';
import { malformed, refusalCode, REQUEST_LIMITS, TOO_LARGE } from './limits.js';
import { registerLive } from './live.js';
import { NATIVE } from './native.js';
import type { FastLane, HttpServerOptions, LiveBehavior, RequestHandler } from './types.js';
import { writeReply } from './write-reply.js';

/** An HTTP and websocket server on uWebSockets.js. */
export class HttpServer {
  readonly #app = uWS.App();
  readonly #options: HttpServerOptions;
  #listenSocket: uWS.us_listen_socket | undefined;

  constructor(options: HttpServerOptions) {
    this.#options = options;
  }

  /** Routes every HTTP request to `handler`. */
  onRequest(handler: RequestHandler): void {
    this.#app.any('/*', (res, req) => this.#accept(res, req, handler));
  }

  /**
   * GETs of `pattern` (a uWebSockets.js pattern, such as `/comments/:tenantId`) are offered to
   * `lane` first; those it does not answer go to `handler` as any other request. Register
   * before `onRequest`. Without the native binary the lane is not used.
   */
  fastGet(pattern: string, lane: FastLane, handler: RequestHandler): void {
    if (!NATIVE) return;
    const trustProxy = this.#options.trustProxy;
    this.#app.get(pattern, (res, req) => {
      const url = req.getUrl();
      const query = req.getQuery() ?? '';
      const reply = url.length + query.length <= REQUEST_LIMITS.maxUrlLength ? lane(new FastView(res, req, url, query, trustProxy)) : undefined;
      if (reply === undefined) this.#accept(res, req, handler);
      else writeReply(res, reply);
    });
  }

  /** Accepts websocket upgrades on `pattern`. Register before `onRequest`. */
  live<T>(pattern: string, behavior: LiveBehavior<T>): void {
    if (!NATIVE) return;
    registerLive(this.#app, pattern, behavior, this.#options.trustProxy);
  }

  /** Whether websockets work: not on the pure-JS fallback. */
  get liveAvailable(): boolean {
    return NATIVE;
  }

  /** Publishes a text message to every socket subscribed to `topic`. */
  publish(topic: string, message: string): void {
    if (NATIVE) this.#app.publish(topic, message, false, false);
  }

  /** Sockets subscribed to `topic`. */
  subscribers(topic: string): number {
    return NATIVE ? this.#app.numSubscribers(topic) : 0;
  }

  /** Starts listening; resolves with the bound port (useful with port 0). */
  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#app.listen(host, port, (socket) => {
        if (socket === false) {
          reject(new Error(`cannot listen on ${host}:${port}`));
          return;
        }
        this.#listenSocket = socket;
        resolve(uWS.us_socket_local_port(socket));
      });
    });
  }

  /** Stops accepting new connections; open ones finish their requests. */
  stopListening(): void {
    if (this.#listenSocket !== undefined) {
      uWS.us_listen_socket_close(this.#listenSocket);
      this.#listenSocket = undefined;
    }
  }

  /** Closes every connection. */
  close(): void {
    this.stopListening();
    // Present in this uWebSockets.js build, missing from its type declarations.
    (this.#app as unknown as { close(): void }).close();
  }

  #bodyLimit(path: string): number {
    for (const large of this.#options.largeBodies ?? []) if (path.startsWith(large.prefix)) return large.maxBytes;
    return this.#options.maxBodyBytes;
  }

  #accept(res: uWS.HttpResponse, req: uWS.HttpRequest, handler: RequestHandler): void {
    const method = (NATIVE ? req.getCaseSensitiveMethod() : req.getMethod()).toUpperCase();
    const exchange = new Exchange(res, req, method, this.#options.trustProxy);
    res.onAborted(() => exchange.abort());
    const refused = malformed(exchange);
    if (refused !== undefined) {
      exchange.refuse(refused, refusalCode(refused));
      return;
    }
    if (method === 'GET' || method === 'HEAD') {
      handler(exchange, exchange);
      exchange.inCallback = false;
      return;
    }
    const declared = exchange.headers['content-length'] ?? '';
    const length = declared === '' ? -1 : Number(declared);
    const limit = this.#bodyLimit(exchange.path);
    if (length > limit) {
      exchange.refuse({ status: 413, body: TOO_LARGE }, 'body-too-large');
      return;
    }
    exchange.inCallback = false;
    let body: Buffer | undefined = length > 0 ? Buffer.allocUnsafe(length) : undefined;
    let size = 0;
    res.onData((chunk, isLast) => {
      if (exchange.done) return;
      if (isLast && size === 0 && chunk.byteLength === 0) {
        // No body at all (a vote sent as query parameters, say): nothing to copy or allocate.
        exchange.inCallback = true;
        handler(exchange, exchange);
        exchange.inCallback = false;
        return;
      }
      const bytes = new Uint8Array(chunk);
      if (size + bytes.byteLength > limit) {
        exchange.refuse({ status: 413, body: TOO_LARGE }, 'body-too-large');
        return;
      }
      // The chunk is neutered when this callback returns, so its bytes are copied now.
      if (body === undefined || size + bytes.byteLength > body.length) {
        const grown = Buffer.allocUnsafe(Math.max(size + bytes.byteLength, (body?.length ?? 0) * 2, 1024));
        if (body !== undefined) body.copy(grown, 0, 0, size);
        body = grown;
      }
      body.set(bytes, size);
      size += bytes.byteLength;
      if (isLast) {
        exchange.body = body.subarray(0, size);
        exchange.inCallback = true;
        handler(exchange, exchange);
        exchange.inCallback = false;
      }
    });
  }
}
