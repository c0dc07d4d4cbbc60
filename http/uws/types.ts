/** What the rest of the server sees of HTTP requests, responses and websockets (http/uws/). */

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

/** A whole response. */
export interface Reply {
  readonly status: number;
  readonly body: string | Buffer;
  /** Default `application/json; charset=utf-8`. */
  readonly contentType?: string;
  readonly headers?: ReadonlyArray<readonly [string, string]>;
}

/** The one way to answer a request. */
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

/** How a websocket route behaves. */
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

/** Settings of an `HttpServer`. */
export interface HttpServerOptions {
  readonly maxBodyBytes: number;
  /** Use the first X-Forwarded-For address as the client address. */
  readonly trustProxy: boolean;
  /** Paths (by prefix) whose bodies may be larger than `maxBodyBytes` (image uploads), and their limit. */
  readonly largeBodies?: ReadonlyArray<{ readonly prefix: string; readonly maxBytes: number }>;
}
