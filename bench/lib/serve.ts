/**
 * What the bare comparison servers (`baseline-server.ts`, `floor-server.ts`) share: refusing the
 * pure-JS fallback of uWebSockets.js, listening on a free loopback port, saying so the way the
 * runner expects, and stopping on SIGTERM or SIGINT.
 */
import uWS from 'uWebSockets.js';

/** Exits unless uWebSockets.js loaded its native binary: a bound measured on the fallback would flatter every ratio. */
export function requireNativeUws(name: string): void {
  if (!String(uWS.App).includes('[native code]')) {
    process.stderr.write(`uWebSockets.js fell back to its pure-JS implementation; refusing to serve as the ${name}.\n`);
    process.exit(1);
  }
}

/**
 * Listens on a free loopback port and prints `Listening on http://127.0.0.1:<port>`; on SIGTERM
 * or SIGINT stops listening, runs `onStop` and exits.
 */
export function serveOnLoopback(app: uWS.TemplatedApp, name: string, onStop: () => Promise<void> = async () => undefined): void {
  let listenSocket: uWS.us_listen_socket | undefined;
  app.listen('127.0.0.1', 0, (socket) => {
    if (!socket) {
      process.stderr.write(`${name}: cannot listen on 127.0.0.1\n`);
      process.exit(1);
    }
    listenSocket = socket;
    process.stdout.write(`Listening on http://127.0.0.1:${uWS.us_socket_local_port(socket)}\n`);
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      if (listenSocket !== undefined) uWS.us_listen_socket_close(listenSocket);
      void onStop().finally(() => process.exit(0));
    });
  }
}
