/**
 * Flags on a page's comments: one per user (or anonymous session) per comment. Enough flags
 * hide a comment (`flagHideThreshold`); un-flagging never shows it again: only a moderator does.
 */
import { clock } from '../../engine/clock.js';
import { changedComment, type CommentDoc, isVisible } from './comment-doc.js';
import { COMMENT_FLAGS, type FlagDoc, flagId } from './flag-doc.js';
import { commentEvent } from './page-events.js';
import { syncPage } from './page-record.js';
import { type PageHost, saveComment } from './page-state.js';
import { actorKey, type PageProtocol } from './protocol.js';
import { queueWebhooks } from './page-webhooks.js';
import { WEBHOOK_EVENTS } from '../webhook/protocol.js';

/** Records the user's flag on the comment, hiding it when the threshold is reached. */
export function flagComment(host: PageHost, current: CommentDoc, { commentId, by, settings, webhooks }: PageProtocol['flag']['in']): PageProtocol['flag']['out'] {
  const { state } = host;
  const id = flagId(commentId, actorKey(by));
  if (state.flags.has(id)) return { wasUnapproved: false };
  const flag: FlagDoc = {
    _id: id,
    tenantId: state.tenantId,
    urlId: state.urlId,
    commentId,
    userId: by.userId,
    anonUserId: by.userId ? null : by.anonUserId,
    createdAt: new Date(clock.now()).toISOString(),
  };
  host.put(COMMENT_FLAGS, flag);
  state.flags.set(id, flag);
  const flagCount = current.flagCount + 1;
  const threshold = settings.flagHideThreshold;
  const hide = threshold !== null && flagCount >= threshold && current.approved;
  const next = changedComment(current, { flagCount, approved: hide ? false : current.approved });
  saveComment(host, next);
  if (hide) {
    queueWebhooks(host, webhooks, WEBHOOK_EVENTS.updated, next);
    state.restructure();
    syncPage(host, null);
    if (isVisible(current)) host.publish(commentEvent('deleted-comment', { ...state.view(next), hidden: true }));
  }
  return { wasUnapproved: hide };
}

/** Removes the user's flag, if any. */
export function unflagComment(host: PageHost, current: CommentDoc, { commentId, by }: PageProtocol['unflag']['in']): null {
  const { state } = host;
  const id = flagId(commentId, actorKey(by));
  if (!state.flags.has(id)) return null;
  host.remove(COMMENT_FLAGS, id);
  state.flags.delete(id);
  saveComment(host, changedComment(current, { flagCount: Math.max(0, current.flagCount - 1) }));
  return null;
}
