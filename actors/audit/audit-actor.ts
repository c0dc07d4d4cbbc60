/**
 * A tenant's audit log (`audit:<tenantId>`): appends entries (those of changes durable before
 * the call they record is answered; those of reads in batches, off the request path, one
 * message and one commit per batch) and reads them back. It asks the tenant actor (whether the tenant still
 * is); the tenant actor never asks it. Entries are never changed; the sweeper
 * (`audit-sweeper`) removes those older than two years, and reads leave them out meanwhile.
 */
import { Actor, defineKind, type Handlers } from '../../engine/actor.js';
import { clock } from '../../engine/clock.js';
import { newId } from '../../engine/ids.js';
import { ApiError } from '../../engine/errors.js';
import type { Filter } from '../../storage/store.js';
import { TenantKind } from '../tenant/tenant-actor.js';
import { AUDIT_LOGS, AUDIT_RETENTION_MS, type AuditEntry, type AuditLogDoc, type TimedAuditEntry } from './audit-model.js';

/** Entries read per storage query while filtering by target. */
const SCAN = 1000;
/** Expired entries removed per sweep round. */
const SWEEP_BATCH = 500;

export interface AuditQuery {
  readonly tenantIds: readonly string[];
  readonly skip: number;
  readonly limit: number;
  /** Exclusive bounds, ms. */
  readonly before?: number;
  readonly after?: number;
  readonly order: 'ASC' | 'DESC';
  /** Case-insensitive substring of `targetLabel`. */
  readonly target?: string;
}

export type AuditProtocol = {
  record: { in: { entry: AuditEntry }; out: null };
  /** Entries gathered by the server (reads), each at the time of its call; one commit. */
  recordMany: { in: { entries: readonly TimedAuditEntry[] }; out: null };
  list: { in: AuditQuery; out: AuditLogDoc[] };
};

export type AuditSweeperProtocol = {
  sweep: { in: null; out: { removed: number } };
};

/** `audit:<tenantId>` */
export const AuditKind = defineKind<AuditProtocol>('audit');
/** `audit-sweeper:all` */
export const AuditSweeperKind = defineKind<AuditSweeperProtocol>('audit-sweeper');

/** The server's start, as entries record it. */
const SERVER_START = new Date().toISOString();

export class AuditActor extends Actor<AuditProtocol> {
  override async onStart(): Promise<void> {}

  readonly handlers: Handlers<AuditProtocol> = {
    record: async ({ entry }) => {
      if (!(await this.#tenantLives())) return null;
      this.#append(entry, clock.now());
      return null;
    },

    recordMany: async ({ entries }) => {
      if (!(await this.#tenantLives())) return null;
      for (const { at, ...entry } of entries) this.#append(entry, at);
      return null;
    },

    list: async (query) => {
      const now = clock.now();
      const range: Record<string, number> = { $gt: Math.max(query.after ?? -Infinity, now - AUDIT_RETENTION_MS) };
      if (query.before !== undefined) range['$lt'] = query.before;
      const filter: Filter = { tenantId: query.tenantIds.length === 1 ? query.tenantIds[0]! : { $in: [...query.tenantIds] }, whenMs: range };
      const dir = query.order === 'ASC' ? 1 : -1;
      const sort = [['whenMs', dir], ['_id', dir]] as const;
      if (query.target === undefined || query.target === '') return this.store.find<AuditLogDoc>(AUDIT_LOGS, filter, { sort, skip: query.skip, limit: query.limit });
      // A substring of the label: scanned a chunk at a time, keeping only the page asked for.
      const needle = query.target.toLowerCase();
      const out: AuditLogDoc[] = [];
      let toSkip = query.skip;
      for (let offset = 0; out.length < query.limit; offset += SCAN) {
        const chunk = await this.store.find<AuditLogDoc>(AUDIT_LOGS, filter, { sort, skip: offset, limit: SCAN });
        for (const doc of chunk) {
          if (out.length >= query.limit || !(doc.targetLabel ?? '').toLowerCase().includes(needle)) continue;
          if (toSkip > 0) toSkip--;
          else out.push(doc);
        }
        if (chunk.length < SCAN) break;
      }
      return out;
    },
  };

  /** A tenant deleted (or being deleted) keeps no log: the call that deleted it is not recorded in its own. */
  async #tenantLives(): Promise<boolean> {
    try {
      await this.system.ask(TenantKind, this.id, 'read', null);
      return true;
    } catch (err) {
      if (err instanceof ApiError && (err.code === 'tenant-deleted' || err.code === 'invalid-tenant-id')) return false;
      throw err;
    }
  }

  #append(entry: AuditEntry, at: number): void {
    const doc: AuditLogDoc = { _id: newId(at), ...entry, when: new Date(at).toISOString(), whenMs: at, expireAt: at + AUDIT_RETENTION_MS, serverStartDate: SERVER_START };
    this.insert(AUDIT_LOGS, doc);
  }
}

export class AuditSweeperActor extends Actor<AuditSweeperProtocol> {
  override async onStart(): Promise<void> {}

  readonly handlers: Handlers<AuditSweeperProtocol> = {
    sweep: async () => {
      let removed = 0;
      for (let round = 0; round < 20; round++) {
        const expired = await this.store.find<AuditLogDoc>(AUDIT_LOGS, { expireAt: { $lt: clock.now() } }, { limit: SWEEP_BATCH });
        if (expired.length === 0) break;
        await this.commitNow(expired.map((doc) => ({ op: 'delete' as const, collection: AUDIT_LOGS, id: doc._id })));
        removed += expired.length;
      }
      return { removed };
    },
  };
}
