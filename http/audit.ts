/**
 * Recording API calls in the audit log (docs/identity.md). For a tenant whose package has
 * `hasAuditing`, every call that succeeded is recorded. A call that changes data (any method
 * but GET) is recorded before it is answered: who (the access token's user, or the API key's
 * id, and the client address), what (the resource, its id, and its label as it was at the
 * time, so a deleted target stays identifiable), and for changes each field's value before and
 * after. A read (GET) is recorded after it is answered, in batches (`audit-batcher.ts`), with
 * who, the resource and its id: no extra read, and no storage round trip of its own.
 *
 * The object before and after is read the way a client would: through the GET route of the
 * same path (for example `GET /api/v1/comments/:id` for a PATCH of it), called in-process
 * without credits. A recorded call can be lost only if the server dies between the change and
 * its entry (the two are written by different actors).
 */
import { AuditKind } from '../actors/audit/audit-actor.js';
import { type AuditEntry, changesBetween, type CrudType, labelOf, type TimedAuditEntry } from '../actors/audit/audit-model.js';
import { log } from '../engine/log.js';
import { RawJson, type AnyRoute, type RouteRequest, type RouteResult } from './route.js';

/** Finds the GET route of a path, if the server has one. */
export type ReadRoute = (path: string) => { route: AnyRoute; params: Record<string, string> } | undefined;

/** Where a write route's object is read when not at the same path. */
const READ_PATHS: ReadonlyArray<readonly [RegExp, string]> = [[/^\/api\/v1\/sso-users\/([^/]+)$/, '/api/v1/sso-users/by-id/$1']];

/** The object an answer is about: its first field holding an object (`{comment: {...}}`). */
function mainObject(result: unknown): Record<string, unknown> | null {
  if (result instanceof RawJson) {
    try {
      result = JSON.parse(result.json.toString());
    } catch {
      return null;
    }
  }
  if (typeof result !== 'object' || result === null) return null;
  for (const [key, value] of Object.entries(result)) {
    if (key !== 'status' && typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  }
  return null;
}

function crudOf(req: RouteRequest<unknown, unknown>): CrudType {
  if (req.method === 'DELETE') return 'd';
  // A POST to a collection creates; a POST on an object (`/flag`, `/send-invite`) acts on it.
  return req.method === 'POST' && Object.keys(req.params).length === 0 ? 'c' : 'u';
}

/** `/api/v1/sso-users/x` → `sso-users`. */
function resourceOf(path: string): string {
  const parts = path.split('/').filter(Boolean);
  return (parts[0] === 'api' ? parts[2] : parts[0]) ?? path;
}

/** The entry of a read (a GET that succeeded) made at `at`: who, the resource and its id, the path. */
export function readEntry(req: RouteRequest<unknown, unknown>, at: number): TimedAuditEntry {
  const auth = req.auth!;
  const params = Object.values(req.params);
  return {
    at,
    tenantId: req.tenantId,
    resourceName: resourceOf(req.path),
    crudType: 'r',
    userId: auth.userId ?? null,
    username: null,
    apiKeyId: auth.keyId ?? null,
    actingTenantId: auth.keyTenantId !== req.tenantId ? auth.keyTenantId : null,
    ip: req.ip || null,
    url: `GET ${req.path}`,
    targetId: params[0] ?? null,
    targetLabel: null,
    objectDetails: null,
  };
}

/** One audited call: what it acted on before it ran, then its entry once it succeeded. */
export class AuditedCall {
  readonly #req: RouteRequest<unknown, unknown>;
  readonly #read: ReadRoute;
  readonly #crud: CrudType;
  #before: Record<string, unknown> | null = null;

  constructor(req: RouteRequest<unknown, unknown>, read: ReadRoute) {
    this.#req = req;
    this.#read = read;
    this.#crud = crudOf(req);
  }

  /** Reads the object as it is before the call (changes and deletions). */
  async start(): Promise<void> {
    if (this.#crud !== 'c') this.#before = await this.#current();
  }

  /** Records the call once it succeeded; a failure to record is logged, never turned into an error of the call. */
  async finish(result: RouteResult): Promise<void> {
    const req = this.#req;
    // A tenant's deletion took its log with it: the call is not recorded there.
    if (this.#crud === 'd' && resourceOf(req.path) === 'tenants' && req.params['id'] === req.tenantId) return;
    try {
      const after = this.#crud === 'd' ? null : this.#crud === 'c' ? mainObject(result) : ((await this.#current()) ?? mainObject(result));
      const target = this.#before ?? after;
      const auth = req.auth!;
      const params = Object.values(req.params);
      const entry: AuditEntry = {
        tenantId: req.tenantId,
        resourceName: resourceOf(req.path),
        crudType: this.#crud,
        userId: auth.userId ?? null,
        username: null,
        apiKeyId: auth.keyId ?? null,
        actingTenantId: auth.keyTenantId !== req.tenantId ? auth.keyTenantId : null,
        ip: req.ip || null,
        url: `${req.method} ${req.path}`,
        targetId: params[0] ?? (typeof target?.['_id'] === 'string' ? target['_id'] : typeof target?.['id'] === 'string' ? target['id'] : null),
        targetLabel: labelOf(target),
        objectDetails: this.#crud === 'u' && this.#before !== null && after !== null ? { changes: changesBetween(this.#before, after) } : null,
      };
      await req.app.system.ask(AuditKind, req.tenantId, 'record', { entry });
    } catch (err) {
      log.error('audit-record-failed', { tenantId: req.tenantId, path: req.path, err });
    }
  }

  /** The object at the request's path, as its GET route answers it now (null if none). */
  async #current(): Promise<Record<string, unknown> | null> {
    const req = this.#req;
    let path = req.path;
    for (const [pattern, replacement] of READ_PATHS) path = path.replace(pattern, replacement);
    const found = this.#read(path);
    if (found === undefined || found.route.access !== 'tenant') return null;
    const read: RouteRequest<unknown, unknown> = { ...fieldsOf(req), method: 'GET', path, params: found.params, body: undefined, setHeader: () => undefined };
    try {
      return mainObject(await found.route.handle(read));
    } catch {
      return null;
    }
  }
}

/** A request's plain fields (getters included), for the in-process read. */
function fieldsOf(req: RouteRequest<unknown, unknown>): RouteRequest<unknown, unknown> {
  return { method: req.method, path: req.path, params: req.params, query: req.query, rawQuery: req.rawQuery, body: req.body, headers: req.headers, ip: req.ip, auth: req.auth, tenantId: req.tenantId, app: req.app, setHeader: () => undefined };
}
