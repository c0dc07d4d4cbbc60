import type { StoreReader } from '../../engine/actor.js';
import type { Doc } from '../../storage/store.js';

/**
 * The stored documents of `ids` (the ones that exist), by id: one `get` each, in parallel.
 * Gets by id are the one read every MongoDB-compatible server answers from its primary key; a
 * `find` with `_id: {$in}` is a full collection scan on some (FerretDB 1.x).
 */
export async function getMany<T extends Doc>(store: StoreReader, collection: string, ids: Iterable<string>): Promise<Map<string, T>> {
  const unique = [...new Set(ids)];
  const found = await Promise.all(unique.map((id) => store.get<T>(collection, id)));
  const out = new Map<string, T>();
  for (const doc of found) if (doc !== undefined) out.set(doc._id, doc);
  return out;
}
