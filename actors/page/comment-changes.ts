/**
 * Changing a comment (`PATCH /api/v1/comments/:id`): the fields a caller may set, the rules
 * they follow, and the live events a change publishes.
 */
import { ApiError } from '../../engine/errors.js';
import type { Settings } from '../tenant/widget-config.js';
import { authorKeyOf, type CommentDoc, copyComment, isVisible } from './comment-doc.js';
import { checkDate, checkEmail, checkLength, checkName, checkText, commentHashTags, prepareText, refuseCalculated } from './comment-rules.js';
import { commentEvent, type CommentEventType, threadStateEvent } from './page-events.js';
import { moveOut } from './page-moves.js';
import { queueWebhooks } from './page-webhooks.js';
import { WEBHOOK_EVENTS } from '../webhook/protocol.js';
import { syncPage } from './page-record.js';
import { type PageHost, saveComment } from './page-state.js';
import type { CommentChanges, PageProtocol, PatchedComment } from './protocol.js';
import { maskProfanity } from './profanity.js';
import { sanitizeHtml } from './render.js';

/** PATCH fields copied as given (their types are checked by the route's schema). */
const PLAIN_FIELDS = [
  'url',
  'pageTitle',
  'commenterLink',
  'avatarSrc',
  'localDateString',
  'localDateHours',
  'expireAt',
  'verified',
  'verifiedDate',
  'notificationSentForParent',
  'reviewed',
  'externalId',
  'externalParentId',
  'isSpam',
  'approved',
  'isDeleted',
  'isDeletedUser',
  'isByAdmin',
  'isByModerator',
  'displayLabel',
  'meta',
  'moderationGroupIds',
  'feedbackIds',
  'isBannedUser',
  'permNotSpam',
] as const satisfies readonly (keyof CommentDoc)[];

/** PATCH fields that are dates: given as ms or ISO, stored as ISO date-times (null clears them). */
const DATE_FIELDS = ['expireAt', 'verifiedDate'] as const satisfies readonly (keyof CommentDoc)[];

/** PATCH fields whose null means false. */
const NULLABLE_FLAGS = ['isPinned', 'isLocked'] as const satisfies readonly (keyof CommentDoc)[];

/**
 * `patchComment`: applies the changes (a locked comment takes none but its lock alone), moving
 * the comment to another page when its `urlId` changes.
 */
export async function patchComment(host: PageHost, current: CommentDoc, { changes, settings, isLive, userIdForEmail, webhooks }: PageProtocol['patchComment']['in']): Promise<PatchedComment> {
  const { state } = host;
  // A locked comment takes one change: its lock alone. Unlocking and changing in one request
  // would let any caller skip the lock.
  const onlyLock = Object.keys(changes).length === 1 && 'isLocked' in changes;
  if (current.isLocked && !onlyLock) throw new ApiError('locked', 'The comment is locked: unlock it first (a PATCH of isLocked alone), then change it.');
  const next = applyChanges(host, current, changes, settings, userIdForEmail);
  const target = typeof changes['urlId'] === 'string' && changes['urlId'] !== state.urlId ? changes['urlId'] : null;
  if (target !== null) return moveOut(host, next, target, isLive, webhooks);

  saveComment(host, next);
  queueWebhooks(host, webhooks, WEBHOOK_EVENTS.updated, next);
  const structural = next.approved !== current.approved || next.isSpam !== current.isSpam || next.parentId !== current.parentId || next.date !== current.date;
  if (structural) {
    state.restructure();
    syncPage(host, null);
  }
  const view = state.view(next);
  const lockChanged = next.isLocked !== current.isLocked;
  if (isLive) {
    if (lockChanged) host.publish(threadStateEvent(view, next.isLocked));
    const others = Object.keys(changes).some((k) => k !== 'isLocked');
    if (others) {
      const type = visibilityEvent(isVisible(current), isVisible(next));
      if (type !== null) host.publish(commentEvent(type, type === 'deleted-comment' ? { ...view, hidden: true } : view));
    }
  }
  if (lockChanged && next.hasPoll) {
    await host.commitNow([]);
    await host.tellPoll(next._id, { isLocked: next.isLocked, urlId: state.urlId, deleted: false });
  }
  return { comment: view, moved: null };
}

function applyChanges(host: PageHost, current: CommentDoc, changes: CommentChanges, settings: Settings, userIdForEmail: string | null): CommentDoc {
  refuseCalculated(changes);
  const next = copyComment(current);
  const text = changes['comment'];
  const html = changes['commentHTML'];
  if (typeof text === 'string') {
    checkText(text);
    checkLength(text, settings);
    const prepared = prepareText(text, settings, typeof html === 'string' ? html : undefined);
    const tags = commentHashTags(host.state.tenantId, prepared.comment, current.hashTags);
    Object.assign(next, {
      comment: prepared.comment,
      commentHTML: prepared.rendered.html,
      hasLinks: prepared.rendered.hasLinks,
      hasCode: prepared.rendered.hasCode,
      hasImages: prepared.rendered.hasImages,
      hashTags: tags.hashTags,
      hashTagKeys: tags.keys,
    });
  } else if (typeof html === 'string') {
    const rendered = sanitizeHtml(settings.enableProfanityFilter ? maskProfanity(html) : html);
    Object.assign(next, { commentHTML: rendered.html, hasLinks: rendered.hasLinks, hasCode: rendered.hasCode, hasImages: rendered.hasImages });
  }
  if (typeof changes['commenterName'] === 'string') next.commenterName = checkName(changes['commenterName']);
  if ('commenterEmail' in changes) {
    const email = checkEmail(changes['commenterEmail'] as string | null);
    if (!('userId' in changes) && email !== null && email.toLowerCase() !== current.commenterEmail?.toLowerCase()) {
      if (userIdForEmail === null) {
        throw new ApiError('invalid-user', 'No user of this site has that email: send the userId together with a new commenterEmail.');
      }
      next.userId = userIdForEmail;
    }
    next.commenterEmail = email;
  }
  if ('userId' in changes) next.userId = (changes['userId'] as string | null) || null;
  next.authorKey = authorKeyOf(next.userId, next.commenterEmail, next.anonUserId);
  if ('parentId' in changes && changes['parentId'] !== current.parentId && typeof changes['urlId'] !== 'string') {
    next.parentId = checkParent(host, current._id, changes['parentId'] as string | null);
  }
  const date = changes['date'];
  if (typeof date === 'number' || typeof date === 'string') next.date = checkDate(date);
  const target = next as unknown as Record<string, unknown>;
  for (const field of PLAIN_FIELDS) if (field in changes) target[field] = changes[field];
  for (const field of DATE_FIELDS) {
    const value = changes[field];
    if (typeof value === 'number' || typeof value === 'string') target[field] = checkDate(value, field);
  }
  for (const field of NULLABLE_FLAGS) if (field in changes) target[field] = changes[field] === true;
  return next;
}

function checkParent(host: PageHost, commentId: string, parentId: string | null): string | null {
  if (parentId === null) return null;
  if (!host.state.comments.has(parentId)) throw new ApiError('invalid-parent-id', `The parent comment ${parentId} is not a comment of this page.`);
  if (host.state.subtree(commentId).includes(parentId)) throw new ApiError('invalid-parent-id', 'A comment cannot become a reply to itself or to one of its replies.');
  return parentId;
}

function visibilityEvent(before: boolean, after: boolean): CommentEventType | null {
  if (before && after) return 'updated-comment';
  if (before) return 'deleted-comment';
  if (after) return 'new-comment';
  return null;
}
