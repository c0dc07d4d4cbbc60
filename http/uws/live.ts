import type uWS from 'uWebSockets.js';
import { liveAbnormalClose } from '../../engine/metrics/live-meters.js';
import { Exchange } from './exchange.js';
import { malformed, NOT_AN_UPGRADE, refusalCode, UPGRADE_TOKEN } from './limits.js';
import { decoder, NATIVE } from './native.js';
import type { LiveBehavior, LiveSocket } from './types.js';

/** Accepts websocket upgrades on `pattern` of `app`, the handshake copied as any request is. */
export function registerLive<T>(app: uWS.TemplatedApp, pattern: string, behavior: LiveBehavior<T>, trustProxy: boolean): void {
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
  app.ws<{ data: T }>(pattern, {
    maxBackpressure: behavior.maxBackpressure,
    idleTimeout: behavior.idleTimeoutSeconds,
    maxPayloadLength: behavior.maxPayloadLength,
    closeOnBackpressureLimit: behavior.closeOnBackpressureLimit ? 1 : 0,
    upgrade: (res, req, context) => {
      const method = (NATIVE ? req.getCaseSensitiveMethod() : req.getMethod()).toUpperCase();
      const exchange = new Exchange(res, req, method, trustProxy);
      exchange.inCallback = false;
      res.onAborted(() => {
        exchange.aborted = true;
      });
      const refused = malformed(exchange);
      if (refused !== undefined) {
        exchange.refuse(refused, refusalCode(refused));
        return;
      }
      // A handshake whose Connection header lacks "upgrade" (uWebSockets reads the first:
      // "close" marks the connection to be closed once answered) would have the upgrade below
      // close the socket under itself.
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
