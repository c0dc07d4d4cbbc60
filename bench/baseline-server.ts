/**
 * The baseline every HTTP figure is divided by: bare uWebSockets.js answering a constant
 * `{"status":"success"}` on any path. It is the ceiling of this machine for the server's
 * stack, so a ratio of 0.5 means the server keeps half of what the stack could possibly do.
 *
 * Listens on a free loopback port and prints `Listening on http://127.0.0.1:<port>`.
 */
import uWS from 'uWebSockets.js';
import { requireNativeUws, serveOnLoopback } from './lib/serve.js';

const BODY = '{"status":"success"}';

requireNativeUws('baseline');
serveOnLoopback(
  uWS.App().any('/*', (res) => {
    res.writeHeader('content-type', 'application/json').end(BODY);
  }),
  'baseline',
);
