/**
 * What every moderation action shares (docs/moderation.md): reaching a comment the moderator
 * may see, changing it through its page actor (which publishes the change live once durable),
 * and recording the action in the comment's log, the moderator's counters and, for audited
 * tenants, the audit log.
 */
import { AuditKind } from '../../actors/audit/audit-actor.js';
import { changesBetween } from '../../actors/audit/audit-model.js';
import { tenantTopic } from '../../actors/live/live-events.js';
import { ModerationKind } from '../../actors/moderation/moderation-actor.js';
import type { ModerationAction } from '../../actors/moderation/moderation-model.js';
import type { ModeratorCounts } from '../../actors/moderator/moderator-model.js';
import { moderationUpdated } from '../../actors/moderation/update-event.js';
import { ModeratorsKind } from '../../actors/moderator/protocol.js';
import { pageLocator } from '../../actors/page/locator.js';
import type { CommentChanges } from '../../actors/page/protocol.js';
import { TenantKind } from '../../actors/tenant/tenant-actor.js';
import { webhookTargets } from '../../actors/webhook/protocol.js';
import { log } from '../../engine/log.js';
import { commentNotFound, findComment, type FoundComment } from '../public/comment-access.js';
import type { RouteRequest } from '../route.js';
import type { AppServices } from '../services.js';
import { maySee, type Moderator } from './moderator.js';

/** Finds a comment the moderator may see (404 `not-found` otherwise: other tenants' and other groups' comments alike). */
export async function moderatedComment(app: AppServices, moderator: Moderator, commentId: string): Promise<FoundComment> {
  const found = await findComment(app, moderator.tenantId, commentId);
  if (!maySee(moderator, found.view)) throw commentNotFound(commentId)();
  return found;
}

/** Changes a comment through its page actor, live to every viewer. */
export async function changeComment(app: AppServices, moderator: Moderator, found: FoundComment, changes: CommentChanges, broadcastId: string | undefined): Promise<Record<string, unknown>> {
  const id = String(found.view['_id']);
  const webhooks = await webhookTargets(app.system, moderator.tenantId);
  const { comment } = await pageLocator(app.system).ask(
    'comment',
    moderator.tenantId,
    id,
    'patchComment',
    { commentId: id, changes, settings: found.settings, isLive: true, userIdForEmail: null, webhooks, ...(broadcastId ? { broadcastId } : {}) },
    commentNotFound(id),
  );
  announceUpdate(app, moderator.tenantId, comment, Object.keys(changes));
  return comment;
}

/**
 * Tells moderators' pages that an action changed a comment (`moderation-updated`, published
 * once the change is durable: the page actor has answered). `view` is the comment after it.
 */
export function announceUpdate(app: AppServices, tenantId: string, view: Readonly<Record<string, unknown>>, fields: readonly string[]): void {
  const groups = Array.isArray(view['moderationGroupIds']) ? (view['moderationGroupIds'] as string[]) : null;
  const event = moderationUpdated(tenantId, String(view['urlId'] ?? ''), String(view['_id'] ?? view['id']), fields, groups);
  if (event.changed.length > 0) app.bus.publish(tenantTopic(tenantId), event);
}

/** A comment as the action found it and as it left it (API views: `commentView`). */
export interface CommentChange {
  readonly before: Readonly<Record<string, unknown>>;
  readonly after: Readonly<Record<string, unknown>>;
}

/**
 * The fields that differ between two API views of a comment. A view leaves out optional fields
 * that are false, null or empty (`commentView`), so a field on one side only had that empty
 * value on the other: `reviewed` going from absent to true went from false.
 */
function changesOfViews(before: Readonly<Record<string, unknown>>, after: Readonly<Record<string, unknown>>): ReturnType<typeof changesBetween> {
  const emptyLike = (value: unknown): unknown => (typeof value === 'boolean' ? false : Array.isArray(value) ? [] : null);
  const full = (side: Readonly<Record<string, unknown>>, other: Readonly<Record<string, unknown>>): Record<string, unknown> => {
    const out: Record<string, unknown> = { ...side };
    for (const [field, value] of Object.entries(other)) if (!(field in out)) out[field] = emptyLike(value);
    return out;
  };
  return changesBetween(full(before, after), full(after, before));
}

/**
 * Records a done action: the comment's log, the moderator's counters, the audit log. With
 * `change`, the audit entry's `objectDetails.changes` holds each field the action changed,
 * with its value before (`from`) and after (`to`), as audit entries of API updates do.
 */
export async function recordAction(
  req: RouteRequest<unknown, unknown>,
  moderator: Moderator,
  commentId: string,
  action: ModerationAction,
  message: string,
  counts: ModeratorCounts,
  change?: CommentChange,
): Promise<void> {
  const { app } = req;
  const { tenantId, userId, username } = moderator;
  await app.system.ask(ModerationKind, tenantId, 'log', { commentId, userId, username, action, message });
  if (Object.keys(counts).length > 0) {
    try {
      await app.system.ask(ModeratorsKind, tenantId, 'count', { userId, counts });
    } catch (err) {
      log.warn('moderator-count-failed', { tenantId, userId, err });
    }
  }
  const snapshot = await app.system.ask(TenantKind, tenantId, 'read', null);
  if (snapshot.package?.hasAuditing === true) {
    await app.system.ask(AuditKind, tenantId, 'record', {
      entry: {
        tenantId,
        resourceName: 'moderate-comments',
        crudType: 'u',
        userId,
        username,
        apiKeyId: null,
        actingTenantId: null,
        ip: req.ip || null,
        url: `${req.method} ${req.path}`,
        targetId: commentId,
        targetLabel: action,
        objectDetails: change === undefined ? null : { changes: changesOfViews(change.before, change.after) },
      },
    });
  }
}

/** Teaches the tenant's spam classifier a moderator's decision about a comment (docs/moderation.md, "Spam"). */
export async function learn(app: AppServices, moderator: Moderator, view: Readonly<Record<string, unknown>>, spam: boolean): Promise<void> {
  const text = view['comment'];
  if (typeof text !== 'string' || text === '') return;
  const userId = typeof view['userId'] === 'string' ? view['userId'] : null;
  await app.system.ask(ModerationKind, moderator.tenantId, 'learn', { text, spam, userId });
}
