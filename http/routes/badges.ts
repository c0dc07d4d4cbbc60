import { badgeUserActorId, progressView, tenantBadgeView, userBadgeView } from '../../actors/badge/badge-model.js';
import { BadgeCatalogKind, type BadgeInput, BadgeUserKind, type UserBadgeFilter } from '../../actors/badge/protocol.js';
import { ApiError } from '../../engine/errors.js';
import { route, type Schema } from '../route.js';
import type { AppServices } from '../services.js';
import { imageSrc, nullableText, text, USER_ID } from './page-context.js';

/** Badges and progress a list answers by default, and at most (the specification's). */
export const BADGES_PAGE = 30;
export const BADGES_PAGE_MAX = 200;

const ID_PARAM: Schema = { type: 'object', properties: { id: text(128, 1) }, required: ['id'] };
const USER_PARAM: Schema = { type: 'object', properties: { userId: USER_ID }, required: ['userId'] };
const PAGING = { limit: { type: 'integer', minimum: 1, maximum: BADGES_PAGE_MAX }, skip: { type: 'integer', minimum: 0, maximum: 1_000_000 } };

/** Catalog fields the API sets (our extension; the specification shows the fields, not a route). */
const BADGE_FIELDS: Record<string, Schema> = {
  enabled: { type: 'boolean' },
  urlId: nullableText(4096),
  type: { type: 'integer', minimum: 0, maximum: 100 },
  threshold: { type: 'integer', minimum: 0, maximum: 1_000_000_000 },
  name: text(200),
  description: text(1000),
  displayLabel: text(200),
  displaySrc: { ...imageSrc(2048, true) },
  backgroundColor: nullableText(64),
  borderColor: nullableText(64),
  textColor: nullableText(64),
  cssClass: nullableText(200),
  veteranUserThresholdMillis: { type: 'integer', minimum: 0, maximum: 100 * 365 * 86_400_000 },
  createdByUserId: nullableText(256),
};

/** A user's badge by id: found tenant-wide, changed by the owner's badge actor. */
async function ownerOf(app: AppServices, tenantId: string, id: string): Promise<string> {
  const doc = await app.system.ask(BadgeCatalogKind, tenantId, 'getUserBadge', { id });
  if (doc === null) throw new ApiError('not-found', `No user badge ${id}.`);
  return badgeUserActorId(tenantId, doc.userId);
}

/**
 * The tenant's badge catalog (`/api/v1/tenant-badges`, this server's extension: awarding needs a
 * catalog and the API shows none), users' badges and their progress (docs/badges.md).
 */
export const badgeRoutes = [
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/api/v1/tenant-badges',
    access: 'tenant',
    handle: async ({ app, tenantId }) => ({ tenantBadges: (await app.system.ask(BadgeCatalogKind, tenantId, 'list', null)).map(tenantBadgeView) }),
  }),
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/api/v1/tenant-badges/:id',
    access: 'tenant',
    params: ID_PARAM,
    handle: async ({ app, tenantId, params }) => {
      const doc = await app.system.ask(BadgeCatalogKind, tenantId, 'get', { id: params['id']! });
      if (doc === null) throw new ApiError('badge-not-found');
      return { tenantBadge: tenantBadgeView(doc) };
    },
  }),
  route<Record<string, unknown>, BadgeInput>({
    method: 'POST',
    path: '/api/v1/tenant-badges',
    access: 'tenant',
    body: { type: 'object', properties: BADGE_FIELDS, required: ['type'] },
    handle: async ({ app, tenantId, body }) => ({ tenantBadge: tenantBadgeView(await app.system.ask(BadgeCatalogKind, tenantId, 'create', { input: body })) }),
  }),
  route<Record<string, unknown>, BadgeInput>({
    method: 'PATCH',
    path: '/api/v1/tenant-badges/:id',
    access: 'tenant',
    params: ID_PARAM,
    body: { type: 'object', properties: BADGE_FIELDS, minProperties: 1 },
    handle: async ({ app, tenantId, params, body }) => ({ tenantBadge: tenantBadgeView(await app.system.ask(BadgeCatalogKind, tenantId, 'patch', { id: params['id']!, input: body })) }),
  }),
  route<Record<string, unknown>, undefined>({
    method: 'DELETE',
    path: '/api/v1/tenant-badges/:id',
    access: 'tenant',
    params: ID_PARAM,
    handle: async ({ app, tenantId, params }) => {
      await app.system.ask(BadgeCatalogKind, tenantId, 'remove', { id: params['id']! });
      return {};
    },
  }),

  route<UserBadgeFilter & { limit?: number; skip?: number }, undefined>({
    method: 'GET',
    path: '/api/v1/user-badges',
    access: 'tenant',
    query: {
      type: 'object',
      properties: { userId: USER_ID, badgeId: text(128, 1), type: { type: 'integer', minimum: 0, maximum: 100 }, displayedOnComments: { type: 'boolean' }, ...PAGING },
    },
    handle: async ({ app, tenantId, query }) => {
      const { limit, skip, ...filter } = query;
      const docs = await app.system.ask(BadgeCatalogKind, tenantId, 'listUserBadges', { filter, skip: skip ?? 0, limit: limit ?? BADGES_PAGE });
      return { userBadges: docs.map(userBadgeView) };
    },
  }),
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/api/v1/user-badges/:id',
    access: 'tenant',
    params: ID_PARAM,
    handle: async ({ app, tenantId, params }) => {
      const doc = await app.system.ask(BadgeCatalogKind, tenantId, 'getUserBadge', { id: params['id']! });
      if (doc === null) throw new ApiError('not-found', `No user badge ${params['id']}.`);
      return { userBadge: userBadgeView(doc) };
    },
  }),
  route<Record<string, unknown>, { userId: string; badgeId: string; displayedOnComments?: boolean }>({
    method: 'POST',
    path: '/api/v1/user-badges',
    access: 'tenant',
    body: { type: 'object', properties: { userId: USER_ID, badgeId: text(128, 1), displayedOnComments: { type: 'boolean' } }, required: ['userId', 'badgeId'] },
    handle: async ({ app, tenantId, body }) => {
      const doc = await app.system.ask(BadgeUserKind, badgeUserActorId(tenantId, body.userId), 'award', { badgeId: body.badgeId, displayedOnComments: body.displayedOnComments ?? true });
      return { userBadge: userBadgeView(doc) };
    },
  }),
  route<Record<string, unknown>, { displayedOnComments?: boolean }>({
    method: 'PUT',
    path: '/api/v1/user-badges/:id',
    access: 'tenant',
    params: ID_PARAM,
    // Only this property can change: any other is refused as unexpected.
    body: { type: 'object', properties: { displayedOnComments: { type: 'boolean' } } },
    handle: async ({ app, tenantId, params, body }) => {
      const id = params['id']!;
      const owner = await ownerOf(app, tenantId, id);
      if (body.displayedOnComments !== undefined) await app.system.ask(BadgeUserKind, owner, 'setDisplayed', { id, displayedOnComments: body.displayedOnComments });
      return {};
    },
  }),
  route<Record<string, unknown>, undefined>({
    method: 'DELETE',
    path: '/api/v1/user-badges/:id',
    access: 'tenant',
    params: ID_PARAM,
    handle: async ({ app, tenantId, params }) => {
      const id = params['id']!;
      await app.system.ask(BadgeUserKind, await ownerOf(app, tenantId, id), 'remove', { id });
      return {};
    },
  }),

  route<{ userId?: string; limit?: number; skip?: number }, undefined>({
    method: 'GET',
    path: '/api/v1/user-badge-progress',
    access: 'tenant',
    query: { type: 'object', properties: { userId: USER_ID, ...PAGING } },
    handle: async ({ app, tenantId, query }) => {
      const docs = await app.system.ask(BadgeCatalogKind, tenantId, 'listProgress', { userId: query.userId ?? null, skip: query.skip ?? 0, limit: query.limit ?? BADGES_PAGE });
      return { userBadgeProgresses: docs.map(progressView) };
    },
  }),
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/api/v1/user-badge-progress/user/:userId',
    access: 'tenant',
    params: USER_PARAM,
    handle: async ({ app, tenantId, params }) => {
      const doc = await app.system.ask(BadgeUserKind, badgeUserActorId(tenantId, params['userId']!), 'progress', null);
      if (doc === null) throw new ApiError('not-found', `User ${params['userId']} has no badge progress.`);
      return { userBadgeProgress: progressView(doc) };
    },
  }),
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/api/v1/user-badge-progress/:id',
    access: 'tenant',
    params: ID_PARAM,
    handle: async ({ app, tenantId, params }) => {
      const doc = await app.system.ask(BadgeCatalogKind, tenantId, 'getProgress', { id: params['id']! });
      if (doc === null) throw new ApiError('not-found', `No badge progress ${params['id']}.`);
      return { userBadgeProgress: progressView(doc) };
    },
  }),
];
