import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { IMAGE_WORK, inImageTurn, sniffImage } from '../../../http/routes/upload-image.js';

describe('image type sniffing', () => {
  test('reads the type from the first bytes, whatever the file claims', () => {
    const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
    assert.equal(sniffImage(bytes([0xff, 0xd8, 0xff, 0xe0], 'JFIF')), 'jpeg');
    assert.equal(sniffImage(bytes('\x89PNG\r\n\x1a\n', [0, 0])), 'png');
    assert.equal(sniffImage(bytes('GIF89a', [1, 0])), 'gif');
    assert.equal(sniffImage(bytes('RIFF', [1, 2, 3, 4], 'WEBPVP8 ')), 'webp');
    assert.equal(sniffImage(bytes([0, 0, 0, 28], 'ftypavif')), 'avif');
    for (const other of ['<svg xmlns="http://www.w3.org/2000/svg"/>', '<?xml version="1.0"?><svg/>', 'BM6', '%PDF-1.7', '', 'GIF8', 'RIFF1234WAVE']) {
      assert.equal(sniffImage(Buffer.from(other, 'latin1')), undefined, other);
    }
  });
});

describe('image decoding turns', () => {
  test('two images at once, sixteen waiting, the rest refused as overloaded; turns pass on in order', async () => {
    const releases: (() => void)[] = [];
    const started: number[] = [];
    const jobs: Promise<number>[] = [];
    for (let i = 0; i < IMAGE_WORK.concurrent + IMAGE_WORK.waiting; i++) {
      jobs.push(
        inImageTurn(async () => {
          started.push(i);
          await new Promise<void>((resolve) => releases.push(resolve));
          return i;
        }),
      );
    }
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(started, [0, 1]);
    await assert.rejects(inImageTurn(async () => 0), (err: Error & { code?: string }) => err.code === 'overloaded');
    for (let done = 0; done < jobs.length; done++) {
      releases.shift()!();
      await jobs[done];
      await new Promise((r) => setImmediate(r));
    }
    assert.deepEqual(started, [...Array(jobs.length).keys()]);
    assert.deepEqual(await Promise.all(jobs), [...Array(jobs.length).keys()]);
  });
});
