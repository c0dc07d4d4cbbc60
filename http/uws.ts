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
  readonly headers?: ReadonlyArray<readonly [string, string]>;
}

export interface Responder {
  /** True once the client went away; `send` then does nothing. */
  readonly aborted: boolean;
  /** Sends the whole response, once. Later calls are ignored. */
  send(reply: Reply): void;
}

/** Handles one copied request; answers through the responder, now or after awaits. */
export type RequestHandler = (req: IncomingRequest, res: Responder) => void;

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
  close?(socket: LiveSocket<T>): void;
}

export interface HttpServerOptions {
  readonly maxBodyBytes: number;
  /** Use the first X-Forwarded-For address as the client address. */
  readonly trustProxy: boolean;
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

/** Whether a response was answered or aborted: after either, its `res` must not be touched. */
interface ResponseState {
  aborted: boolean;
  done: boolean;
}

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
  'access-control-request-headers',
  'access-control-request-method',
  'user-agent',
] as const;
const TOO_LARGE = JSON.stringify({ status: 'failed', code: 'body-too-large', reason: 'The request body is larger than the server accepts.' });

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
        const state: ResponseState = { aborted: false, done: false };
        res.onAborted(() => {
          state.aborted = true;
        });
        const copied = this.#copy(res, req, state);
        const key = req.getHeader('sec-websocket-key');
        const protocol = req.getHeader('sec-websocket-protocol');
        const extensions = req.getHeader('sec-websocket-extensions');
        behavior.upgrade(copied).then(
          (decision) => {
            if (state.aborted) return;
            state.done = true;
            res.cork(() => {
              if ('accept' in decision) res.upgrade({ data: decision.accept }, key, protocol, extensions, context);
              else this.#write(res, decision.refuse);
            });
          },
          () => {
            if (state.aborted) return;
            state.done = true;
            res.cork(() => this.#write(res, { status: 500, body: '' }));
          },
        );
      },
      open: (ws) => behavior.open?.(wrap(ws)),
      message: (ws, message) => behavior.message?.(wrap(ws), decoder.decode(message)),
      drain: (ws) => behavior.drain?.(wrap(ws)),
      close: (ws) => {
        behavior.close?.(wrap(ws));
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

  #accept(res: uWS.HttpResponse, req: uWS.HttpRequest, handler: RequestHandler): void {
    const method = (NATIVE ? req.getCaseSensitiveMethod() : req.getMethod()).toUpperCase();
    const state: ResponseState = { aborted: false, done: false };
    res.onAborted(() => {
      state.aborted = true;
    });
    if (method === 'GET' || method === 'HEAD') {
      handler(this.#copy(res, req, state, method), this.#responder(res, state));
      return;
    }
    const declared = req.getHeader('content-length');
    const length = declared === '' ? -1 : Number(declared);
    if (length > this.#options.maxBodyBytes) {
      state.done = true;
      res.cork(() => this.#write(res, { status: 413, body: TOO_LARGE }, true));
      return;
    }
    const head = this.#copy(res, req, state, method);
    const limit = this.#options.maxBodyBytes;
    let body: Buffer | undefined = length > 0 ? Buffer.allocUnsafe(length) : undefined;
    let size = 0;
    res.onData((chunk, isLast) => {
      if (state.done) return;
      const bytes = new Uint8Array(chunk);
      if (size + bytes.byteLength > limit) {
        state.done = true;
        res.cork(() => this.#write(res, { status: 413, body: TOO_LARGE }, true));
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
        head.body = body.subarray(0, size);
        handler(head, this.#responder(res, state));
      }
    });
  }

  /** `state` is the response's: once it is answered or aborted, `res` may no longer be touched. */
  #copy(res: uWS.HttpResponse, req: uWS.HttpRequest, state: ResponseState, method?: string): IncomingRequest & { body: Buffer | undefined } {
    const headers: Record<string, string> = {};
    if (NATIVE) {
      req.forEach((key, value) => {
        headers[key] = key in headers ? `${headers[key]}, ${value}` : value;
      });
    } else {
      for (const name of FALLBACK_HEADERS) {
        const value = req.getHeader(name);
        if (value !== '') headers[name] = value;
      }
    }
    let ip: string | undefined;
    if (this.#options.trustProxy) {
      const forwarded = headers['x-forwarded-for'];
      if (forwarded) ip = forwarded.split(',')[0]!.trim();
    }
    // The fallback's getUrl keeps the query string and its getQuery throws.
    const url = req.getUrl();
    const mark = NATIVE ? -1 : url.indexOf('?');
    return {
      method: method ?? (NATIVE ? req.getCaseSensitiveMethod() : req.getMethod()).toUpperCase(),
      path: mark < 0 ? url : url.slice(0, mark),
      query: NATIVE ? (req.getQuery() ?? '') : mark < 0 ? '' : url.slice(mark + 1),
      headers,
      // Unlike `req`, `res` stays valid across awaits until it is answered or aborted.
      get ip() {
        ip ??= NATIVE && !state.aborted && !state.done ? decoder.decode(res.getRemoteAddressAsText()) : 'unknown';
        return ip;
      },
      body: undefined,
    };
  }

  #responder(res: uWS.HttpResponse, state: ResponseState): Responder {
    return {
      get aborted() {
        return state.aborted;
      },
      send: (reply) => {
        if (state.aborted || state.done) return;
        state.done = true;
        res.cork(() => this.#write(res, reply));
      },
    };
  }

  #write(res: uWS.HttpResponse, reply: Reply, closeConnection = false): void {
    res.writeStatus(statusLine(reply.status));
    res.writeHeader('content-type', 'application/json; charset=utf-8');
    if (reply.headers) for (const [name, value] of reply.headers) res.writeHeader(name, value);
    res.end(reply.body, closeConnection);
  }
}
