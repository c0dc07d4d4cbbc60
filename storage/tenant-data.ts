/**
 * Where a tenant's documents are: the registry that deleting a tenant walks. Each collection
 * says it in its `CollectionSpec.tenantData` (one line), or is covered by default when one of
 * its indexes starts with `tenantId`; `test/unit/storage/tenant-data.test.ts` refuses a
 * collection that does neither, so a new collection cannot be forgotten.
 */
import type { CollectionSpec } from './store.js';

/** A collection whose documents carry the tenant id in `field`, and the collections whose documents go with them. */
export interface FieldScope {
  readonly collection: string;
  readonly field: string;
  /** Collections holding a document with the same `_id` as each of these (`sameIdAs`). */
  readonly companions: readonly string[];
}

/** Every place a tenant's documents are. */
export interface TenantScopes {
  /** Found by a field, in the order deletion walks them. */
  readonly byField: readonly FieldScope[];
  /** Collections whose document `_id` is the tenant id (deleted last). */
  readonly byId: readonly string[];
  /** Collections that declare nothing and cannot be inferred (a defect: the unit test fails). */
  readonly undeclared: readonly string[];
}

function declared(spec: CollectionSpec): CollectionSpec['tenantData'] {
  if (spec.tenantData !== undefined) return spec.tenantData;
  return spec.indexes.some((index) => index.fields[0] === 'tenantId') ? { field: 'tenantId' } : undefined;
}

/** The registry of `collections`. */
export function tenantScopes(collections: readonly CollectionSpec[]): TenantScopes {
  const byField: FieldScope[] = [];
  const byId: string[] = [];
  const undeclared: string[] = [];
  const companions = new Map<string, string[]>();
  for (const spec of collections) {
    const data = declared(spec);
    if (data !== undefined && typeof data === 'object' && 'sameIdAs' in data) {
      const list = companions.get(data.sameIdAs) ?? [];
      list.push(spec.name);
      companions.set(data.sameIdAs, list);
    }
  }
  for (const spec of collections) {
    const data = declared(spec);
    if (data === undefined) undeclared.push(spec.name);
    else if (data === 'tenant-id') byId.push(spec.name);
    else if (data !== 'global' && 'field' in data) byField.push({ collection: spec.name, field: data.field, companions: companions.get(spec.name) ?? [] });
  }
  for (const [owner, list] of companions) {
    if (!byField.some((scope) => scope.collection === owner)) undeclared.push(...list.map((name) => `${name} (sameIdAs ${owner}, which is not found by a field)`));
  }
  return { byField, byId, undeclared };
}
