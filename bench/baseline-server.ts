/**
 * The baseline every HTTP figure is divided by: bare uWebSockets.js answering a constant
 * `{"status":"success"}` on any path. It is the ceiling of this machine for the server's
 * stack, so a ratio of 0.5 means the server keeps half of what the stack could possibly do.
 *
 * Listens on a free loopback port and prints `Listening on http://127.0.0.1:<port>`.
 */
import uWS from 'uWebSockets.js';

const BODY = '{"status":"success"}';

// The pure-JS fallback is many times slower; a baseline measured on it would flatter every ratio.
if (!String(uWS.App).includes('[native code]')) {
  process.stderr.write('uWebSockets.js fell back to its pure-JS implementation; refusing to serve as a baseline.\n');
  process.exit(1);
}

let listenSocket: uWS.us_listen_socket | undefined;

uWS
  .App()
  .any('/*', (res) => {
    res.writeHeader('content-type', 'application/json').end(BODY);
  })
  .listen('127.0.0.1', 0, (socket) => {
    if (!socket) {
      process.stderr.write('baseline: cannot listen on 127.0.0.1\n');
      process.exit(1);
    }
    listenSocket = socket;
    process.stdout.write(`Listening on http://127.0.0.1:${uWS.us_socket_local_port(socket)}\n`);
  });

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    if (listenSocket !== undefined) uWS.us_listen_socket_close(listenSocket);
    process.exit(0);
  });
}
