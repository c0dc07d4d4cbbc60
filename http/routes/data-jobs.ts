/**
 * Imports and exports through the API (our own extension, docs/import-export.md), for tenants
 * without shell access. Both are durable jobs (actors/import/import-job-model.ts):
 * - `POST /api/v1/imports?format=&dryRun=&match=` with `{data, last}`: the file's first part
 *   (base64, within the body limit); more with `POST /api/v1/imports/:id/parts`
 *   (`{part, data, last}`, parts numbered from 1). The job runs once the last part is in.
 * - `GET /api/v1/imports/:id`: state, progress, the report (counts and problems).
 * - `POST /api/v1/exports`: starts an export; `GET /api/v1/exports/:id` its state and number of
 *   parts; `GET /api/v1/exports/:id/parts/:n` one part of the NDJSON file, as is.
 */
import { ExportJobKind } from '../../actors/export/export-job-actor.js';
import { ImportJobKind } from '../../actors/import/import-job-actor.js';
import { MATCH_RULES, type MatchRule } from '../../actors/import/match.js';
import { IMPORT_FORMATS, type ImportFormat } from '../../actors/import/records.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { newId } from '../../engine/ids.js';
import { CustomReply, route, type Schema } from '../route.js';

const JOB_ID: Schema = { type: 'object', properties: { id: { type: 'string', pattern: '^[0-9a-f]{24}$' } }, required: ['id'] };
const DATA: Schema = { type: 'string', minLength: 1, maxLength: 16_777_216 };
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function checkData(data: string): string {
  if (data.length % 4 !== 0 || !BASE64.test(data)) throw new ApiError('invalid-import-data');
  return data;
}

/** Credits of an import part or export: one per started 100 KB moved. */
function perSize(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / 102_400));
}

export const dataJobRoutes = [
  route<{ format: ImportFormat; dryRun?: boolean; match?: MatchRule }, { data: string; last?: boolean }>({
    method: 'POST',
    path: '/api/v1/imports',
    access: 'tenant',
    query: {
      type: 'object',
      properties: { format: { enum: [...IMPORT_FORMATS] }, dryRun: { type: 'boolean' }, match: { enum: [...MATCH_RULES] } },
      required: ['format'],
    },
    body: { type: 'object', properties: { data: DATA, last: { type: 'boolean' } }, required: ['data'], additionalProperties: false },
    credits: (req) => perSize(req.body.data.length),
    handle: async ({ app, tenantId, query, body }) => {
      const id = newId(clock.now());
      const importJob = await app.system.ask(ImportJobKind, `${tenantId}:${id}`, 'create', {
        format: query.format,
        dryRun: query.dryRun === true,
        match: query.match ?? 'path',
        data: checkData(body.data),
        last: body.last !== false,
      });
      return { importJob };
    },
  }),
  route<Record<string, unknown>, { part: number; data: string; last?: boolean }>({
    method: 'POST',
    path: '/api/v1/imports/:id/parts',
    access: 'tenant',
    params: JOB_ID,
    body: { type: 'object', properties: { part: { type: 'integer', minimum: 1, maximum: 1_000_000 }, data: DATA, last: { type: 'boolean' } }, required: ['part', 'data'], additionalProperties: false },
    credits: (req) => perSize(req.body.data.length),
    handle: async ({ app, tenantId, params, body }) => {
      const importJob = await app.system.ask(ImportJobKind, `${tenantId}:${params['id']!}`, 'addPart', { part: body.part, data: checkData(body.data), last: body.last !== false });
      return { importJob };
    },
  }),
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/api/v1/imports/:id',
    access: 'tenant',
    params: JOB_ID,
    handle: async ({ app, tenantId, params }) => {
      const importJob = await app.system.ask(ImportJobKind, `${tenantId}:${params['id']!}`, 'get', null);
      if (importJob === null) throw new ApiError('import-not-found');
      return { importJob };
    },
  }),
  route<Record<string, unknown>, undefined>({
    method: 'POST',
    path: '/api/v1/exports',
    access: 'tenant',
    handle: async ({ app, tenantId }) => {
      const id = newId(clock.now());
      return { exportJob: await app.system.ask(ExportJobKind, `${tenantId}:${id}`, 'create', null) };
    },
  }),
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/api/v1/exports/:id',
    access: 'tenant',
    params: JOB_ID,
    handle: async ({ app, tenantId, params }) => {
      const exportJob = await app.system.ask(ExportJobKind, `${tenantId}:${params['id']!}`, 'get', null);
      if (exportJob === null) throw new ApiError('export-not-found');
      return { exportJob };
    },
  }),
  route<Record<string, unknown>, undefined, CustomReply>({
    method: 'GET',
    path: '/api/v1/exports/:id/parts/:n',
    access: 'tenant',
    params: { type: 'object', properties: { id: { type: 'string', pattern: '^[0-9a-f]{24}$' }, n: { type: 'string', pattern: '^(0|[1-9][0-9]{0,5})$' } }, required: ['id', 'n'] },
    // A fixed cost (a part is at most 512 KB): a variable one is reported inside JSON answers.
    credits: perSize(512 * 1024),
    handle: async ({ app, tenantId, params }) => {
      const text = await app.system.ask(ExportJobKind, `${tenantId}:${params['id']!}`, 'readPart', { n: Number(params['n']) });
      return new CustomReply(200, text, 'application/x-ndjson; charset=utf-8');
    },
  }),
];
