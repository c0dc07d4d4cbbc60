/** Choosing an encoding by Accept-Encoding, and If-None-Match (http/content-encoding.ts). */
import assert from 'node:assert/strict';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { test } from 'node:test';
import { chooseVariant, encodeAll, noneMatch } from '../../../http/content-encoding.js';

const TEXT = Buffer.from('function widget(){return "comments";}\n'.repeat(200));

test('every kept encoding decodes to the same bytes, each with its own strong ETag', async () => {
  const encoded = await encodeAll(TEXT);
  assert.deepEqual([...encoded.keys()].sort(), ['br', 'gzip', 'identity']);
  assert.ok(brotliDecompressSync(encoded.get('br')!.body).equals(TEXT));
  assert.ok(gunzipSync(encoded.get('gzip')!.body).equals(TEXT));
  assert.ok(encoded.get('identity')!.body.equals(TEXT));
  const tags = [...encoded.values()].map((variant) => variant.etag);
  assert.equal(new Set(tags).size, 3);
  for (const tag of tags) assert.match(tag, /^"[^"]+"$/);
});

test('an encoding that would not be smaller is not kept', async () => {
  const encoded = await encodeAll(Buffer.from('x'));
  assert.deepEqual([...encoded.keys()], ['identity']);
  assert.equal(chooseVariant(encoded, 'br, gzip').encoding, 'identity');
});

test('Accept-Encoding: q-values, ties to the smaller, `*`, identity', async () => {
  const encoded = await encodeAll(TEXT);
  const cases: ReadonlyArray<readonly [string, string]> = [
    ['', 'identity'],
    ['   ', 'identity'],
    ['gzip', 'gzip'],
    ['gzip, br', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['br;q=0.5, gzip;q=0.5', 'br'],
    ['br; q=0.9, gzip;Q=1', 'gzip'],
    ['*', 'br'],
    ['*;q=0', 'identity'],
    ['*;q=0.3, gzip;q=0.2', 'br'],
    ['identity;q=0, gzip;q=0', 'identity'],
    ['compress, deflate', 'identity'],
    ['gzip;q=2', 'identity'],
    ['gzip;q=nonsense', 'identity'],
    ['x-gzip', 'gzip'],
  ];
  for (const [accept, expected] of cases) assert.equal(chooseVariant(encoded, accept).encoding, expected, accept);
});

test('If-None-Match: weak comparison, lists, `*`', () => {
  assert.ok(noneMatch('"a"', '"a"'));
  assert.ok(noneMatch('W/"a"', '"a"'));
  assert.ok(noneMatch('"b", W/"a"', '"a"'));
  assert.ok(noneMatch(' * ', '"a"'));
  assert.ok(!noneMatch('"b"', '"a"'));
  assert.ok(!noneMatch('a', '"a"'));
  assert.ok(!noneMatch('', '"a"'));
});
