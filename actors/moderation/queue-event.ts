/**
 * What moderators' pages hear of new comments (docs/moderation.md, "The moderation page"): the
 * page actor publishes `moderation-queued` on the tenant's server topic (`tenantTopic`) once a
 * new comment is durable, whether readers may see it or it waits for approval. The topic is
 * never sent to widgets nor logged; in cluster mode every node follows it. The event names the
 * comment only: a moderator's page reads it back through the moderation API, which decides
 * what that moderator may see.
 */

/** The event's type. */
export const MODERATION_QUEUED = 'moderation-queued';

/** A new comment that moderators' queues may want. */
export interface ModerationQueued {
  readonly type: typeof MODERATION_QUEUED;
  readonly tenantId: string;
  readonly urlId: string;
  readonly commentId: string;
  /** The comment's moderation groups (null: none), so group-limited moderators hear only theirs. */
  readonly moderationGroupIds: readonly string[] | null;
}

/** The event of a new comment. */
export function moderationQueued(tenantId: string, urlId: string, commentId: string, moderationGroupIds: readonly string[] | null): ModerationQueued {
  return { type: MODERATION_QUEUED, tenantId, urlId, commentId, moderationGroupIds };
}

/** Whether a bus event is one. */
export function isModerationQueued(event: unknown): event is ModerationQueued {
  const e = event as Partial<ModerationQueued> | null;
  return typeof e === 'object' && e !== null && e.type === MODERATION_QUEUED && typeof e.tenantId === 'string' && typeof e.commentId === 'string';
}
