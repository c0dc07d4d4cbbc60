/**
 * What moderators' pages hear of moderation actions (docs/moderation.md, "The moderation
 * page"): once an action has changed a comment durably (approved, spam, removed, restored,
 * reviewed, edited, flagged, votes adjusted, its author banned or the ban undone), the
 * moderation API publishes `moderation-updated` on the tenant's server topic (`tenantTopic`),
 * which is never sent to widgets nor logged; in cluster mode every node hears it. The event
 * names the comment and which of its `ModerationAPIComment` fields changed, never their values:
 * each page reads the comment back through the moderation API, which applies that moderator's
 * groups again.
 */

/** The event's type. */
export const MODERATION_UPDATED = 'moderation-updated';

/** Fields of a comment a moderation action may change, by the name the moderation API gives them. */
const VISIBLE_FIELDS: Readonly<Record<string, string>> = {
  approved: 'approved', reviewed: 'reviewed', isSpam: 'isSpam', permNotSpam: 'permNotSpam', isDeleted: 'isDeleted',
  isBannedUser: 'isBannedUser', isLocked: 'isLocked', isPinned: 'isPinned', flagCount: 'flagCount', votes: 'votes', comment: 'commentHTML',
};

/** A comment a moderation action changed. */
export interface ModerationUpdated {
  readonly type: typeof MODERATION_UPDATED;
  readonly tenantId: string;
  readonly urlId: string;
  readonly commentId: string;
  /** The `ModerationAPIComment` fields that changed (names only). */
  readonly changed: readonly string[];
  /** The comment's moderation groups (null: none), so group-limited moderators hear only theirs. */
  readonly moderationGroupIds: readonly string[] | null;
}

/** The event of a changed comment; `fields` are the stored fields the action set (others are left out). */
export function moderationUpdated(tenantId: string, urlId: string, commentId: string, fields: readonly string[], moderationGroupIds: readonly string[] | null): ModerationUpdated {
  const changed = [...new Set(fields.map((f) => VISIBLE_FIELDS[f]).filter((f): f is string => f !== undefined))];
  return { type: MODERATION_UPDATED, tenantId, urlId, commentId, changed, moderationGroupIds };
}

/** Whether a bus event is one. */
export function isModerationUpdated(event: unknown): event is ModerationUpdated {
  const e = event as Partial<ModerationUpdated> | null;
  return typeof e === 'object' && e !== null && e.type === MODERATION_UPDATED && typeof e.tenantId === 'string' && typeof e.commentId === 'string' && Array.isArray(e.changed);
}
