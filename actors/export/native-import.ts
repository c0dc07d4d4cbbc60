/**
 * Importing our own export (export-tenant.ts) into a tenant, usually an empty one on another
 * server: the documents are written as they are, with the exporting tenant's id replaced by
 * the receiving one's wherever it appears (ids included: tenant ids are random and long, so
 * the replacement cannot hit anything else). Only documents of collections of tenant data
 * whose tenant field (and id, when it starts with the id of a tenant) then names the receiving
 * tenant are written. Writing the same file again writes the same documents (idempotent). The tenant's actors are passivated before and after, so none keeps
 * a state older than what was written. A document whose id another tenant of this server
 * holds is refused (importing an export back into its own server under another tenant).
 */
import { LRUCache } from 'lru-cache';
import type { ActorSystem } from '../../engine/actor-system.js';
import { DuplicateKeyError } from '../../storage/errors.js';
import { COLLECTIONS } from '../../storage/collections.js';
import type { Doc, WriteOp } from '../../storage/store.js';
import { tenantScopes } from '../../storage/tenant-data.js';
import { lines, openInput } from '../import/file-input.js';
import { addProblem, KEPT_PROBLEMS, type ReportedProblem } from '../import/report.js';
import { type ExportHeader, type ExportLine, NOT_EXPORTED, NOT_IMPORTED } from './export-rules.js';

/** The collections of tenant data, and the field naming the tenant in each. */
const TENANT_FIELDS = new Map(tenantScopes(COLLECTIONS).byField.map((scope) => [scope.collection, scope.field]));

/** Documents written per batch. */
const BATCH = 500;
const PASSIVATE_MS = 10_000;

/** What a native import did. */
export interface NativeReport {
  format: 'native';
  dryRun: boolean;
  sourceTenantId: string;
  /** `total` = `imported` + `skipped`. */
  documents: { total: number; imported: number; skipped: number };
  collections: Record<string, number>;
  problems: { total: number; byReason: Record<string, number>; first: ReportedProblem[] };
}

/** What to import. */
export interface NativeImport {
  readonly system: ActorSystem;
  readonly tenantId: string;
  readonly file: string;
  readonly dryRun: boolean;
  /** A kind of actor of the tenant left active (the job running this import). */
  readonly exceptKind?: string;
  onProgress?(bytes: number, documents: number): void;
}

/** Imports an export file into `tenantId`. */
export async function importNative(run: NativeImport): Promise<NativeReport> {
  const store = run.system.store;
  const input = await openInput(run.file);
  const report: NativeReport = {
    format: 'native',
    dryRun: run.dryRun,
    sourceTenantId: '',
    documents: { total: 0, imported: 0, skipped: 0 },
    collections: {},
    problems: { total: 0, byReason: {}, first: [] },
  };
  // `addProblem` works on any report with these fields.
  const problem = (sourceId: string | null, reason: string) => {
    report.documents.skipped++;
    addProblem(report as unknown as Parameters<typeof addProblem>[0], { record: 'document', sourceId, reason, imported: false });
  };
  // Ids of a tenant's documents may start with the tenant's id, or with a comment's (flags): only the first are checked.
  const tenants = new LRUCache<string, boolean>({ max: 10_000 });
  const isTenant = async (id: string): Promise<boolean> => {
    let known = tenants.get(id);
    if (known === undefined) tenants.set(id, (known = (await store.get('tenants', id)) !== undefined));
    return known;
  };
  let header: ExportHeader | undefined;
  let batch: { collection: string; doc: Doc }[] = [];

  const write = async () => {
    if (batch.length === 0) return;
    const docs = batch;
    batch = [];
    const stored = await Promise.all(docs.map(({ collection, doc }) => store.get(collection, doc._id)));
    const ops: WriteOp[] = [];
    const counted: string[] = [];
    for (let i = 0; i < docs.length; i++) {
      const { collection, doc } = docs[i]!;
      const other = stored[i] as Doc | undefined;
      if (other !== undefined && 'tenantId' in other && other['tenantId'] !== run.tenantId && collection !== 'tenants') {
        problem(`${collection}/${doc._id}`, 'another tenant of this server holds a document with this id');
        continue;
      }
      ops.push({ op: 'put', collection, doc });
      counted.push(collection);
    }
    if (!run.dryRun && ops.length > 0) {
      try {
        await store.commit(ops);
      } catch (err) {
        if (!(err instanceof DuplicateKeyError)) throw err;
        // One document breaks a unique rule (a user with this email already, say): the rest go in one by one.
        counted.length = 0;
        for (const op of ops as Extract<WriteOp, { op: 'put' }>[]) {
          try {
            await store.commit([op]);
            counted.push(op.collection);
          } catch (one) {
            if (!(one instanceof DuplicateKeyError)) throw one;
            problem(`${op.collection}/${op.doc._id}`, `conflicts with a document of this tenant (${one.message})`);
          }
        }
      }
    }
    for (const collection of counted) {
      report.documents.imported++;
      report.collections[collection] = (report.collections[collection] ?? 0) + 1;
    }
    run.onProgress?.(input.bytesRead(), report.documents.total);
  };

  if (!run.dryRun) await run.system.passivateTenant(run.tenantId, run.exceptKind ?? '', PASSIVATE_MS);
  let lineNo = 0;
  for await (const text of lines(input)) {
    lineNo++;
    if (text.trim() === '') continue;
    if (header === undefined) {
      const parsed = JSON.parse(text) as ExportHeader;
      if (parsed.kind !== 'comments-export' || parsed.version !== 1 || typeof parsed.tenantId !== 'string' || parsed.tenantId.length < 8) {
        throw new Error('not an export of this server (its first line is not a comments-export header of version 1)');
      }
      header = parsed;
      report.sourceTenantId = parsed.tenantId;
      continue;
    }
    report.documents.total++;
    let line: ExportLine;
    try {
      line = JSON.parse(text.split(header.tenantId).join(run.tenantId)) as ExportLine;
    } catch {
      problem(`line ${lineNo}`, 'not a JSON line');
      continue;
    }
    if (typeof line.c !== 'string' || line.d === null || typeof line.d !== 'object' || typeof line.d._id !== 'string') {
      problem(`line ${lineNo}`, 'not a document line ({"c": collection, "d": document})');
      continue;
    }
    const skipWhy = NOT_IMPORTED[line.c] ?? NOT_EXPORTED[line.c];
    if (skipWhy !== undefined) {
      problem(`${line.c}/${line.d._id}`, `not imported: ${skipWhy}`);
      continue;
    }
    const field = TENANT_FIELDS.get(line.c);
    if (field === undefined) {
      problem(`${line.c}/${line.d._id}`, 'not a collection of tenant data');
      continue;
    }
    // Only this tenant's documents: a file naming another tenant (in a field or an id) writes nothing of it.
    const prefix = /^([0-9a-f]{24}):/.exec(line.d._id)?.[1];
    if (line.d[field] !== run.tenantId || (prefix !== undefined && prefix !== run.tenantId && (await isTenant(prefix)))) {
      problem(`${line.c}/${line.d._id}`, 'not a document of the exported tenant');
      continue;
    }
    batch.push({ collection: line.c, doc: line.d });
    if (batch.length >= BATCH) await write();
  }
  if (header === undefined) throw new Error('empty file: not an export');
  await write();
  if (!run.dryRun) await run.system.passivateTenant(run.tenantId, run.exceptKind ?? '', PASSIVATE_MS);
  if (report.problems.first.length > KEPT_PROBLEMS) report.problems.first.length = KEPT_PROBLEMS;
  return report;
}
