/**
 * Files (uploaded images) beside the documents, on the same storage: under `DATA_DIR/uploads/`
 * with LMDB, in GridFS (bucket `uploads`) with MongoDB. Files are written once under a fresh
 * id and never changed, so no actor owns them: a put resolves only once the file is durable
 * (fsynced and renamed into place; acknowledged by the database), and a file that is not
 * there yet is simply not found.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { type Db, GridFSBucket } from 'mongodb';
import type { Store } from './store.js';

/** A stored file. */
export interface StoredFile {
  readonly bytes: Buffer;
  readonly contentType: string;
}

/** Where files go. Ids are `[A-Za-z0-9_-]`, chosen by the caller, unique. */
export interface FileStore {
  put(tenantId: string, id: string, bytes: Buffer, contentType: string): Promise<void>;
  get(tenantId: string, id: string): Promise<StoredFile | undefined>;
}

const SAFE = /^[A-Za-z0-9_-]{1,128}$/;

/** Files under a directory: `<dir>/<tenantId>/<id>` and the content type beside it. */
class DiskFiles implements FileStore {
  readonly #dir: string;

  constructor(dir: string) {
    this.#dir = dir;
  }

  async put(tenantId: string, id: string, bytes: Buffer, contentType: string): Promise<void> {
    if (!SAFE.test(tenantId) || !SAFE.test(id)) throw new Error('unsafe file id');
    const dir = join(this.#dir, tenantId);
    await mkdir(dir, { recursive: true });
    await writeDurably(join(dir, `${id}.type`), Buffer.from(contentType, 'utf8'));
    await writeDurably(join(dir, id), bytes);
    // The directory entries themselves must survive a crash too.
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  async get(tenantId: string, id: string): Promise<StoredFile | undefined> {
    if (!SAFE.test(tenantId) || !SAFE.test(id)) return undefined;
    try {
      const [bytes, type] = await Promise.all([readFile(join(this.#dir, tenantId, id)), readFile(join(this.#dir, tenantId, `${id}.type`), 'utf8')]);
      return { bytes, contentType: type };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }
}

/** Writes a file under a temporary name, syncs it, then renames it into place. */
async function writeDurably(path: string, bytes: Buffer): Promise<void> {
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temp, 'w');
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, path);
}

/** The MongoDB database of a store, looking through stores that wrap another (`inner`). */
function databaseOf(store: Store): Db | undefined {
  const seen = store as Store & { database?: Db; inner?: Store };
  return seen.database ?? (seen.inner !== undefined ? databaseOf(seen.inner) : undefined);
}

/** Files in GridFS, named `<tenantId>/<id>`, the content type in their metadata. */
class GridFiles implements FileStore {
  readonly #store: Store;
  #bucket: GridFSBucket | undefined;

  constructor(store: Store) {
    this.#store = store;
  }

  #files(): GridFSBucket {
    if (this.#bucket !== undefined) return this.#bucket;
    const db = databaseOf(this.#store);
    if (db === undefined) throw new Error('storage is not open');
    this.#bucket = new GridFSBucket(db, { bucketName: 'uploads', writeConcern: { w: 'majority', journal: true } });
    return this.#bucket;
  }

  put(tenantId: string, id: string, bytes: Buffer, contentType: string): Promise<void> {
    const upload = this.#files().openUploadStream(`${tenantId}/${id}`, { metadata: { tenantId, contentType } });
    return new Promise((resolve, reject) => {
      upload.once('error', reject);
      upload.once('finish', () => resolve());
      upload.end(bytes);
    });
  }

  async get(tenantId: string, id: string): Promise<StoredFile | undefined> {
    const files = this.#files();
    const [file] = await files.find({ filename: `${tenantId}/${id}` }, { limit: 1 }).toArray();
    if (file === undefined) return undefined;
    const chunks: Buffer[] = [];
    for await (const chunk of files.openDownloadStream(file._id)) chunks.push(chunk as Buffer);
    return { bytes: Buffer.concat(chunks), contentType: String((file.metadata as { contentType?: string } | undefined)?.contentType ?? 'application/octet-stream') };
  }
}

const made = new WeakMap<Store, FileStore>();

/** The file store beside `store`: GridFS on MongoDB, `<dataDir>/uploads` on LMDB. */
export function fileStoreFor(store: Store, dataDir: string): FileStore {
  let files = made.get(store);
  if (files === undefined) {
    files = store.kind === 'mongodb' ? new GridFiles(store) : new DiskFiles(join(dataDir, 'uploads'));
    made.set(store, files);
  }
  return files;
}
