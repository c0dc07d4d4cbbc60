/**
 * The only folder that touches uWebSockets.js request and response objects. It owns the rules
 * that library imposes, so no route has to remember them:
 * - everything needed from `req` is copied before the first await (it is invalid afterwards:
 *   exchange.ts);
 * - every response registers `onAborted`, and nothing is written after an abort;
 * - writes after an await happen inside `cork`;
 * - a streamed body waits for the socket to drain before its next part (exchange.ts, `stream`);
 * - request bodies are size-limited, by `Content-Length` up front and while streaming (server.ts).
 * Websocket upgrades follow the same rules (live.ts).
 */
export type { FastLane, FastRequest, HttpServerOptions, IncomingRequest, LiveBehavior, LiveSocket, Reply, Responder, RequestHandler } from './types.js';
export { REQUEST_LIMITS } from './limits.js';
export { assertNativeUws } from './native.js';
export { HttpServer } from './server.js';
