/**
 * Moderators' counters (docs/identity.md): a comment change, deletion or un-flag made in the
 * name of a user (`contextUserId`, the un-flag's `userId`, or the user of an access token)
 * counts for the tenant's moderators who are that user. Counted once the action is durable;
 * a counter that cannot be stored never fails the action, which already happened.
 */
import type { ModeratorCounts } from '../actors/moderator/moderator-model.js';
import { ModeratorsKind } from '../actors/moderator/protocol.js';
import { log } from '../engine/log.js';
import type { RouteRequest } from './route.js';

/** What a comment PATCH body counts as: approvals, reviews, spam marks, edits. */
export function patchCounts(body: Readonly<Record<string, unknown>>): ModeratorCounts {
  const counts: ModeratorCounts = {};
  if (body['approved'] === true) counts.approvedCount = 1;
  if (body['approved'] === false) counts.unApprovedCount = 1;
  if (body['reviewed'] === true) counts.markReviewedCount = 1;
  if (body['isSpam'] === true) counts.markedSpamCount = 1;
  if (body['isSpam'] === false) counts.markedNotSpamCount = 1;
  if (body['comment'] !== undefined || body['commentHTML'] !== undefined) counts.editedCount = 1;
  return counts;
}

/** Adds `counts` to the moderators who are the acting user of the request, if any. */
export async function countModeration(req: RouteRequest<unknown, unknown>, userId: string | undefined, counts: ModeratorCounts): Promise<void> {
  const actor = userId ?? req.auth?.userId;
  if (!actor || Object.keys(counts).length === 0) return;
  try {
    await req.app.system.ask(ModeratorsKind, req.tenantId, 'count', { userId: actor, counts });
  } catch (err) {
    log.warn('moderator-count-failed', { tenantId: req.tenantId, userId: actor, err });
  }
}
