/**
 * The comments of an import sorted out by page on disk, so that memory stays bounded however
 * the source orders them: the first pass appends each comment to one of N bucket files (by a
 * hash of its page), the second reads one bucket at a time, whose pages it then writes one
 * after the other. A bucket holds about `BUCKET_BYTES` of the source, whatever its size.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { finished } from 'node:stream/promises';
import type { ImportComment } from './records.js';

/** Source bytes per bucket (so a bucket read back is a few tens of MB at most). */
const BUCKET_BYTES = 4 * 1024 * 1024;

/** A comment waiting in the spool, with its page. */
export interface Spooled {
  readonly urlId: string;
  readonly comment: ImportComment;
}

/** Bucket files under a temporary directory. */
export class ImportSpool {
  readonly #dir: string;
  readonly #files: (WriteStream | undefined)[];
  readonly #counts: number[];

  constructor(parent: string, sourceBytes: number) {
    this.#dir = mkdtempSync(join(parent, 'import-spool-'));
    const buckets = Math.max(1, Math.min(1024, Math.ceil(sourceBytes / BUCKET_BYTES)));
    this.#files = new Array<WriteStream | undefined>(buckets).fill(undefined);
    this.#counts = new Array<number>(buckets).fill(0);
  }

  #bucket(urlId: string): number {
    return createHash('sha1').update(urlId).digest().readUInt32BE(0) % this.#files.length;
  }

  /** Appends a comment to its page's bucket. */
  async add(item: Spooled): Promise<void> {
    const b = this.#bucket(item.urlId);
    let file = this.#files[b];
    if (file === undefined) this.#files[b] = file = createWriteStream(join(this.#dir, `${b}.ndjson`));
    this.#counts[b]!++;
    if (!file.write(JSON.stringify(item) + '\n')) await new Promise<void>((r) => file.once('drain', () => r()));
  }

  /** Ends the first pass. */
  async close(): Promise<void> {
    for (const file of this.#files) {
      if (file === undefined) continue;
      file.end();
      await finished(file);
    }
  }

  /** Each bucket's comments by page, one bucket at a time (the file removed once read). */
  async *pages(): AsyncGenerator<Map<string, ImportComment[]>> {
    for (let b = 0; b < this.#files.length; b++) {
      if (this.#files[b] === undefined) continue;
      const path = join(this.#dir, `${b}.ndjson`);
      const byPage = new Map<string, ImportComment[]>();
      for await (const line of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
        if (line === '') continue;
        const { urlId, comment } = JSON.parse(line) as Spooled;
        const list = byPage.get(urlId);
        if (list === undefined) byPage.set(urlId, [comment]);
        else list.push(comment);
      }
      rmSync(path, { force: true });
      yield byPage;
    }
  }

  /** Comments spooled. */
  get size(): number {
    return this.#counts.reduce((a, b) => a + b, 0);
  }

  /** Removes what is left. */
  dispose(): void {
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
