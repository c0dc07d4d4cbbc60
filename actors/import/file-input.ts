/**
 * An export file as a byte stream: gzip is recognised by its magic bytes (not the file name),
 * so `.xml.gz` exports and gzipped backups read like plain ones, and the bytes read from disk
 * are counted for progress.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** A readable of the file's (decompressed) bytes, and how many bytes of the file were read. */
export interface FileInput {
  readonly stream: Readable;
  readonly size: number;
  bytesRead(): number;
}

/** Whether the file starts with the gzip magic bytes. */
export async function isGzip(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await handle.read(head, 0, 2, 0);
    return bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

/** Opens `path`, gunzipping it when it is gzip. */
export async function openInput(path: string): Promise<FileInput> {
  const gz = await isGzip(path);
  const raw = createReadStream(path, { highWaterMark: 256 * 1024 });
  const { size } = await (await import('node:fs/promises')).stat(path);
  const stream = gz ? raw.pipe(createGunzip()) : raw;
  if (gz) raw.on('error', (err) => stream.destroy(err));
  return { stream, size, bytesRead: () => raw.bytesRead };
}

/** The whole (decompressed) file, for formats that cannot be read in pieces (a SQLite file, one JSON document). */
export async function readWhole(path: string): Promise<Buffer> {
  const input = await openInput(path);
  const chunks: Buffer[] = [];
  for await (const chunk of input.stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The file's lines (UTF-8), streamed. */
export async function* lines(input: FileInput): AsyncGenerator<string> {
  let rest = '';
  input.stream.setEncoding('utf8');
  for await (const chunk of input.stream) {
    const text = rest + (chunk as string);
    const parts = text.split('\n');
    rest = parts.pop()!;
    for (const line of parts) yield line;
  }
  if (rest !== '') yield rest;
}
