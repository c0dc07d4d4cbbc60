import { emailOutboxCollections } from '../actors/email/outbox-actor.js';
import { emailTemplateCollections } from '../actors/email/templates-actor.js';
import { blockCollections } from '../actors/block/block-actor.js';
import { hashTagCollections } from '../actors/hashtag/hashtag-actor.js';
import { notifyCollections } from '../actors/notify/collections.js';
import { pageCollections } from '../actors/page/collections.js';
import { eventLogCollections } from '../actors/live/event-log-model.js';
import { serverStateCollections } from '../actors/live/live-secret.js';
import { oauthCollections } from '../actors/oauth/collections.js';
import { pollCollections } from '../actors/poll/poll-model.js';
import { userCollections } from '../actors/user/user-actor.js';
import { tenantCollections } from '../actors/tenant/collections.js';
import { webhookCollections } from '../actors/webhook/webhooks-actor.js';
import { identityCollections } from '../actors/identity-collections.js';
import { dataJobCollections } from '../actors/import/import-job-model.js';
import { questionCollections } from '../actors/question/question-model.js';
import { badgeCollections } from '../actors/badge/badge-model.js';
import { feedCollections } from '../actors/feed/feed-model.js';
import { moderationCollections } from '../actors/moderation/moderation-model.js';
import type { CollectionSpec } from './store.js';

/** Every collection the server stores, gathered from the actors that own them. */
export const COLLECTIONS: readonly CollectionSpec[] = [
  ...tenantCollections,
  ...oauthCollections,
  ...serverStateCollections,
  ...eventLogCollections,
  ...userCollections,
  ...pageCollections,
  ...hashTagCollections,
  ...blockCollections,
  ...pollCollections,
  ...emailTemplateCollections,
  ...emailOutboxCollections,
  ...notifyCollections,
  ...webhookCollections,
  ...identityCollections,
  ...dataJobCollections,
  ...questionCollections,
  ...badgeCollections,
  ...feedCollections,
  ...moderationCollections,
];
