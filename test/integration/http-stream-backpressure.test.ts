/**
 * Streamed answers under backpressure (http/uws/exchange.ts, `stream`): a download of tens of
 * megabytes read by a client that keeps pausing must arrive whole and byte-exact, every time;
 * and a client that goes away mid-download must free the stream (its source is closed).
 *
 * The source here yields each part at once (no real await), as a source with its data at hand
 * does: the stream then resumes, and writes, from inside uWebSockets.js's writable callback,
 * which is where a wait for the socket to drain could be lost.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { HttpServer, type Responder } from '../../http/uws/index.js';
import { eventually } from '../fixtures/eventually.js';

/** One part: 64 KiB, its bytes depending on its index so that a lost or repeated part shows. */
const PART = 65_536;
function part(index: number): string {
  const head = `<${index}>`;
  return head + String.fromCharCode(97 + (index % 26)).repeat(PART - head.length);
}

/** The digest of parts 0..count-1, as the server sends them. */
function expectedDigest(count: number): string {
  const hash = createHash('sha256');
  for (let i = 0; i < count; i++) hash.update(part(i));
  return hash.digest('hex');
}

interface Source {
  pulled: number;
  closed: boolean;
  settled: boolean;
}

const sources: Source[] = [];

async function* parts(count: number, source: Source): AsyncGenerator<string> {
  try {
    for (let i = 1; i < count; i++) {
      source.pulled = i;
      yield part(i);
    }
  } finally {
    source.closed = true;
  }
}

function handle(query: string, res: Responder): void {
  const count = Number(new URLSearchParams(query).get('parts'));
  const source: Source = { pulled: 0, closed: false, settled: false };
  sources.push(source);
  void res.stream({ status: 200, contentType: 'application/octet-stream' }, part(0), parts(count, source)).finally(() => {
    source.settled = true;
  });
}

/** Decodes an HTTP/1.1 chunked body as it arrives; `ended` once the terminating chunk came. */
class Dechunker {
  readonly hash = createHash('sha256');
  bytes = 0;
  ended = false;
  #buffer: Buffer = Buffer.alloc(0);
  #headDone = false;
  /** Bytes left of the current chunk, its CRLF included; -1 between chunks. */
  #left = -1;

  push(data: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? data : Buffer.concat([this.#buffer, data]);
    for (;;) {
      if (!this.#headDone) {
        const end = this.#buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = this.#buffer.subarray(0, end).toString('latin1');
        assert.match(head, /^HTTP\/1\.1 200 /);
        assert.match(head, /\r\ntransfer-encoding: chunked/i);
        this.#buffer = this.#buffer.subarray(end + 4);
        this.#headDone = true;
      }
      if (this.#left < 0) {
        const line = this.#buffer.indexOf('\r\n');
        if (line < 0) return;
        const size = parseInt(this.#buffer.subarray(0, line).toString('latin1'), 16);
        assert.ok(Number.isInteger(size), 'a chunk size line');
        this.#buffer = this.#buffer.subarray(line + 2);
        if (size === 0) {
          this.ended = true;
          return;
        }
        this.#left = size + 2;
      }
      if (this.#buffer.length === 0) return;
      const take = Math.min(this.#left, this.#buffer.length);
      const dataEnd = Math.min(take, Math.max(0, this.#left - 2));
      if (dataEnd > 0) {
        this.hash.update(this.#buffer.subarray(0, dataEnd));
        this.bytes += dataEnd;
      }
      this.#buffer = this.#buffer.subarray(take);
      this.#left -= take;
      if (this.#left === 0) this.#left = -1;
    }
  }
}

/** Turns of the event loop (no wall-clock wait): lets the server write until the socket is full. */
async function turns(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise((r) => setImmediate(r));
}

/**
 * Requests `count` parts and reads them slowly: reading stops every `burst` bytes for a few
 * loop turns, so the server's writes keep finding the socket full. Stops (and destroys the
 * socket) after `stopAfter` bytes when given.
 */
function download(port: number, count: number, burst: number, stopAfter?: number): Promise<{ decoded: Dechunker; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const decoded = new Dechunker();
    const socket = connect(port, '127.0.0.1');
    let sinceStop = 0;
    socket.on('connect', () => {
      socket.write(`GET /big?parts=${count} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
      // Starts paused: the server fills the socket before anything is read.
      socket.pause();
      void turns(20).then(() => socket.resume());
    });
    socket.on('data', (data: Buffer) => {
      try {
        decoded.push(data);
      } catch (err) {
        socket.destroy();
        reject(err);
        return;
      }
      if (decoded.ended) {
        socket.end();
        resolve({ decoded, socket });
        return;
      }
      if (stopAfter !== undefined && decoded.bytes >= stopAfter) {
        socket.destroy();
        resolve({ decoded, socket });
        return;
      }
      sinceStop += data.length;
      if (sinceStop >= burst) {
        sinceStop = 0;
        socket.pause();
        void turns(3).then(() => socket.resume());
      }
    });
    socket.on('error', reject);
    socket.on('close', () => {
      if (!decoded.ended && stopAfter === undefined) reject(new Error(`the connection closed after ${decoded.bytes} bytes, without the body's end`));
    });
  });
}

describe('streamed answers under backpressure', () => {
  const http = new HttpServer({ maxBodyBytes: 1024, trustProxy: false });
  let port = 0;

  before(async () => {
    http.onRequest((req, res) => {
      if (req.path === '/big') handle(req.query, res);
      else res.send({ status: 404, body: '' });
    });
    port = await http.listen('127.0.0.1', 0);
  });

  after(() => http.close());

  test('a 32 MiB download read by a client that keeps pausing arrives whole, byte-exact, every time', { timeout: 60_000 }, async () => {
    const count = 512;
    const digest = expectedDigest(count);
    for (let run = 0; run < 4; run++) {
      const { decoded } = await download(port, count, 256 * 1024 * (run + 1));
      assert.equal(decoded.bytes, count * PART, `run ${run}: every byte`);
      assert.equal(decoded.hash.digest('hex'), digest, `run ${run}: the same bytes, in order`);
      const source = sources.at(-1)!;
      await eventually(async () => source.settled, 10_000);
      assert.equal(source.pulled, count - 1);
      assert.ok(source.closed);
    }
  });

  test('a client that goes away mid-download frees the stream: its source is closed', { timeout: 30_000 }, async () => {
    for (const stopAfter of [PART, 4 * 1024 * 1024]) {
      const { decoded } = await download(port, 2048, 128 * 1024, stopAfter);
      assert.ok(!decoded.ended);
      const source = sources.at(-1)!;
      await eventually(async () => source.settled && source.closed, 30_000);
      assert.ok(source.pulled < 2047, 'the source was not read to its end for nobody');
    }
  });
});
