/**
 * The aggregatable resources: each name the API accepts, the collection it lives in, the field
 * holding its tenant, the condition that sets it apart within a shared collection, and the fields
 * it may be aggregated, grouped and filtered on (with their types and stored paths).
 *
 * A feature that stores a new resource of the specification's list adds one line to
 * `AGGREGATABLE`. Fields left out on purpose: secrets (`apiSecret`, key hashes, hashed voter
 * addresses), internal keys (`authorKey`, `hashTagKeys`), and free-form objects (`meta`).
 */
import { COMMENTS } from '../actors/page/comment-doc.js';
import { PAGES } from '../actors/page/page-doc.js';
import { PAGE_REACTS } from '../actors/page/react-doc.js';
import { VOTES, VOTE_KINDS } from '../actors/page/vote-doc.js';
import { BLOCKS } from '../actors/block/protocol.js';
import { POLL_COLLECTIONS } from '../actors/poll/poll-model.js';
import { QUESTION_COLLECTIONS } from '../actors/question/question-model.js';
import { BADGE_COLLECTIONS } from '../actors/badge/badge-model.js';
import { BANNED_USERS } from '../actors/moderation/ban-model.js';
import { TENANT_COLLECTIONS } from '../actors/tenant/collections.js';
import { USAGE_COUNTERS } from '../actors/tenant/usage.js';
import { CUSTOM_CONFIG_PROPERTIES } from '../actors/tenant/widget-config-schema.js';
import { USERS } from '../actors/user/protocol.js';
import { AUDIT_LOGS } from '../actors/audit/audit-model.js';
import { EMAIL_COLLECTIONS } from '../actors/email/protocol.js';
import { MODERATORS, MODERATOR_COUNTERS } from '../actors/moderator/moderator-model.js';
import { NOTIFY_COLLECTIONS } from '../actors/notify/notification-doc.js';
import { JOBS } from '../actors/jobs/jobs.js';
import type { Filter } from '../storage/store.js';
import type { FieldRef, FieldType } from './plan.js';

/** One aggregatable resource. */
export interface ResourceSpec {
  readonly collection: string;
  /** The stored field naming the owning tenant. */
  readonly tenantField: string;
  /** What sets the resource apart from others sharing its collection. */
  readonly where?: Filter;
  readonly fields: Readonly<Record<string, FieldRef>>;
}

/** Every resource name of the specification's list (whether or not this server stores it). */
export const SPEC_RESOURCE_NAMES = [
  'AffiliateEvent', 'AnonymousVote', 'BannedUser', 'BatchJob', 'BlockedUser', 'Comment', 'CommentDeleted',
  'CommentIdToSyncOutbound', 'CommentScheduled', 'CommentSyncLog', 'CustomConfig', 'CustomEmailTemplateRenderError',
  'EmailToSend', 'EventLogEntry', 'ImportedCommentScheduled', 'ModerationGroup', 'Moderator', 'Page', 'PageReact',
  'PendingVote', 'QuestionResult', 'SSOUser', 'SentEmail', 'SpamEvent', 'Tenant', 'TenantAuditLog', 'TenantBadge',
  'TenantDailyUsage', 'TenantInvoiceHistory', 'TenantPackage', 'User', 'UserBadge', 'UserBadgeProgress',
  'UserNotification', 'UserSubscription', 'UserUsage', 'Vote',
] as const;

type Decl = FieldType | `${FieldType}[]` | readonly [path: string, type: FieldType | `${FieldType}[]`];

/** Field references from a compact declaration: `'number'`, `'string[]'`, or `['stored.path', 'date']`. */
function fields(decls: Readonly<Record<string, Decl>>): Readonly<Record<string, FieldRef>> {
  const out: Record<string, FieldRef> = {};
  for (const [name, decl] of Object.entries(decls)) {
    const [path, typed] = typeof decl === 'string' ? [name, decl] : decl;
    const array = typed.endsWith('[]');
    out[name] = { path: path.split('.'), type: (array ? typed.slice(0, -2) : typed) as FieldType, array };
  }
  return Object.freeze(out);
}

const byType = (type: Decl, names: readonly string[]): Record<string, Decl> => Object.fromEntries(names.map((n) => [n, type]));

const ID = { id: ['_id', 'string'], tenantId: 'string' } as const satisfies Record<string, Decl>;

const commentFields = fields({
  ...ID,
  ...byType('string', [
    'urlId', 'url', 'pageTitle', 'parentId', 'comment', 'commentHTML', 'commenterName', 'commenterEmail', 'commenterLink',
    'userId', 'anonUserId', 'avatarSrc', 'localDateString', 'locale', 'displayLabel', 'externalId', 'externalParentId', 'domain',
  ]),
  ...byType('number', ['localDateHours', 'votes', 'votesUp', 'votesDown', 'flagCount', 'rating']),
  ...byType('boolean', [
    'reviewed', 'approved', 'isSpam', 'permNotSpam', 'isLocked', 'isPinned', 'isByAdmin', 'isByModerator', 'isBannedUser',
    'isDeleted', 'isDeletedUser', 'verified', 'hasLinks', 'hasCode', 'hasImages', 'notificationSentForParent', 'hasPoll',
  ]),
  ...byType('date', ['date', 'verifiedDate', 'expireAt']),
  ...byType('string[]', ['moderationGroupIds', 'feedbackIds']),
  'hashTags.tag': 'string[]',
  'mentions.id': 'string[]',
  'mentions.tag': 'string[]',
});

const voteFields = fields({
  ...ID,
  ...byType('string', ['urlId', 'commentId', 'userId', 'anonUserId']),
  direction: 'number',
  createdAt: 'date',
});

const pageFields = fields({
  ...ID,
  ...byType('string', ['urlId', 'url', 'title']),
  ...byType('number', ['commentCount', 'rootCommentCount']),
  isClosed: 'boolean',
  accessibleByGroupIds: 'string[]',
  ...byType('date', ['createdAt', 'updatedAt']),
});

const pageReactFields = fields({ ...ID, ...byType('string', ['urlId', 'kind', 'reactId', 'userId']), createdAt: 'date' });

const tenantFields = fields({
  id: ['_id', 'string'],
  ...byType('string', ['name', 'email', 'packageId', 'managedByTenantId']),
  signUpDate: 'date',
});

const dailyUsageFields = fields({
  ...ID,
  ...byType('number', ['yearNumber', 'monthNumber', 'dayNumber', 'overageCredits', ...USAGE_COUNTERS]),
  ...byType('boolean', ['billed', 'ignored']),
  createdAt: 'date',
});

const packageFields = fields({ ...ID, name: 'string', maxMonthlyAPICredits: 'number', hasFlexPricing: 'boolean', createdAt: 'date' });

/** A widget configuration's scalar and string-list settings, read under `config`. */
function customConfigDecls(): Record<string, Decl> {
  const out: Record<string, Decl> = {};
  for (const [name, schema] of Object.entries(CUSTOM_CONFIG_PROPERTIES)) {
    const types = ([] as string[]).concat(schema.type);
    const items = 'items' in schema ? ([] as string[]).concat((schema.items as { type?: string | string[] }).type ?? []) : [];
    if (types.includes('boolean')) out[name] = [`config.${name}`, 'boolean'];
    else if (types.includes('integer') || types.includes('number')) out[name] = [`config.${name}`, 'number'];
    else if (types.includes('string')) out[name] = [`config.${name}`, 'string'];
    else if (types.includes('array') && items.length === 1 && items[0] === 'string') out[name] = [`config.${name}`, 'string[]'];
  }
  return out;
}

const customConfigFields = fields({ ...customConfigDecls(), ...ID, urlId: 'string', updatedAt: 'date' });

const ssoUserFields = fields({
  ...ID,
  ...byType('string', ['username', 'email', 'displayName', 'displayLabel', 'avatarSrc', 'websiteUrl']),
  groupIds: 'string[]',
  ...byType('boolean', ['isAdmin', 'isModerator', 'optedInNotifications', 'isProfileActivityPrivate']),
  createdAt: 'date',
});

const userFields = fields({
  ...ID,
  ...byType('string', ['username', 'email', 'displayName', 'avatarSrc', 'websiteUrl', 'kind']),
  isProfileActivityPrivate: 'boolean',
  createdAt: 'date',
});

const blockedUserFields = fields({ ...ID, ...byType('string', ['blockerKey', 'authorKey']), createdAt: 'date' });

const pollFields = fields({
  ...ID,
  ...byType('string', ['commentId', 'urlId', 'question']),
  ...byType('number', ['totalVotes', 'privacy']),
  requireVoteToSeeResults: 'boolean',
  ...byType('date', ['closesAt', 'createdAt', 'updatedAt']),
  'options.id': 'string[]',
  'options.label': 'string[]',
  'options.votes': 'number[]',
});

const pollVoteFields = fields({
  ...ID,
  ...byType('string', ['commentId', 'urlId', 'voterId', 'optionId', 'userId', 'anonUserId']),
  ...byType('date', ['createdAt', 'updatedAt']),
});

const moderatorFields = fields({
  ...ID,
  ...byType('string', ['name', 'email', 'userId']),
  ...byType('number', MODERATOR_COUNTERS),
  acceptedInvite: 'boolean',
  moderationGroupIds: 'string[]',
  createdAt: 'date',
});

const auditLogFields = fields({
  ...ID,
  ...byType('string', ['resourceName', 'crudType', 'userId', 'username', 'apiKeyId', 'actingTenantId', 'ip', 'url', 'targetId', 'targetLabel']),
  when: 'date',
});

const notificationFields = fields({
  ...ID,
  ...byType('string', [
    'userId', 'anonUserId', 'urlId', 'url', 'pageTitle', 'relatedObjectId', 'fromCommentId', 'fromVoteId', 'fromUserName', 'fromUserId', 'contextText', 'locale',
  ]),
  ...byType('number', ['type', 'relatedObjectType', 'count']),
  ...byType('boolean', ['viewed', 'sent', 'optedOut']),
  ...byType('string[]', ['fromUserIds', 'relatedIds']),
  createdAt: 'date',
});

const subscriptionFields = fields({
  ...ID,
  ...byType('string', ['userId', 'anonUserId', 'urlId', 'url', 'pageTitle']),
  notificationFrequency: 'number',
  createdAt: 'date',
});

/** Its times are stored as epoch ms, so they are number fields. */
const emailToSendFields = fields({
  ...ID,
  ...byType('string', ['state', 'to', 'emailTemplateId', 'domain', 'locale', 'lastError']),
  ...byType('number', ['attempts', 'createdAt', 'nextAttemptAt']),
  transactional: 'boolean',
});

const renderErrorFields = fields({
  ...ID,
  ...byType('string', ['customTemplateId', 'error']),
  count: 'number',
  ...byType('date', ['createdAt', 'lastOccurredAt']),
});

/** Background jobs (deleting a user's comments across pages) while they run; `createdAt` is epoch ms as stored. */
const batchJobFields = fields({ ...ID, type: 'string', createdAt: 'number' });

const questionResultFields = fields({
  ...ID,
  ...byType('string', ['urlId', 'questionId', 'userId', 'anonUserId', 'commentId']),
  value: 'number',
  createdAt: 'date',
});

const BADGE_LOOK = ['description', 'displayLabel', 'displaySrc', 'backgroundColor', 'borderColor', 'textColor', 'cssClass', 'urlId'];

const tenantBadgeFields = fields({
  ...ID,
  ...byType('string', ['createdByUserId', 'name', 'replacesBadgeId', ...BADGE_LOOK]),
  ...byType('number', ['type', 'threshold', 'uses', 'veteranUserThresholdMillis']),
  ...byType('boolean', ['enabled', 'isAwaitingReprocess', 'isAwaitingDeletion']),
  createdAt: 'date',
});

const userBadgeFields = fields({
  ...ID,
  ...byType('string', ['userId', 'badgeId', ...BADGE_LOOK]),
  ...byType('number', ['type', 'threshold', 'veteranUserThresholdMillis', 'order']),
  displayedOnComments: 'boolean',
  ...byType('date', ['createdAt', 'receivedAt']),
});

/** Progress counts are stored per badge type under `progress` (`"0"` comments, `"1"` up-votes, `"2"` replies). */
const badgeProgressFields = fields({
  ...ID,
  ...byType('string', ['userId', 'firstCommentId']),
  firstCommentDate: 'date',
  'progress.0': 'number',
  'progress.1': 'number',
  'progress.2': 'number',
});

/** Bans; what a ban changed (kept for its undo) is not a field. */
const bannedUserFields = fields({
  ...ID,
  ...byType('string', ['userId', 'email', 'username', 'ipHash', 'bannedByUserId', 'bannedCommentText', 'banType', 'banReason']),
  hasEmailWildcard: 'boolean',
  ...byType('date', ['createdAt', 'bannedUntil']),
});

const of = (collection: string, tenantField: string, fieldRefs: ResourceSpec['fields'], where?: Filter): ResourceSpec =>
  Object.freeze(where ? { collection, tenantField, where, fields: fieldRefs } : { collection, tenantField, fields: fieldRefs });

/**
 * Resource name → where it lives. `Poll` and `PollVote` are not in the specification's list (its
 * polls are question results); they are aggregatable here under the names of their API objects.
 */
export const AGGREGATABLE: Readonly<Record<string, ResourceSpec>> = Object.freeze({
  Comment: of(COMMENTS, 'tenantId', commentFields),
  Vote: of(VOTES, 'tenantId', voteFields, { kind: VOTE_KINDS.authorized }),
  AnonymousVote: of(VOTES, 'tenantId', voteFields, { kind: VOTE_KINDS.anonymous }),
  PendingVote: of(VOTES, 'tenantId', voteFields, { kind: VOTE_KINDS.pending }),
  Page: of(PAGES, 'tenantId', pageFields),
  PageReact: of(PAGE_REACTS, 'tenantId', pageReactFields),
  Tenant: of(TENANT_COLLECTIONS.tenants, '_id', tenantFields),
  TenantDailyUsage: of(TENANT_COLLECTIONS.dailyUsage, 'tenantId', dailyUsageFields),
  TenantPackage: of(TENANT_COLLECTIONS.tenantPackages, 'tenantId', packageFields),
  CustomConfig: of(TENANT_COLLECTIONS.widgetConfigs, 'tenantId', customConfigFields),
  SSOUser: of(USERS, 'tenantId', ssoUserFields, { kind: 'sso' }),
  User: of(USERS, 'tenantId', userFields, { kind: { $ne: 'sso' } }),
  BlockedUser: of(BLOCKS, 'tenantId', blockedUserFields),
  Poll: of(POLL_COLLECTIONS.polls, 'tenantId', pollFields),
  PollVote: of(POLL_COLLECTIONS.pollVotes, 'tenantId', pollVoteFields),
  Moderator: of(MODERATORS, 'tenantId', moderatorFields),
  TenantAuditLog: of(AUDIT_LOGS, 'tenantId', auditLogFields),
  UserNotification: of(NOTIFY_COLLECTIONS.notifications, 'tenantId', notificationFields),
  UserSubscription: of(NOTIFY_COLLECTIONS.subscriptions, 'tenantId', subscriptionFields),
  EmailToSend: of(EMAIL_COLLECTIONS.outbox, 'tenantId', emailToSendFields),
  CustomEmailTemplateRenderError: of(EMAIL_COLLECTIONS.renderErrors, 'tenantId', renderErrorFields),
  BatchJob: of(JOBS, 'tenantId', batchJobFields),
  QuestionResult: of(QUESTION_COLLECTIONS.results, 'tenantId', questionResultFields),
  TenantBadge: of(BADGE_COLLECTIONS.catalog, 'tenantId', tenantBadgeFields),
  UserBadge: of(BADGE_COLLECTIONS.userBadges, 'tenantId', userBadgeFields),
  UserBadgeProgress: of(BADGE_COLLECTIONS.progress, 'tenantId', badgeProgressFields),
  BannedUser: of(BANNED_USERS, 'tenantId', bannedUserFields),
});

/**
 * Names of the specification's list this server does not store (their features are not built,
 * or, for `EventLogEntry` and `SentEmail`, their data is not kept as one document each):
 * answered `aggregation-resource-not-stored`.
 */
export const NOT_STORED_NAMES: readonly string[] = Object.freeze(SPEC_RESOURCE_NAMES.filter((name) => !Object.hasOwn(AGGREGATABLE, name)));

/** The names `resourceName` accepts, sorted. */
export const AGGREGATABLE_NAMES: readonly string[] = Object.freeze(Object.keys(AGGREGATABLE).sort());
