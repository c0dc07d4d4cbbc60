/**
 * Streaming reads for the MongoDB adapter: one cursor, read a server batch at a time. The
 * driver holds one batch of documents; each is handed out as soon as it has arrived.
 */
import type { Collection, Document } from 'mongodb';
import type { Doc } from './store.js';
import { toStorageError } from './mongo-errors.js';

/**
 * Streams the documents matching `filter` (already in MongoDB syntax) in batches of at most
 * `batchSize`; with `fields`, only those top-level fields and `_id` leave the server.
 */
export async function* scanCollection(collection: Collection<Document>, filter: Document, batchSize: number, fields?: readonly string[]): AsyncGenerator<Doc[]> {
  const projection = fields === undefined ? undefined : Object.fromEntries([['_id', 1], ...fields.filter((name) => name !== '_id').map((name) => [name, 1])]);
  const cursor = collection.find(filter, projection === undefined ? { batchSize } : { batchSize, projection });
  try {
    for (;;) {
      let more: boolean;
      try {
        more = await cursor.hasNext();
      } catch (error) {
        throw toStorageError(error, 'scan');
      }
      if (!more) return;
      yield cursor.readBufferedDocuments(batchSize) as unknown as Doc[];
    }
  } finally {
    await cursor.close().catch(() => undefined);
  }
}
