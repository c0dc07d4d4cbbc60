/**
 * `/api/v1/moderators`: people a tenant invites to moderate, their counters, and their
 * invitations (an email with a link, accepted within 30 days). docs/identity.md.
 */
import { INVITE_MS, moderatorView, type ModeratorDoc, MODERATORS } from '../../actors/moderator/moderator-model.js';
import { MODERATOR_PAGE_SIZE, ModeratorsKind } from '../../actors/moderator/protocol.js';
import { TenantKind } from '../../actors/tenant/tenant-actor.js';
import { DirectoryKind } from '../../actors/user/directory-actor.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { hashSecret, newSecret } from '../../engine/ids.js';
import { perObjects, route, type Schema } from '../route.js';
import { reserveEmail, sendReserved } from '../transactional-email.js';
import { text } from './page-context.js';

/** The public path of invitation links: `/auth/moderator-invite/<secret>`. */
export const INVITE_PATH = '/auth/moderator-invite';
const SECRET = /^[A-Za-z0-9_-]{43}$/;

const FIELDS: Record<string, Schema> = {
  name: text(200),
  email: text(320),
  userId: { type: ['string', 'null'], maxLength: 256 },
  moderationGroupIds: { type: ['array', 'null'], items: text(256, 1), maxItems: 100 },
  tenantId: text(64),
};
/** Read-only fields are accepted by the schema so that their refusal can name them. */
const BODY: Schema = { type: 'object', properties: FIELDS, additionalProperties: true, maxProperties: 30 };
const ID_PARAM: Schema = { type: 'object', properties: { id: text(64, 1) }, required: ['id'] };

/** Refuses a body field the API does not know (read-only ones get their own reason from the actor). */
function checkKnown(body: Record<string, unknown>): void {
  const known = new Set([...Object.keys(FIELDS), 'acceptedInvite', 'verificationId', 'createdAt', 'markReviewedCount', 'deletedCount', 'markedSpamCount', 'markedNotSpamCount', 'approvedCount', 'unApprovedCount', 'editedCount', 'bannedCount', 'unFlaggedCount']);
  for (const field of Object.keys(body)) if (!known.has(field)) throw new ApiError('unexpected-param', `Unexpected field "${field}" in the body.`);
}

export const moderatorRoutes = [
  route<{ skip?: number }, undefined, { moderators: Record<string, unknown>[] }>({
    method: 'GET',
    path: '/api/v1/moderators',
    access: 'tenant',
    query: { type: 'object', properties: { skip: { type: 'integer', minimum: 0, maximum: 100_000_000 } } },
    credits: (_req, result) => perObjects(result.moderators.length, 10),
    handle: async ({ app, tenantId, query }) => ({
      moderators: (await app.system.ask(ModeratorsKind, tenantId, 'list', { skip: query.skip ?? 0, limit: MODERATOR_PAGE_SIZE })).map(moderatorView),
    }),
  }),
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/api/v1/moderators/:id',
    access: 'tenant',
    params: ID_PARAM,
    handle: async ({ app, tenantId, params }) => ({ moderator: moderatorView(await app.system.ask(ModeratorsKind, tenantId, 'get', { id: params['id']! })) }),
  }),
  route<Record<string, unknown>, Record<string, unknown>>({
    method: 'POST',
    path: '/api/v1/moderators',
    access: 'tenant',
    body: BODY,
    handle: async ({ app, tenantId, body }) => {
      checkKnown(body);
      return { moderator: moderatorView(await app.system.ask(ModeratorsKind, tenantId, 'create', { input: body })) };
    },
  }),
  route<Record<string, unknown>, Record<string, unknown>>({
    method: 'PATCH',
    path: '/api/v1/moderators/:id',
    access: 'tenant',
    params: ID_PARAM,
    body: { ...BODY, minProperties: 1 },
    handle: async ({ app, tenantId, params, body }) => {
      checkKnown(body);
      return { moderator: moderatorView(await app.system.ask(ModeratorsKind, tenantId, 'update', { id: params['id']!, input: body })) };
    },
  }),
  route<{ sendEmail?: boolean }, undefined>({
    method: 'DELETE',
    path: '/api/v1/moderators/:id',
    access: 'tenant',
    params: ID_PARAM,
    query: { type: 'object', properties: { sendEmail: { type: 'boolean' } } },
    handle: async ({ app, tenantId, params }) => ({ moderator: moderatorView(await app.system.ask(ModeratorsKind, tenantId, 'remove', { id: params['id']! })) }),
  }),
  route<{ fromName?: string }, { fromName?: string }>({
    method: 'POST',
    path: '/api/v1/moderators/:id/send-invite',
    access: 'tenant',
    params: ID_PARAM,
    query: { type: 'object', properties: { fromName: text(10_000) } },
    body: { type: 'object', properties: { fromName: text(10_000) } },
    handle: async ({ app, tenantId, params, query, body }) => {
      const fromName = (body.fromName ?? query.fromName ?? '').trim();
      if (fromName === '') throw new ApiError('from-name-required');
      if (fromName.length > 100) throw new ApiError('from-name-invalid');
      const moderator = await app.system.ask(ModeratorsKind, tenantId, 'get', { id: params['id']! });
      await reserveEmail(app, tenantId);
      const { tenant } = await app.system.ask(TenantKind, tenantId, 'read', null);
      const secret = newSecret(32);
      await app.system.ask(ModeratorsKind, tenantId, 'invite', { id: moderator._id, hash: hashSecret(secret), expiresAt: clock.now() + INVITE_MS });
      const inviteUrl = `${app.email.links.baseUrl}${INVITE_PATH}/${secret}`;
      await sendReserved(app, tenantId, moderator.email, 'moderator-invite', null, { moderatorName: moderator.name, fromName, tenantName: tenant.name, inviteUrl });
      return {};
    },
  }),
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: `${INVITE_PATH}/:secret`,
    access: 'public',
    params: { type: 'object', properties: { secret: text(64, 1) }, required: ['secret'] },
    handle: async ({ app, params }) => {
      if (!SECRET.test(params['secret']!)) throw new ApiError('invite-invalid');
      const hash = hashSecret(params['secret']!);
      // Which tenant's invitation: looked up by its hash (the moderators actor then decides).
      const [found] = await app.store.find<ModeratorDoc>(MODERATORS, { inviteHash: hash }, { limit: 1 });
      if (found === undefined) throw new ApiError('invite-invalid');
      const user = await app.system.ask(DirectoryKind, found.tenantId, 'byEmail', { kind: 'tenant', email: found.email });
      const moderator = await app.system.ask(ModeratorsKind, found.tenantId, 'accept', { id: found._id, hash, userId: user?._id ?? null });
      return { tenantId: moderator.tenantId, moderatorId: moderator._id, acceptedInvite: true };
    },
  }),
];
