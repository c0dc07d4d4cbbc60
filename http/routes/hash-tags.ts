import { HASH_TAG_BULK_MAX, hashTagView } from '../../actors/hashtag/hashtag-model.js';
import { HashTagKind } from '../../actors/hashtag/protocol.js';
import { ApiError } from '../../engine/errors.js';
import { route, type Schema } from '../route.js';
import { link, text } from './page-context.js';

const TAG_FIELDS = { tenantId: text(64), tag: text(200), url: link(2048, true) };
const TAG_PARAM: Schema = { type: 'object', properties: { tag: text(200, 1) }, required: ['tag'] };

interface TagBody {
  tenantId?: string;
  tag?: string;
  url?: string | null;
}

/** A body's `tenantId`, when given, must be the caller's. */
function sameTenant(tenantId: string, body: { tenantId?: string } | undefined): void {
  if (body?.tenantId !== undefined && body.tenantId !== tenantId) throw new ApiError('tenant-id-mismatch', 'The tenantId in the body is not the tenant of the credential.');
}

/** Hashtags of the tenant; `:tag` is URI-encoded (`%23news` for `#news`). */
export const hashTagRoutes = [
  route<{ page?: number }, undefined>({
    method: 'GET',
    path: '/api/v1/hash-tags',
    access: 'tenant',
    query: { type: 'object', properties: { page: { type: 'integer', minimum: 0, maximum: 1_000_000 } } },
    handle: async ({ app, tenantId, query }) => {
      const docs = await app.system.ask(HashTagKind, tenantId, 'list', { page: query.page ?? 0 });
      return { hashTags: docs.map(hashTagView) };
    },
  }),
  route<Record<string, unknown>, TagBody & { tag: string }>({
    method: 'POST',
    path: '/api/v1/hash-tags',
    access: 'tenant',
    tenantInBody: true,
    body: { type: 'object', properties: TAG_FIELDS, required: ['tag'] },
    handle: async ({ app, tenantId, body }) => {
      sameTenant(tenantId, body);
      const doc = await app.system.ask(HashTagKind, tenantId, 'add', { tag: body.tag, url: body.url ?? null });
      return { hashTag: hashTagView(doc) };
    },
  }),
  route<Record<string, unknown>, { tenantId?: string; tags: { tag: string; url?: string }[] }>({
    method: 'POST',
    path: '/api/v1/hash-tags/bulk',
    access: 'tenant',
    tenantInBody: true,
    body: {
      type: 'object',
      properties: {
        tenantId: text(64),
        tags: { type: 'array', maxItems: HASH_TAG_BULK_MAX, items: { type: 'object', properties: { tag: text(200), url: link(2048) }, required: ['tag'] } },
      },
      required: ['tags'],
    },
    handle: async ({ app, tenantId, body }) => {
      sameTenant(tenantId, body);
      const results = await app.system.ask(HashTagKind, tenantId, 'addBulk', { tags: body.tags });
      return {
        results: results.map((r) => ('hashTag' in r ? { status: 'success', hashTag: hashTagView(r.hashTag) } : { status: 'failed', ...r.error })),
      };
    },
  }),
  route<Record<string, unknown>, TagBody>({
    method: 'PATCH',
    path: '/api/v1/hash-tags/:tag',
    access: 'tenant',
    tenantInBody: true,
    params: TAG_PARAM,
    body: { type: 'object', properties: TAG_FIELDS, minProperties: 1 },
    handle: async ({ app, tenantId, params, body }) => {
      sameTenant(tenantId, body);
      const changes: { tag?: string; url?: string | null } = {};
      if (body.tag !== undefined) changes.tag = body.tag;
      if (body.url !== undefined) changes.url = body.url;
      const doc = await app.system.ask(HashTagKind, tenantId, 'patch', { tag: params['tag']!, changes });
      return { hashTag: hashTagView(doc) };
    },
  }),
  route<Record<string, unknown>, { tenantId?: string }>({
    method: 'DELETE',
    path: '/api/v1/hash-tags/:tag',
    access: 'tenant',
    tenantInBody: true,
    params: TAG_PARAM,
    body: { type: 'object', properties: { tenantId: text(64) } },
    handle: async ({ app, tenantId, params, body }) => {
      sameTenant(tenantId, body);
      await app.system.ask(HashTagKind, tenantId, 'remove', { tag: params['tag']! });
      return {};
    },
  }),
];
