import { newSecret } from '../../engine/ids.js';
import { DuplicateKeyError } from '../../storage/errors.js';
import type { CollectionSpec, Doc, Store } from '../../storage/store.js';

/** Server-wide values created once and kept in storage. */
export const SERVER_STATE = 'serverState';
export const serverStateCollections: readonly CollectionSpec[] = [{ name: SERVER_STATE, indexes: [], tenantData: 'global' }];

interface SecretDoc extends Doc {
  secret: string;
}

/**
 * The secret behind the opaque live ids. Created on first start and kept, so ids handed to
 * widgets stay valid across restarts and across processes sharing the storage.
 */
export async function liveSecret(store: Store): Promise<string> {
  const found = await store.get<SecretDoc>(SERVER_STATE, 'live-ids');
  if (found) return found.secret;
  try {
    await store.commit([{ op: 'insert', collection: SERVER_STATE, doc: { _id: 'live-ids', secret: newSecret(32) } }]);
  } catch (err) {
    // Another process created it first: use theirs.
    if (!(err instanceof DuplicateKeyError)) throw err;
  }
  return (await store.get<SecretDoc>(SERVER_STATE, 'live-ids'))!.secret;
}
