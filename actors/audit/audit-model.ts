/**
 * The audit log: one immutable entry per API call of a tenant whose package has `hasAuditing`
 * (changes and reads), kept two years. Entries are written by the tenant's audit actor and
 * never changed; a sweeper removes the expired ones, and reads never show them.
 */
import type { CollectionSpec, Doc } from '../../storage/store.js';

export const AUDIT_LOGS = 'auditLogs';

/** How long an entry is kept: two years. */
export const AUDIT_RETENTION_MS = 2 * 365 * 24 * 60 * 60 * 1000;

export const auditCollections: readonly CollectionSpec[] = [
  {
    name: AUDIT_LOGS,
    indexes: [
      { name: 'by_tenant_when', fields: ['tenantId', 'whenMs'] },
      { name: 'by_expiry', fields: ['expireAt'] },
    ],
  },
];

/** `c`reate, `r`ead, `u`pdate, `d`elete. */
export type CrudType = 'c' | 'r' | 'u' | 'd';

/** A field's value before and after an update. */
export interface Change {
  readonly from: unknown;
  readonly to: unknown;
}

export interface AuditEntry {
  /** The tenant the call acted on. */
  readonly tenantId: string;
  readonly resourceName: string;
  readonly crudType: CrudType;
  /** The user of an access token, if the call was made with one. */
  readonly userId: string | null;
  readonly username: string | null;
  /** The API key used (its id, never the key), if any. */
  readonly apiKeyId: string | null;
  /** The tenant whose credential it was, when not `tenantId` (its manager). */
  readonly actingTenantId: string | null;
  readonly ip: string | null;
  /** Method and path, without the query (which may hold a key). */
  readonly url: string;
  readonly targetId: string | null;
  /** What the target was called when the call was made: deleted targets stay identifiable. */
  readonly targetLabel: string | null;
  readonly objectDetails: { readonly changes: Readonly<Record<string, Change>> } | null;
}

/** An entry recorded after the fact (reads, in batches): `at` is when the call was made, ms. */
export interface TimedAuditEntry extends AuditEntry {
  readonly at: number;
}

export interface AuditLogDoc extends Doc, AuditEntry {
  /** ISO date-time. */
  when: string;
  /** `when` in ms, for ranges and order. */
  whenMs: number;
  /** ms since 1970: when the sweeper removes it. */
  expireAt: number;
  /** ISO date-time the server that recorded it started. */
  serverStartDate: string;
}

/** Fields whose value differs between two versions of an object (shallow, compared as JSON). */
export function changesBetween(before: Readonly<Record<string, unknown>>, after: Readonly<Record<string, unknown>>): Record<string, Change> {
  const changes: Record<string, Change> = {};
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (field === 'status' || field === 'creditsCost') continue;
    const from = before[field];
    const to = after[field];
    if (JSON.stringify(from) !== JSON.stringify(to)) changes[field] = { from: from ?? null, to: to ?? null };
  }
  return changes;
}

const LABEL_FIELDS = ['name', 'username', 'displayName', 'title', 'domain', 'tag', 'email', 'urlId'] as const;

/** A readable label of an object as the API shows it: its name, or what else names it. */
export function labelOf(object: Readonly<Record<string, unknown>> | null): string | null {
  if (object === null) return null;
  if (typeof object['commenterName'] === 'string' && typeof object['comment'] === 'string') {
    return `${object['commenterName']}: ${object['comment'].slice(0, 100)}`;
  }
  for (const field of LABEL_FIELDS) {
    const value = object[field];
    if (typeof value === 'string' && value !== '') return value.slice(0, 200);
  }
  return null;
}

/** The API shape (`APIAuditLog`, with the specification's `tenantId`, `targetId` and `targetLabel`). */
export function auditLogView(doc: AuditLogDoc): Record<string, unknown> {
  const { whenMs: _ms, expireAt: _expire, ...rest } = doc;
  const view: Record<string, unknown> = { ...rest, id: doc._id, from: 'api', description: doc.url };
  for (const field of ['userId', 'username', 'apiKeyId', 'actingTenantId', 'targetId', 'targetLabel'] as const) if (view[field] === null) delete view[field];
  return view;
}
