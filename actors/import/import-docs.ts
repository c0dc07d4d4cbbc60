/**
 * Imported records as our documents. Ids are derived from the tenant, the format and the
 * source's id (a hash), so that a parent is named before it is read, and importing the same
 * record again finds it instead of adding it twice.
 */
import { createHash } from 'node:crypto';
import { authorKeyOf, type CommentDoc } from '../page/comment-doc.js';
import { ALLOWED_TAGS, renderComment, sanitizeHtml } from '../page/render.js';
import { VOTE_KINDS, type VoteDoc } from '../page/vote-doc.js';
import type { ImportComment, ImportFormat } from './records.js';

/** Synthetic voters made per comment at most, when a source keeps vote counts only. */
export const MAX_VOTES_PER_COMMENT = 10_000;

function hashId(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 24);
}

/**
 * A source's HTML cut down to the tags comments may hold, to be cleaned then as any given
 * HTML is (`sanitizeHtml`, which checks attributes and URLs): scripts and styles go with their content, paragraphs become line breaks,
 * other tags go and their text stays (an API caller's stray tag would instead show as text).
 */
export function importHtml(html: string): string {
  const cut = html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(script|style|iframe|object|embed|template)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<\/p\s*>\s*<p\b[^>]*>/gi, '<br><br>')
    .replace(/<\/?(?:p|div)\b[^>]*>/gi, '')
    .replace(/<\/?([a-zA-Z][a-zA-Z0-9]*)\b[^>]*>/g, (tag, name: string) => (ALLOWED_TAGS.has(name.toLowerCase()) ? tag : ''));
  return cut.trim();
}

/** The id of the comment imported from `sourceId`. */
export function importedCommentId(tenantId: string, format: ImportFormat, sourceId: string): string {
  return hashId('comment', tenantId, format, sourceId);
}

/** Where the comment goes and who wrote it, as the import resolved them. */
export interface Placement {
  readonly tenantId: string;
  readonly format: ImportFormat;
  readonly urlId: string;
  readonly url: string;
  readonly pageTitle: string | null;
  readonly userId: string | null;
  readonly email: string | null;
}

/** The stored comment of an imported one, with its votes. */
export function importedDocs(c: ImportComment, at: Placement): { comment: CommentDoc; votes: VoteDoc[] } {
  const id = importedCommentId(at.tenantId, at.format, c.sourceId);
  const rendered = c.html !== null && c.html.trim() !== '' ? sanitizeHtml(importHtml(c.html)) : renderComment(c.text);
  const votes: VoteDoc[] = [];
  const vote = (voter: string, direction: 1 | -1) => {
    const anonUserId = `import-${hashId('voter', at.format, voter).slice(0, 16)}`;
    votes.push({
      _id: hashId('vote', id, anonUserId),
      tenantId: at.tenantId,
      urlId: at.urlId,
      commentId: id,
      userId: null,
      anonUserId,
      voterKey: `a:${anonUserId}`,
      direction,
      kind: VOTE_KINDS.anonymous,
      createdAt: c.date,
    });
  };
  if (c.voters !== null) for (const v of c.voters.slice(0, MAX_VOTES_PER_COMMENT)) vote(v.voter, v.direction);
  else {
    // Counts only: anonymous voters standing for them, so that counts follow votes as always.
    for (let i = 0; i < Math.min(c.votesUp, MAX_VOTES_PER_COMMENT); i++) vote(`${c.sourceId}/up/${i}`, 1);
    for (let i = 0; i < Math.min(c.votesDown, MAX_VOTES_PER_COMMENT); i++) vote(`${c.sourceId}/down/${i}`, -1);
  }
  const votesUp = votes.filter((v) => v.direction > 0).length;
  const votesDown = votes.length - votesUp;
  const comment: CommentDoc = {
    _id: id,
    tenantId: at.tenantId,
    urlId: at.urlId,
    url: at.url,
    pageTitle: at.pageTitle,
    parentId: c.parentSourceId === null ? null : importedCommentId(at.tenantId, at.format, c.parentSourceId),
    comment: c.text,
    commentHTML: rendered.html,
    commenterName: c.authorName.trim().slice(0, 500) || 'Anonymous',
    commenterEmail: at.email,
    commenterLink: c.authorLink,
    userId: at.userId,
    anonUserId: null,
    avatarSrc: c.authorAvatar,
    date: c.date,
    localDateString: null,
    localDateHours: null,
    votes: votesUp - votesDown,
    votesUp,
    votesDown,
    flagCount: 0,
    reviewed: true,
    approved: c.approved && !c.spam,
    isSpam: c.spam,
    permNotSpam: false,
    isLocked: false,
    isPinned: c.pinned,
    isByAdmin: false,
    isByModerator: false,
    isBannedUser: false,
    isDeleted: false,
    isDeletedUser: false,
    locale: null,
    verified: false,
    verifiedDate: null,
    displayLabel: null,
    hasLinks: rendered.hasLinks,
    hasCode: rendered.hasCode,
    hasImages: rendered.hasImages,
    badges: null,
    mentions: [],
    hashTags: [],
    hashTagKeys: [],
    authorKey: authorKeyOf(at.userId, at.email),
    notificationSentForParent: true,
    expireAt: null,
    meta: null,
    moderationGroupIds: null,
    feedbackIds: [],
    externalId: `${at.format}:${c.sourceId}`,
    externalParentId: c.parentSourceId === null ? null : `${at.format}:${c.parentSourceId}`,
    rating: null,
    domain: null,
    hasPoll: false,
  };
  return { comment, votes };
}
