/**
 * The durable-write floor: bare uWebSockets.js that stores one small document per request in
 * LMDB and answers once it is on disk. It is what a durable write costs on this machine before
 * any of the server's own work (authentication, validation, credits, actors, live events), so
 * write suites show how much of that floor the server keeps, beside the hello-world ratio.
 *
 * It writes the way the server's actors do: the documents of one event-loop turn go to lmdb-js
 * as one batch, with the same environment options (`overlappingSync` off, no compression), and
 * each answer waits for its batch to be synced.
 *
 * Usage: `node floor-server.js <data-dir>`. Listens on a free loopback port and prints
 * `Listening on http://127.0.0.1:<port>`.
 */
import { open } from 'lmdb';
import uWS from 'uWebSockets.js';
import { requireNativeUws, serveOnLoopback } from './lib/serve.js';

const BODY = '{"status":"success"}';

requireNativeUws('floor');
const dataDir = process.argv[2];
if (dataDir === undefined) {
  process.stderr.write('usage: floor-server <data-dir>\n');
  process.exit(2);
}

const db = open({ path: dataDir, overlappingSync: false, compression: false });

interface Waiting {
  readonly key: number;
  readonly doc: { path: string; query: string; at: number };
  readonly res: uWS.HttpResponse;
  aborted: boolean;
}

let nextKey = 0;
let turn: Waiting[] = [];

function answer(waiting: readonly Waiting[], status: string): void {
  for (const w of waiting) {
    if (!w.aborted) w.res.cork(() => w.res.writeStatus(status).writeHeader('content-type', 'application/json').end(BODY));
  }
}

/** One lmdb-js batch for the turn's documents; each is answered once the batch is synced. */
function flushTurn(): void {
  const batch = turn;
  turn = [];
  db.batch(() => {
    for (const w of batch) void db.put(w.key, w.doc);
  }).then(
    () => answer(batch, '200 OK'),
    (err: unknown) => {
      process.stderr.write(`floor: commit failed: ${String(err)}\n`);
      answer(batch, '503 Service Unavailable');
    },
  );
}

serveOnLoopback(
  uWS.App().any('/*', (res, req) => {
    // Request data is gone once this callback returns.
    const waiting: Waiting = { key: nextKey++, doc: { path: req.getUrl(), query: req.getQuery() ?? '', at: Date.now() }, res, aborted: false };
    res.onAborted(() => {
      waiting.aborted = true;
    });
    res.onData((_chunk, isLast) => {
      if (!isLast) return;
      if (turn.length === 0) setImmediate(flushTurn);
      turn.push(waiting);
    });
  }),
  'floor',
  () => db.close(),
);
