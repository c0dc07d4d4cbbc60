/**
 * Image uploads on every storage: re-encoded and resized with sharp, metadata stripped, served
 * back with a long cache header from where the rest of the data lives (files under DATA_DIR on
 * LMDB, GridFS on MongoDB); non-images, disguised files, decompression bombs, oversized bodies
 * and floods refused with a clear 4xx.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { checkedFetch } from '../fixtures/openapi.js';
import { startTestServer, storages, type TestServer } from '../fixtures/server.js';
import { allowSite, SITE } from './reader-helpers.js';

/** A real photo-like image with EXIF (orientation, camera, GPS-ish comment) of the given size. */
function photo(width: number, height: number, format: 'jpeg' | 'png'): Promise<Buffer> {
  const base = sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } }).withExif({ IFD0: { Make: 'SecretCam', Copyright: 'GPS 48.85,2.35' } });
  return (format === 'jpeg' ? base.jpeg() : base.png()).toBuffer();
}

/** A PNG whose header claims `width` × `height` pixels (a decompression bomb's first bytes). */
function claimedPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    return Buffer.concat([length, Buffer.from(type, 'latin1'), data, Buffer.alloc(4)]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(8, 8);
  header.writeUInt8(0, 9);
  return Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'), chunk('IHDR', header), chunk('IDAT', deflateSync(Buffer.alloc(1024))), chunk('IEND', Buffer.alloc(0))]);
}

async function upload(t: TestServer, tenantId: string, bytes: Buffer, options: { name?: string; type?: string; preset?: string; field?: string } = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const form = new FormData();
  form.set(options.field ?? 'file', new Blob([bytes], { type: options.type ?? 'image/png' }), options.name ?? 'picture.png');
  const query = options.preset ? `?sizePreset=${options.preset}` : '';
  const res = await checkedFetch(`${t.url}/upload-image/${tenantId}${query}`, { method: 'POST', body: form, headers: { origin: SITE } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

type Uploaded = { url: string; media: { w: number; h: number; src: string }[] };

for (const storage of storages()) {
  describe(`image uploads on ${storage}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(storage, { maxUploadBytes: 2_000_000, maxUploadPixels: 12_000_000, uploadsPerHour: 400 });
      await allowSite(t);
    });
    after(async () => {
      await t?.destroy();
    });

    test('an image is resized, re-encoded without its metadata, stored and served back with a long cache header', async () => {
      const r = await upload(t, t.tenant.tenantId, await photo(3000, 1500, 'png'));
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const body = r.body as unknown as Uploaded;
      assert.deepEqual(body.media.map((m) => [m.w, m.h]), [[1600, 800]]);
      assert.equal(body.url, body.media[0]!.src);
      const served = await fetch(body.url);
      assert.equal(served.status, 200);
      assert.equal(served.headers.get('content-type'), 'image/webp');
      assert.equal(served.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      const bytes = Buffer.from(await served.arrayBuffer());
      const meta = await sharp(bytes).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height, meta.exif], ['webp', 1600, 800, undefined]);
      assert.ok(!bytes.includes(Buffer.from('SecretCam')), 'no metadata survives');
      if (storage === 'lmdb') {
        const dir = join(t.server.services.config.dataDir, 'uploads', t.tenant.tenantId);
        assert.ok(existsSync(dir) && readdirSync(dir).length >= 2, 'stored under DATA_DIR');
      }
    });

    test('a JPEG stays JPEG; the cross-platform preset makes three sizes', async () => {
      const r = await upload(t, t.tenant.tenantId, await photo(2400, 1800, 'jpeg'), { name: 'p.jpg', type: 'image/jpeg', preset: 'CrossPlatform' });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const body = r.body as unknown as Uploaded;
      assert.deepEqual(body.media.map((m) => m.w), [1600, 800, 400]);
      for (const m of body.media) {
        const served = await fetch(m.src);
        assert.equal(served.headers.get('content-type'), 'image/jpeg');
        const meta = await sharp(Buffer.from(await served.arrayBuffer())).metadata();
        assert.deepEqual([meta.width, meta.height, meta.exif], [m.w, m.h, undefined]);
      }
    });

    test('not images, disguised files, bombs and oversized bodies are refused with a clear 4xx', async () => {
      const tenantId = t.tenant.tenantId;
      const text = await upload(t, tenantId, Buffer.from('just some text, not a picture'), { name: 'x.png', type: 'image/png' });
      assert.deepEqual([text.status, text.body['code']], [415, 'not-an-image']);
      const svg = await upload(t, tenantId, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), { name: 'x.svg', type: 'image/svg+xml' });
      assert.deepEqual([svg.status, svg.body['code']], [415, 'not-an-image']);
      const broken = await upload(t, tenantId, Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(200, 7)]), { name: 'x.jpg', type: 'image/jpeg' });
      assert.deepEqual([broken.status, broken.body['code']], [415, 'not-an-image']);
      const bomb = await upload(t, tenantId, claimedPng(100_000, 100_000));
      assert.deepEqual([bomb.status, bomb.body['code']], [422, 'image-too-many-pixels']);
      const large = await upload(t, tenantId, await photo(4000, 4000, 'png'));
      assert.deepEqual([large.status, large.body['code']], [422, 'image-too-many-pixels']);
      const oversized = await upload(t, tenantId, Buffer.concat([await photo(10, 10, 'png'), Buffer.alloc(2_100_000)]));
      assert.deepEqual([oversized.status, oversized.body['code']], [413, 'body-too-large']);
      const noField = await upload(t, tenantId, await photo(10, 10, 'png'), { field: 'other' });
      assert.deepEqual([noField.status, noField.body['code']], [400, 'invalid-upload']);
      const json = await fetch(`${t.url}/upload-image/${tenantId}`, { method: 'POST', body: '{"file":"x"}', headers: { 'content-type': 'application/json' } });
      assert.equal(json.status, 400);
      const unknown = await upload(t, 'no-such-tenant', await photo(10, 10, 'png'));
      assert.equal(unknown.status, 401);
      assert.equal((await fetch(`${t.url}/uploads/${tenantId}/nothing-here.webp`)).status, 404);
      assert.equal((await fetch(`${t.url}/uploads/${tenantId}/..%2F..%2Fetc.webp`)).status, 404);
    });
  });
}

describe('image upload budget', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer('lmdb', { uploadsPerHour: 4 });
  });
  after(async () => {
    await t?.destroy();
  });

  test('a client uploading faster than its hourly budget gets 429 rate-limited', async () => {
    const image = await photo(20, 20, 'png');
    assert.equal((await upload(t, t.tenant.tenantId, image)).status, 200);
    const second = await upload(t, t.tenant.tenantId, image);
    assert.deepEqual([second.status, second.body['code']], [429, 'rate-limited']);
  });
});
