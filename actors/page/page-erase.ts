/**
 * A deleted user's comments on one page (`eraseUserComments`), live: anonymized, or removed
 * with their replies following the page's thread deletion mode. Locks do not stop it: deleting
 * a person's data is the administrator's act, not an edit of a thread.
 *
 * `commentThreadDeleteMode` (the widget configuration's CommentThreadDeletionMode):
 * - 0 or unset: a deleted comment takes its replies with it;
 * - 1: a comment with replies is anonymized and its text replaced, and the replies stay;
 * - 2: comments with replies may not be deleted: anonymized the same way, the replies stay;
 * - 3: only administrators and moderators may delete a comment with replies: this is such a
 *   deletion, so the replies go with it, as in 0.
 * A comment without replies is removed in every mode.
 */
import { changedComment, type CommentDoc, isVisible } from './comment-doc.js';
import { commentEvent } from './page-events.js';
import { dropComment } from './page-moves.js';
import { syncPage } from './page-record.js';
import { type PageHost, saveComment } from './page-state.js';
import type { EraseRequest } from './protocol.js';
import { queueWebhooks } from './page-webhooks.js';
import { WEBHOOK_EVENTS } from '../webhook/protocol.js';
import { LoopYielder } from './yield-loop.js';

/** The text an anonymized comment with replies keeps, when its content is removed. */
export const DELETED_PLACEHOLDER = '[deleted]';

/** The fields the specification nulls on an anonymized comment, with the two flags set. */
function anonymized(doc: CommentDoc, removeText: boolean): CommentDoc {
  return changedComment(doc, {
    commenterName: null,
    commenterEmail: null,
    avatarSrc: null,
    userId: null,
    anonUserId: null,
    mentions: null,
    badges: null,
    authorKey: null,
    isDeleted: true,
    isDeletedUser: true,
    ...(removeText ? { comment: DELETED_PLACEHOLDER, commentHTML: DELETED_PLACEHOLDER } : {}),
  });
}

/**
 * Erases the comments named that this page holds and that are still the user's (others were
 * moved, deleted or already erased: skipped). Answers how many were changed or removed.
 */
export async function eraseUserComments(host: PageHost, request: EraseRequest): Promise<{ changed: number }> {
  const { state } = host;
  let changed = 0;
  const withPolls: string[] = [];
  const yielder = new LoopYielder();
  for (const id of request.commentIds) {
    await yielder.tick();
    const doc = state.comments.get(id);
    if (doc === undefined || doc.userId !== request.userId) continue;
    changed++;
    const hasReplies = state.subtree(id).length > 1;
    const keepReplies = request.threadMode === 1 || request.threadMode === 2;
    if (request.mode === 'anonymize' || (hasReplies && keepReplies)) {
      const next = anonymized(doc, request.mode === 'remove');
      saveComment(host, next);
      queueWebhooks(host, request.webhooks, WEBHOOK_EVENTS.updated, next);
      if (request.isLive && isVisible(next)) host.publish(commentEvent('updated-comment', state.view(next)));
      continue;
    }
    for (const gone of state.subtree(id)) {
      const goneDoc = state.comments.get(gone)!;
      if (goneDoc.hasPoll) withPolls.push(gone);
      if (request.isLive && isVisible(goneDoc)) host.publish(commentEvent('deleted-comment', state.view(goneDoc)));
      queueWebhooks(host, request.webhooks, WEBHOOK_EVENTS.deleted, goneDoc);
      dropComment(host, gone, (collection, stored) => host.remove(collection, stored._id));
    }
  }
  if (changed === 0) return { changed };
  state.restructure();
  syncPage(host, null);
  if (withPolls.length > 0) {
    await host.commitNow([]);
    for (const id of withPolls) await host.tellPoll(id, { isLocked: false, urlId: state.urlId, deleted: true });
  }
  return { changed };
}
