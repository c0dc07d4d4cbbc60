/**
 * Every document of a tenant as newline-delimited JSON: a header line, then one line per
 * document (`{"c": collection, "d": document}`), collection by collection in the registry's
 * order. Read a batch at a time (`Store.scan`), so memory does not grow with the tenant.
 */
import type { Store } from '../../storage/store.js';
import { tenantScopes } from '../../storage/tenant-data.js';
import { COLLECTIONS } from '../../storage/collections.js';
import { type ExportHeader, NOT_EXPORTED, SECRET_FIELDS } from './export-rules.js';

function withoutSecrets(doc: Record<string, unknown>): Record<string, unknown> {
  let out = doc;
  for (const field of SECRET_FIELDS) {
    if (field in out) {
      if (out === doc) out = { ...doc };
      delete out[field];
    }
  }
  return out;
}

/** The export's lines, each ending with a newline; `count` is told per collection. */
export async function* exportTenant(store: Store, tenantId: string, nowMs: number = Date.now()): AsyncGenerator<string> {
  const header: ExportHeader = { kind: 'comments-export', version: 1, tenantId, exportedAt: new Date(nowMs).toISOString(), storage: store.kind };
  yield JSON.stringify(header) + '\n';
  const scopes = tenantScopes(COLLECTIONS);
  for (const collection of scopes.byId) {
    if (collection in NOT_EXPORTED) continue;
    const doc = await store.get(collection, tenantId);
    if (doc !== undefined) yield JSON.stringify({ c: collection, d: withoutSecrets(doc) }) + '\n';
  }
  for (const scope of scopes.byField) {
    if (scope.collection in NOT_EXPORTED) continue;
    for await (const batch of store.scan(scope.collection, { [scope.field]: tenantId }, { batchSize: 500 })) {
      let text = '';
      for (const doc of batch) {
        text += JSON.stringify({ c: scope.collection, d: withoutSecrets(doc) }) + '\n';
        for (const companion of scope.companions) {
          if (companion in NOT_EXPORTED) continue;
          const other = await store.get(companion, doc._id);
          if (other !== undefined) text += JSON.stringify({ c: companion, d: withoutSecrets(other) }) + '\n';
        }
      }
      yield text;
    }
  }
}
