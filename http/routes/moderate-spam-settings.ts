/**
 * The tenant's spam-defence settings (this server's own operations, docs/moderation.md) and the
 * widget's proof-of-work challenge.
 */
import { ModerationKind } from '../../actors/moderation/moderation-actor.js';
import { tenantSettings } from '../../actors/tenant/tenant-actor.js';
import { ApiError } from '../../engine/errors.js';
import { MODERATOR_QUERY_PROPS, type ModeratorQuery, requireModerator } from '../moderation/moderator.js';
import { newChallenge } from '../moderation/proof-of-work.js';
import { TENANT_ID } from '../public/comment-access.js';
import { route } from '../route.js';
import { MODERATION_BASE } from './moderate-comments.js';

/** Spam-defence settings and the proof-of-work challenge. */
export const moderateSpamSettingsRoutes = [
  route<ModeratorQuery, undefined>({
    method: 'GET',
    path: `${MODERATION_BASE}/spam-settings`,
    access: 'public',
    query: { type: 'object', properties: MODERATOR_QUERY_PROPS },
    handle: async (req) => {
      const moderator = await requireModerator(req);
      return { settings: await req.app.system.ask(ModerationKind, moderator.tenantId, 'getSettings', null) };
    },
  }),
  route<ModeratorQuery, { requireProofOfWork: boolean }>({
    method: 'PUT',
    path: `${MODERATION_BASE}/spam-settings`,
    access: 'public',
    query: { type: 'object', properties: MODERATOR_QUERY_PROPS },
    body: { type: 'object', properties: { requireProofOfWork: { type: 'boolean' } }, required: ['requireProofOfWork'] },
    handle: async (req) => {
      const moderator = await requireModerator(req);
      if (moderator.groups !== null) throw new ApiError('moderation-forbidden', 'Moderators limited to moderation groups cannot change the site\'s spam settings.');
      return { settings: await req.app.system.ask(ModerationKind, moderator.tenantId, 'setSettings', { settings: { requireProofOfWork: req.body.requireProofOfWork } }) };
    },
  }),
  route<Record<string, unknown>, undefined>({
    method: 'GET',
    path: '/comments/:tenantId/proof-of-work-challenge',
    access: 'public',
    params: { type: 'object', properties: { tenantId: TENANT_ID }, required: ['tenantId'] },
    handle: async ({ app, params }) => {
      const tenantId = params['tenantId']!;
      await tenantSettings(app.system, tenantId, null); // 401 invalid-tenant-id for no tenant
      return { challenge: await newChallenge(app, tenantId) };
    },
  }),
];
