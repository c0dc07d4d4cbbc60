/**
 * Creating and deleting a page's comments (changes to one are in comment-changes.ts, moves to
 * another page in page-moves.ts).
 */
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { newId } from '../../engine/ids.js';
import { HashTagKind } from '../hashtag/protocol.js';
import { notifyJob as notifyJobOf } from '../notify/job-doc.js';
import { pollUpdateEvent } from '../poll/poll-events.js';
import { createPoll, POLL_COLLECTIONS, type PollDoc, pollView } from '../poll/poll-model.js';
import { UserKind, userActorId, UsernameKind, usernameActorId } from '../user/protocol.js';
import { authorKeyOf, COMMENTS, type CommentDoc, isVisible } from './comment-doc.js';
import { checkDate, checkLength, commentHashTags, prepareText } from './comment-rules.js';
import { commentEvent } from './page-events.js';
import { dropComment } from './page-moves.js';
import { syncPage } from './page-record.js';
import type { PageHost } from './page-state.js';
import type { CreatedComment, NewCommentInput, PageProtocol, SessionUser, WebhookTargets } from './protocol.js';
import { queueWebhooks } from './page-webhooks.js';
import { WEBHOOK_EVENTS } from '../webhook/protocol.js';
import { judgeSpam, repeatKey } from './spam.js';
import { badgeEventsOfComment, badgesOfAuthor } from './page-badges.js';

/** `createComment`: checks the page's rules, then stores the comment (and its poll) in one batch. */
export async function createComment(host: PageHost, { input, settings, isLive, doSpamCheck, notify, webhooks }: PageProtocol['createComment']['in']): Promise<CreatedComment> {
  const { state } = host;
  if (settings.readonly || state.page?.isClosed) throw new ApiError('page-readonly');
  if (input.parentId === null && settings.noNewRootComments) throw new ApiError('no-new-root-comments');
  if (!settings.allowAnon && input.userId === null && input.commenterEmail === null) {
    throw new ApiError('login-required', 'This site does not take anonymous comments: give a userId or commenterEmail.');
  }
  checkLength(input.comment, settings);
  if (input.parentId !== null && !state.comments.has(input.parentId)) {
    throw new ApiError('invalid-parent-id', `The parent comment ${input.parentId} is not a comment of this page.`);
  }
  const now = clock.now();
  const id = newId(now);
  let poll: PollDoc | null = null;
  if (input.poll !== null) {
    if (settings.disablePolls) throw new ApiError('polls-disabled');
    poll = createPoll(input.poll, { tenantId: state.tenantId, commentId: id, urlId: state.urlId, nowMs: now, newOptionId: () => newId(clock.now()) });
  }
  const text = prepareText(input.comment, settings);
  const tags = commentHashTags(state.tenantId, text.comment, input.hashTags);
  const judged = doSpamCheck ? judgeSpam(text.comment, settings.spamRules, isRepeat(host, input, text.comment)) : undefined;
  const spam = input.suspectedSpam === true && judged?.permNotSpam !== true ? { isSpam: true, permNotSpam: false } : judged;

  // Last, because it can create a user: nothing above may refuse after it.
  let user: SessionUser | null = null;
  let userId = input.userId;
  if (userId === null && input.commenterEmail !== null) {
    const claimed = await host.system.ask(UsernameKind, usernameActorId(state.tenantId, input.commenterName), 'claim', {
      username: input.commenterName,
      email: input.commenterEmail,
      avatarSrc: input.avatarSrc,
    });
    userId = claimed.user._id;
    user = { id: userId, username: claimed.user.username, email: claimed.user.email, avatarSrc: claimed.user.avatarSrc, authorized: false, isAnonSession: false };
  } else if (userId !== null) {
    const known = await host.system.ask(UserKind, userActorId(state.tenantId, userId), 'get', null);
    if (known !== null) user = { id: known._id, username: known.username, email: known.email, avatarSrc: known.avatarSrc, authorized: true, isAnonSession: false };
  }

  const badges = await badgesOfAuthor(host, userId);
  const nowIso = new Date(now).toISOString();
  const verified = input.verified ?? false;
  const doc: CommentDoc = {
    _id: id,
    tenantId: state.tenantId,
    urlId: state.urlId,
    url: input.url,
    pageTitle: input.pageTitle,
    parentId: input.parentId,
    comment: text.comment,
    commentHTML: text.rendered.html,
    commenterName: input.commenterName,
    commenterEmail: input.commenterEmail,
    commenterLink: input.commenterLink,
    userId,
    anonUserId: input.anonUserId ?? null,
    avatarSrc: input.avatarSrc,
    date: input.date === null ? nowIso : checkDate(input.date),
    localDateString: input.localDateString,
    localDateHours: input.localDateHours,
    votes: 0,
    votesUp: 0,
    votesDown: 0,
    flagCount: 0,
    reviewed: input.reviewed ?? false,
    approved: spam?.isSpam ? false : (input.approved ?? true),
    isSpam: spam?.isSpam ?? false,
    permNotSpam: spam?.permNotSpam ?? false,
    isLocked: false,
    isPinned: input.isPinned ?? false,
    isByAdmin: false,
    isByModerator: false,
    isBannedUser: input.isBannedUser === true,
    isDeleted: false,
    isDeletedUser: false,
    locale: input.locale,
    verified,
    verifiedDate: verified ? nowIso : null,
    displayLabel: null,
    hasLinks: text.rendered.hasLinks,
    hasCode: text.rendered.hasCode,
    hasImages: text.rendered.hasImages,
    badges,
    mentions: [...input.mentions],
    hashTags: tags.hashTags,
    hashTagKeys: tags.keys,
    authorKey: authorKeyOf(userId, input.commenterEmail, input.anonUserId ?? null),
    notificationSentForParent: false,
    expireAt: null,
    meta: input.meta,
    moderationGroupIds: input.moderationGroupIds === null ? null : [...input.moderationGroupIds],
    feedbackIds: [...input.feedbackIds],
    externalId: null,
    externalParentId: null,
    rating: input.rating,
    domain: input.domain,
    hasPoll: poll !== null,
    ipHash: input.ipHash ?? null,
    voteAdjustment: 0,
  };
  host.insert(COMMENTS, doc);
  queueWebhooks(host, webhooks, WEBHOOK_EVENTS.created, doc);
  state.comments.set(id, doc);
  if (poll !== null) {
    // Same batch as the comment: both are durable, or neither.
    host.insert(POLL_COLLECTIONS.polls, poll);
    state.polls.set(id, pollView(poll));
  }
  // The record that its notifications are owed, durable with it; the job works off this actor.
  const parentUserId = input.parentId === null ? null : (state.comments.get(input.parentId)?.userId ?? null);
  badgeEventsOfComment(host, doc, parentUserId);
  const notifyJob = notify !== false && mayNotify(doc, parentUserId);
  if (notifyJob) {
    const job = notifyJobOf(state.tenantId, state.urlId, id, parentUserId, now);
    host.insert(job.collection, job.doc);
  }
  state.restructure();
  syncPage(host, { title: input.pageTitle, url: input.url });
  if (tags.keys.length > 0 && !settings.disableAutoHashTagCreation) {
    host.system.tell(HashTagKind, state.tenantId, 'ensure', { tags: tags.hashTags.map((t) => t.tag) });
  }
  const view = state.view(doc);
  host.announceQueued(id, doc.moderationGroupIds);
  if (isLive && isVisible(doc)) host.publish(commentEvent('new-comment', view));
  // A poll reaches widgets live whatever `isLive` says (inside new-comment when it is set).
  else if (poll !== null && isVisible(doc)) host.publish(pollUpdateEvent(id, state.urlId, poll, now));
  return { comment: view, user, notifyJob };
}

/**
 * Whether a new comment may notify anyone: a visible top-level comment (the page may have
 * subscribers), a reply to another author's comment, or one that mentions someone.
 */
function mayNotify(doc: CommentDoc, parentUserId: string | null): boolean {
  if (!isVisible(doc)) return false;
  if (doc.parentId === null || (doc.mentions?.length ?? 0) > 0) return true;
  return parentUserId !== null && parentUserId !== doc.userId;
}

/** `deleteComment`: the comment and every reply under it, with their votes, flags and polls. */
export async function deleteComment(host: PageHost, current: CommentDoc, isLive: boolean, webhooks: WebhookTargets): Promise<PageProtocol['deleteComment']['out']> {
  const { state } = host;
  if (current.isLocked) throw new ApiError('locked');
  const ids = state.subtree(current._id);
  const withPolls: string[] = [];
  for (const id of ids) {
    const doc = state.comments.get(id)!;
    if (doc.hasPoll) withPolls.push(id);
    if (isLive && isVisible(doc)) host.publish(commentEvent('deleted-comment', state.view(doc)));
    queueWebhooks(host, webhooks, WEBHOOK_EVENTS.deleted, doc);
    dropComment(host, id, (coll, stored) => host.remove(coll, stored._id));
  }
  state.restructure();
  syncPage(host, null);
  if (withPolls.length > 0) {
    await host.commitNow([]);
    for (const id of withPolls) await host.tellPoll(id, { isLocked: false, urlId: state.urlId, deleted: true });
  }
  return { deletedCount: ids.length };
}

/**
 * Whether the author (same user id, email, or anonymous name) already posted this text here:
 * only that author's comments are looked at, found through the page's author index.
 */
function isRepeat(host: PageHost, input: NewCommentInput, text: string): boolean {
  const key = repeatKey(text);
  const email = input.commenterEmail?.toLowerCase() ?? null;
  const { comments } = host.state;
  const index = comments.index;
  const candidates: ReadonlySet<string>[] = [];
  if (input.userId !== null) candidates.push(index.byAuthor('userId', input.userId));
  if (input.anonUserId != null) candidates.push(index.byAuthor('anonUserId', input.anonUserId));
  if (email !== null) candidates.push(index.byAuthor('email', email));
  if (input.userId === null && email === null && input.commenterName != null) candidates.push(index.byAuthor('name', input.commenterName));
  for (const ids of candidates) {
    for (const id of ids) {
      const doc = comments.get(id);
      if (doc !== undefined && repeatKey(doc.comment) === key) return true;
    }
  }
  return false;
}
