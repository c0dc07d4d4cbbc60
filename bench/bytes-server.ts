/**
 * The read ceiling of a cached answer: bare uWebSockets.js answering the same bytes the server
 * answers, in the encoding the request accepts (brotli, else gzip, else identity), with the
 * same content headers. Its throughput bounds any route that serves kept bytes.
 *
 * Usage: `node dist/bench/bytes-server.js <dir>`, where the directory holds `body` and, when
 * made, `body.gz` and `body.br`. Prints `Listening on http://127.0.0.1:<port>`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import uWS from 'uWebSockets.js';
import { requireNativeUws, serveOnLoopback } from './lib/serve.js';

const dir = process.argv[2];
if (dir === undefined) {
  process.stderr.write('usage: bytes-server <dir with body, body.gz, body.br>\n');
  process.exit(2);
}
const read = (name: string): Buffer | undefined => (existsSync(join(dir, name)) ? readFileSync(join(dir, name)) : undefined);
const identity = read('body')!;
const gzip = read('body.gz');
const br = read('body.br');

requireNativeUws('bytes ceiling');
serveOnLoopback(
  uWS.App().any('/*', (res, req) => {
    const accepted = req.getHeader('accept-encoding');
    res.cork(() => {
      res.writeHeader('content-type', 'application/json; charset=utf-8').writeHeader('vary', 'accept-encoding');
      if (br !== undefined && accepted.includes('br')) res.writeHeader('content-encoding', 'br').end(br);
      else if (gzip !== undefined && accepted.includes('gzip')) res.writeHeader('content-encoding', 'gzip').end(gzip);
      else res.end(identity);
    });
  }),
  'bytes ceiling',
);
