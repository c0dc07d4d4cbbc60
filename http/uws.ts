/**
 * The only file that touches uWebSockets.js request and response objects. It owns the rules
 * that library imposes, so no route has to remember them:
 * - everything needed from `req` is copied before the first await (it is invalid afterwards);
 * - every response registers `onAborted`, and nothing is written after an abort;
 * - writes after an await happen inside `cork`;
 * - request bodies are size-limited, by `Content-Length` up front and while streaming.
 * Websocket upgrades follow the same rules.
 */
import { STATUS_CODES } from 'node:http';
import uWS from 'uWebSockets.js';
import { forwardedClient, normalizeAddress } from './client-address.js';
import { countRefusal } from '../engine/metrics/http-meters.js';
import { liveAbnormalClose } from '../engine/metrics/live-meters.js';

/** A request, fully copied out of uWebSockets.js. */
export interface IncomingRequest {
  /** Upper-case method. */
  readonly method: string;
  /** The path as received, still percent-encoded. */
  readonly path: string;
  /** The raw query string, without `?`. */
  readonly query: string;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The client's address, read on first use (a system call most requests never need). */
  readonly ip: string;
  /** The body, when the method carries one; undefined for GET and HEAD. */
  readonly body: Buffer | undefined;
}

export interface Reply {
  readonly status: number;
  readonly body: string | Buffer;
  /** Default `application/json; charset=utf-8`. */
  readonly contentType?: string;
  readonly headers?: ReadonlyArray<readonly [string, string]>;
}

export interface Responder {
  /** True once the client went away; `send` then does nothing. */
  readonly aborted: boolean;
  /** Sends the whole response, once. Later calls are ignored. */
  send(reply: Reply): void;
  /**
   * Sends a response whose body comes in parts (chunked), once: the head and `first` now, then
   * each part of `rest` once the client has taken the previous ones, so at most one part waits
   * in memory. If `rest` throws, or the client goes away, the connection is closed without the
   * body's end: the client sees a cut answer, never a complete-looking one. Resolves when done;
   * rejects with what `rest` threw.
   */
  stream(head: Omit<Reply, 'body'>, first: string, rest: AsyncIterator<string>): Promise<void>;
}

/** Handles one copied request; answers through the responder, now or after awaits. */
export type RequestHandler = (req: IncomingRequest, res: Responder) => void;

/**
 * What a fast lane sees of a GET request: read from uWebSockets.js on demand, valid only
 * during the lane's call (nothing is copied that the lane does not ask for).
 */
export interface FastRequest {
  readonly path: string;
  /** The raw query string, without `?`. */
  readonly query: string;
  /** A header by lower-case name; '' when absent. */
  header(name: string): string;
  /** The client's address, normalised (and from the proxy's headers with `trustProxy`). */
  readonly ip: string;
}

/**
 * A lane that may answer a GET at once from something already at hand (kept bytes), before
 * the request is copied: a reply, or undefined to pass the request on to the normal handler.
 * It must not throw, and must not keep the request.
 */
export type FastLane = (req: FastRequest) => Reply | undefined;

/** A websocket connection, as handlers see it. */
export interface LiveSocket<T> {
  readonly data: T;
  /** Sends a text frame; false when it was dropped because the client is too slow. */
  send(message: string): boolean;
  subscribe(topic: string): void;
  unsubscribe(topic: string): void;
  /** Bytes waiting in the socket's send buffer. */
  bufferedAmount(): number;
  close(code?: number, reason?: string): void;
}

export interface LiveBehavior<T> {
  /** Bytes a slow subscriber may have buffered before published messages skip it. */
  readonly maxBackpressure: number;
  /**
   * Close a subscriber (abruptly: the client sees code 1006) instead of skipping a message
   * when it is over `maxBackpressure`, so that no subscriber silently misses a message.
   */
  readonly closeOnBackpressureLimit?: boolean;
  /** Seconds without traffic before the connection is closed. */
  readonly idleTimeoutSeconds: number;
  readonly maxPayloadLength: number;
  /** Decides on an upgrade request: per-connection data to accept it, or a reply to refuse it. */
  upgrade(req: IncomingRequest): Promise<{ accept: T } | { refuse: Reply }>;
  open?(socket: LiveSocket<T>): void;
  message?(socket: LiveSocket<T>, text: string): void;
  /** The socket's backpressure drained below the limit. */
  drain?(socket: LiveSocket<T>): void;
  /** The connection closed: `code` 1006 when it ended without a close frame (dropped, or closed by uWebSockets.js itself). */
  close?(socket: LiveSocket<T>, code: number, reason: string): void;
}

export interface HttpServerOptions {
  readonly maxBodyBytes: number;
  /** Use the first X-Forwarded-For address as the client address. */
  readonly trustProxy: boolean;
  /** Paths (by prefix) whose bodies may be larger than `maxBodyBytes` (image uploads), and their limit. */
  readonly largeBodies?: ReadonlyArray<{ readonly prefix: string; readonly maxBytes: number }>;
}

const STATUS_LINES = new Map<number, string>();
function statusLine(status: number): string {
  let line = STATUS_LINES.get(status);
  if (line === undefined) {
    line = `${status} ${STATUS_CODES[status] ?? 'Unknown'}`;
    STATUS_LINES.set(status, line);
  }
  return line;
}

const decoder = new TextDecoder();


/**
 * Whether the native binary loaded. The package's pure-JS fallback lacks header iteration,
 * client addresses, websocket upgrades and publishing; when it is allowed, REST requests are
 * served with the headers below read by name, and live channels are off.
 */
const NATIVE = String(uWS.App).includes('[native code]');
const FALLBACK_HEADERS = [
  'content-type',
  'content-length',
  'authorization',
  'x-api-key',
  'x-tenant-id',
  'origin',
  'cookie',
  'x-forwarded-for',
  'x-forwarded-proto',
  'forwarded',
  'access-control-request-headers',
  'access-control-request-method',
  'user-agent',
  'host',
] as const;
const TOO_LARGE = JSON.stringify({ status: 'failed', code: 'body-too-large', reason: 'The request body is larger than the server accepts.' });

/**
 * Limits the wrapper applies to every request it is handed (uWebSockets.js itself drops, with
 * no answer, requests it cannot parse: see docs/operations.md for those and for the reverse
 * proxy settings that keep them away).
 */
export const REQUEST_LIMITS = {
  /** Path and query together, in characters: longer gets 414. */
  maxUrlLength: 8192,
  /** Header names and values together, in characters: more gets 431. */
  maxHeaderBytes: 16_384,
} as const;

/** The wrapper's own refusals, with their catalog codes (for the refusal counts). */
const CODES = new WeakMap<Reply, string>();
function refusal(status: number, code: string, reason: string): Reply {
  const reply = { status, body: JSON.stringify({ status: 'failed', code, reason }) };
  CODES.set(reply, code);
  return reply;
}
const URI_TOO_LONG = refusal(414, 'uri-too-long', `The request URL is longer than ${REQUEST_LIMITS.maxUrlLength} characters.`);
const HEADERS_TOO_LARGE = refusal(431, 'headers-too-large', `The request headers are larger than ${REQUEST_LIMITS.maxHeaderBytes} characters.`);
const BAD_LENGTH = refusal(400, 'bad-request', 'Content-Length must be one decimal number (it was repeated with different values, or malformed).');
const DECIMAL = /^\d{1,15}$/;
const UPGRADE_TOKEN = /(^|,)[ \t]*upgrade[ \t]*(,|$)/i;
const NOT_AN_UPGRADE = refusal(400, 'bad-request', 'A websocket handshake needs the token "Upgrade" in its (first) Connection header.');

function writeHead(res: uWS.HttpResponse, reply: Omit<Reply, 'body'>): void {
  res.writeStatus(statusLine(reply.status));
  res.writeHeader('content-type', reply.contentType ?? 'application/json; charset=utf-8');
  if (reply.headers) for (const [name, value] of reply.headers) res.writeHeader(name, value);
}

function writeReply(res: uWS.HttpResponse, reply: Reply, closeConnection = false): void {
  writeHead(res, reply);
  res.end(reply.body, closeConnection);
}

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
class Exchange implements IncomingRequest, Responder {
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
    this.#wake?.();
  }

  async stream(head: Omit<Reply, 'body'>, first: string, rest: AsyncIterator<string>): Promise<void> {
    if (this.aborted || this.done) {
      await rest.return?.();
      return;
    }
    this.done = true;
    const res = this.#res;
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

  #corked<T>(write: () => T): T {
    if (this.inCallback) return write();
    let result!: T;
    this.#res.cork(() => {
      result = write();
    });
    return result;
  }

  /** Resolves once the socket took what was written (or the client went away). */
  #drain(): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        this.#wake = undefined;
        resolve();
      };
      this.#wake = wake;
      this.#res.onWritable(() => {
        wake();
        return true;
      });
    });
  }

  /** Answers from inside a uWebSockets.js callback and closes the connection (the body is left unread). */
  refuse(reply: Reply, code: string): void {
    countRefusal(code);
    this.done = true;
    this.#res.cork(() => writeReply(this.#res, reply, true));
  }
}

/** A GET as a fast lane reads it (see `FastRequest`). */
class FastView implements FastRequest {
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

/** The refusal of a request the wrapper sees but will not handle, or undefined. */
function malformed(exchange: Exchange): Reply | undefined {
  if (exchange.path.length + exchange.query.length > REQUEST_LIMITS.maxUrlLength) return URI_TOO_LONG;
  if (exchange.headerBytes > REQUEST_LIMITS.maxHeaderBytes) return HEADERS_TOO_LARGE;
  const length = exchange.headers['content-length'];
  if (length !== undefined && !DECIMAL.test(length)) return BAD_LENGTH;
  return undefined;
}

/**
 * Throws unless uWebSockets.js loaded its native binary. The package silently falls back to
 * a pure-JS server many times slower; running on it by accident would be a disaster in
 * production, so it takes an explicit opt-in.
 */
export function assertNativeUws(allowFallback: boolean): void {
  if (!NATIVE && !allowFallback) {
    throw new Error(
      'uWebSockets.js fell back to its pure-JS implementation (the native binary did not load for this Node.js). ' +
        'Use Node.js 20 on glibc Linux, or set ALLOW_UWS_FALLBACK=true to run slowly anyway.',
    );
  }
}

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
    const sockets = new WeakMap<uWS.WebSocket<{ data: T }>, LiveSocket<T>>();
    const wrap = (ws: uWS.WebSocket<{ data: T }>): LiveSocket<T> => {
      let socket = sockets.get(ws);
      if (socket === undefined) {
        socket = {
          data: ws.getUserData().data,
          send: (message) => ws.send(message, false, false) !== 2,
          subscribe: (topic) => void ws.subscribe(topic),
          unsubscribe: (topic) => void ws.unsubscribe(topic),
          bufferedAmount: () => ws.getBufferedAmount(),
          close: (code, reason) => (code === undefined ? ws.close() : ws.end(code, reason)),
        };
        sockets.set(ws, socket);
      }
      return socket;
    };
    this.#app.ws<{ data: T }>(pattern, {
      maxBackpressure: behavior.maxBackpressure,
      idleTimeout: behavior.idleTimeoutSeconds,
      maxPayloadLength: behavior.maxPayloadLength,
      closeOnBackpressureLimit: behavior.closeOnBackpressureLimit ? 1 : 0,
      upgrade: (res, req, context) => {
        const method = (NATIVE ? req.getCaseSensitiveMethod() : req.getMethod()).toUpperCase();
        const exchange = new Exchange(res, req, method, this.#options.trustProxy);
        exchange.inCallback = false;
        res.onAborted(() => {
          exchange.aborted = true;
        });
        const refused = malformed(exchange);
        if (refused !== undefined) {
          exchange.refuse(refused, CODES.get(refused)!);
          return;
        }
        // RFC 6455 §4.1: the handshake's Connection header holds the token "upgrade". One that
        // does not (uWebSockets reads the first: "close" marks the connection to be closed once
        // answered) would have the upgrade below close the socket under itself.
        if (!UPGRADE_TOKEN.test(req.getHeader('connection'))) {
          exchange.refuse(NOT_AN_UPGRADE, 'bad-request');
          return;
        }
        const key = req.getHeader('sec-websocket-key');
        const protocol = req.getHeader('sec-websocket-protocol');
        const extensions = req.getHeader('sec-websocket-extensions');
        behavior.upgrade(exchange).then(
          (decision) => {
            if (exchange.aborted) return;
            if ('refuse' in decision) {
              exchange.send(decision.refuse);
              return;
            }
            exchange.done = true;
            // Not inside res.cork(), although uWebSockets.js asks for it (and warns once): its
            // cork() in 20.30 runs the HTTP connection-close logic on the socket after an upgrade
            // that kept the socket's address, reading the response's state from memory that now
            // belongs to the websocket, and now and then closes the reader right after `open`,
            // with no close frame (1006) and before any event (fixed upstream in uWebSockets
            // PR #1929). Outside cork, the 101 answer takes a few small writes, once per reader.
            // Safe only without uWebSockets' connection-close flag, hence the check above.
            res.upgrade({ data: decision.accept }, key, protocol, extensions, context);
          },
          () => exchange.send({ status: 500, body: '' }),
        );
      },
      open: (ws) => behavior.open?.(wrap(ws)),
      message: (ws, message) => behavior.message?.(wrap(ws), decoder.decode(message)),
      drain: (ws) => behavior.drain?.(wrap(ws)),
      close: (ws, code, message) => {
        // 1006: no close frame. uWebSockets.js closes a subscriber past its backpressure limit so,
        // and tells it apart from a client that vanished by nothing (not even the buffered amount).
        if (code === 1006) liveAbnormalClose();
        behavior.close?.(wrap(ws), code, decoder.decode(message));
        sockets.delete(ws);
      },
    });
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
      exchange.refuse(refused, CODES.get(refused)!);
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
