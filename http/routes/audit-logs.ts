/**
 * `GET /api/v1/audit-logs` (docs/identity.md): the tenant's audit log, newest first by default,
 * 1000 per page (at most 10000), `before`/`after` exclusive in ms, `target` matching labels,
 * `includeManagedTenants` adding the tenants it manages. One credit per 100 entries.
 */
import { AuditKind } from '../../actors/audit/audit-actor.js';
import { auditLogView } from '../../actors/audit/audit-model.js';
import { DirectoryKind } from '../../actors/user/directory-actor.js';
import { perObjects, route } from '../route.js';
import { ownCredential } from '../tenant-reach.js';
import { text } from './page-context.js';

interface AuditQuery {
  skip?: number;
  limit?: number;
  before?: number;
  after?: number;
  order?: 'ASC' | 'DESC';
  target?: string;
  includeManagedTenants?: boolean;
}

const EPOCH_MS = { type: 'integer', minimum: 0, maximum: 8_640_000_000_000_000 };

export const auditLogRoutes = [
  route<AuditQuery, undefined, { auditLogs: Record<string, unknown>[] }>({
    method: 'GET',
    path: '/api/v1/audit-logs',
    access: 'tenant',
    query: {
      type: 'object',
      properties: {
        skip: { type: 'integer', minimum: 0, maximum: 100_000_000 },
        limit: { type: 'integer', minimum: 1, maximum: 10_000 },
        before: EPOCH_MS,
        after: EPOCH_MS,
        order: { type: 'string', enum: ['ASC', 'DESC'] },
        target: text(500),
        includeManagedTenants: { type: 'boolean' },
      },
    },
    credits: (_req, result) => perObjects(result.auditLogs.length, 100),
    handle: async (req) => {
      const { app, tenantId, query } = req;
      // The tenants it manages are added only with its own credential (not its manager's).
      const managed = query.includeManagedTenants === true && ownCredential(req) ? await app.system.ask(DirectoryKind, tenantId, 'managedIds', null) : [];
      const docs = await app.system.ask(AuditKind, tenantId, 'list', {
        tenantIds: [tenantId, ...managed],
        skip: query.skip ?? 0,
        limit: query.limit ?? 1000,
        order: query.order ?? 'DESC',
        ...(query.before !== undefined ? { before: query.before } : {}),
        ...(query.after !== undefined ? { after: query.after } : {}),
        ...(query.target !== undefined ? { target: query.target } : {}),
      });
      return { auditLogs: docs.map(auditLogView) };
    },
  }),
];
