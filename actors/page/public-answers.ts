/**
 * One anonymous reader's answer of a page as bytes: the JSON once, and gzip and brotli
 * encodings of it, made once. Small answers are compressed at once (cheaper than a round trip
 * to the thread pool); large ones in libuv's thread pool, off the event loop, and served
 * uncompressed (or in the encoding already made) until theirs is ready. Which answers are kept,
 * and until which change, is public-cache.ts's concern; a compression finishing after its
 * answer was dropped fills an answer nobody serves any more, which is harmless.
 */
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from 'node:zlib';

/** Answers below this many bytes are compressed on the spot. */
export const SYNC_COMPRESS_MAX = 16_384;
const BROTLI_SYNC = { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } };
const BROTLI_ASYNC = { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } };

/** One answer: its JSON bytes, and its encodings once made. */
export class PublicAnswer {
  gzip: Buffer | undefined;
  br: Buffer | undefined;

  constructor(readonly identity: Buffer) {
    if (identity.length <= SYNC_COMPRESS_MAX) {
      this.gzip = gzipSync(identity);
      this.br = brotliCompressSync(identity, BROTLI_SYNC);
      return;
    }
    gzip(identity, (err, out) => {
      if (err === null) this.gzip = out;
    });
    brotliCompress(identity, BROTLI_ASYNC, (err, out) => {
      if (err === null) this.br = out;
    });
  }

  /** The best ready encoding the client accepts (`accept-encoding`), and its name (null: identity). */
  choose(acceptEncoding: string | undefined): { body: Buffer; encoding: 'br' | 'gzip' | null } {
    if (acceptEncoding !== undefined && acceptEncoding !== '') {
      if (this.br !== undefined && accepts(acceptEncoding, 'br')) return { body: this.br, encoding: 'br' };
      if (this.gzip !== undefined && accepts(acceptEncoding, 'gzip')) return { body: this.gzip, encoding: 'gzip' };
    }
    return { body: this.identity, encoding: null };
  }
}

/** Whether an `Accept-Encoding` header accepts `coding` (listed without `q=0`). */
export function accepts(header: string, coding: string): boolean {
  let at = header.indexOf(coding);
  while (at >= 0) {
    const before = at === 0 ? ',' : header[at - 1];
    const after = header[at + coding.length];
    if ((before === ',' || before === ' ') && (after === undefined || after === ',' || after === ';' || after === ' ')) {
      const rest = header.slice(at + coding.length).split(',')[0]!;
      return !/;\s*q\s*=\s*0(?:\.0*)?\s*$/.test(rest);
    }
    at = header.indexOf(coding, at + 1);
  }
  return false;
}
