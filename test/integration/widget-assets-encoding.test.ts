/**
 * The widget's scripts (`GET /js/:file`) go compressed when the client takes it: brotli or
 * gzip by `Accept-Encoding` (q-values, `*`, `identity`), each encoding's bytes decoding to the
 * exact built file, with `Vary: Accept-Encoding`, a strong ETag per encoding, and 304 on a
 * matching `If-None-Match`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { WIDGET_FILES } from '../../http/routes/widget-assets.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';

const WEB_DIR = fileURLToPath(new URL('../../web/', import.meta.url));

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A GET by node:http, which (unlike fetch) hands back the bytes as sent. */
function get(url: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function decode(raw: Raw): Buffer {
  const encoding = raw.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(raw.body);
  if (encoding === 'gzip') return gunzipSync(raw.body);
  assert.equal(encoding, undefined);
  return raw.body;
}

describe('widget scripts, compressed', () => {
  let t: TestServer;

  before(async () => {
    t = await startTestServer(storages()[0]!);
  });

  after(async () => {
    await t.destroy();
  });

  test('each encoding answers bytes that decode to the exact file, smaller than the file, each with its own strong ETag', async () => {
    for (const file of WIDGET_FILES) {
      const exact = readFileSync(WEB_DIR + file);
      const tags = new Set<string>();
      for (const [accept, expected] of [
        ['', undefined],
        ['gzip', 'gzip'],
        ['br', 'br'],
        ['gzip, deflate, br, zstd', 'br'],
      ] as const) {
        const raw = await get(`${t.url}/js/${file}`, accept === '' ? {} : { 'accept-encoding': accept });
        assert.equal(raw.status, 200, `${file} ${accept}`);
        assert.equal(raw.headers['content-encoding'], expected, `${file} ${accept}`);
        assert.equal(raw.headers['vary'], 'Accept-Encoding');
        assert.equal(raw.headers['content-type'], 'application/javascript; charset=utf-8');
        assert.equal(raw.headers['cache-control'], 'public, max-age=300');
        const etag = String(raw.headers['etag']);
        assert.match(etag, /^"[^"]+"$/, 'a strong ETag');
        tags.add(etag);
        assert.ok(decode(raw).equals(exact), `${file} as ${expected ?? 'identity'} decodes to the file`);
        if (expected !== undefined) assert.ok(raw.body.length < exact.length, `${file} ${expected} is smaller`);
      }
      assert.equal(tags.size, 3, `${file}: one ETag per encoding`);
    }
  });

  test('Accept-Encoding q-values, `*` and `identity` pick the encoding', async () => {
    const cases: ReadonlyArray<readonly [string, string | undefined]> = [
      ['gzip;q=1, br;q=0.5', 'gzip'],
      ['br;q=0.2, gzip;q=0.8, identity;q=0.1', 'gzip'],
      ['br;q=0, gzip;q=0', undefined],
      ['br;q=0, gzip', 'gzip'],
      ['*', 'br'],
      ['*;q=0.5, br;q=0', 'gzip'],
      ['identity', undefined],
      ['identity;q=1, gzip;q=0.5', undefined],
      ['x-gzip', 'gzip'],
      ['GZIP', 'gzip'],
      ['deflate', undefined],
      ['identity;q=0, *;q=0', undefined],
    ];
    const exact = readFileSync(WEB_DIR + 'embed-v2.min.js');
    for (const [accept, expected] of cases) {
      const raw = await get(`${t.url}/js/embed-v2.min.js`, { 'accept-encoding': accept });
      assert.equal(raw.status, 200);
      assert.equal(raw.headers['content-encoding'], expected, accept);
      assert.ok(decode(raw).equals(exact), accept);
    }
  });

  test('If-None-Match with the ETag of the encoding chosen answers 304 without a body', async () => {
    const url = `${t.url}/js/widget-app.min.js`;
    for (const accept of ['br', 'gzip', '']) {
      const headers: Record<string, string> = accept === '' ? {} : { 'accept-encoding': accept };
      const first = await get(url, headers);
      const etag = String(first.headers['etag']);
      for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const again = await get(url, { ...headers, 'if-none-match': ifNoneMatch });
        assert.equal(again.status, 304, `${accept} ${ifNoneMatch}`);
        assert.equal(again.body.length, 0);
        assert.equal(again.headers['etag'], etag);
        assert.equal(again.headers['vary'], 'Accept-Encoding');
        assert.equal(again.headers['cache-control'], 'public, max-age=300');
        assert.equal(again.headers['content-length'], undefined, 'no Content-Length that is not the full answer');
      }
    }
    // Another encoding's ETag, or a changed file's, is not a match: the whole answer comes.
    const br = await get(url, { 'accept-encoding': 'br' });
    const identity = await get(url, { 'if-none-match': String(br.headers['etag']) });
    assert.equal(identity.status, 200);
    assert.equal(identity.headers['content-encoding'], undefined);
    const stale = await get(url, { 'accept-encoding': 'br', 'if-none-match': '"stale"' });
    assert.equal(stale.status, 200);
    assert.equal(stale.headers['content-encoding'], 'br');
  });

  test('an unknown file is still refused', async () => {
    const raw = await get(`${t.url}/js/nope.min.js`, { 'accept-encoding': 'br' });
    assert.equal(raw.status, 404);
    assert.equal(JSON.parse(raw.body.toString()).code, 'not-found');
  });
});
