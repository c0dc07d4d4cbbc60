/**
 * Finding comments for moderators (docs/moderation.md, "Find"): the `ModerationFilter` as a
 * storage filter on the tenant's comments (served by the comments' tenant indexes), text
 * terms matched as the results stream, and the moderation shape of a comment.
 */
import { ApiError } from '../../engine/errors.js';
import type { Filter, FieldCondition } from '../../storage/store.js';
import type { CommentDoc } from '../page/comment-doc.js';

/** The API's `ModerationFilter`, as validated. */
export interface ModerationFilter {
  reviewed?: boolean;
  approved?: boolean;
  isSpam?: boolean;
  isBannedUser?: boolean;
  isLocked?: boolean;
  flagCountGt?: number;
  userId?: string;
  urlId?: string;
  domain?: string;
  moderationGroupIds?: string[];
  commentTextSearch?: string[];
  exactCommentText?: string;
}

/** Fields of `ModerationAPIComment` (its schema admits no others). */
const MODERATION_FIELDS = [
  'tenantId', 'urlId', 'url', 'pageTitle', 'userId', 'anonUserId', 'commenterName', 'commenterLink', 'commentHTML', 'parentId',
  'localDateString', 'votes', 'votesUp', 'votesDown', 'expireAt', 'reviewed', 'avatarSrc', 'isSpam', 'permNotSpam', 'hasLinks',
  'hasCode', 'approved', 'locale', 'isBannedUser', 'isByAdmin', 'isByModerator', 'isPinned', 'isLocked', 'flagCount',
  'displayLabel', 'badges', 'verified', 'feedbackIds', 'isDeleted',
] as const;

const FLAGS = ['reviewed', 'isSpam', 'permNotSpam', 'hasLinks', 'hasCode', 'approved', 'isBannedUser', 'isByAdmin', 'isByModerator', 'isPinned', 'isLocked', 'verified', 'isDeleted'] as const;
const NULLABLE = ['badges', 'localDateString', 'pageTitle', 'userId', 'anonUserId', 'commenterLink', 'parentId', 'avatarSrc', 'displayLabel', 'expireAt'] as const;
const COUNTS = ['votes', 'votesUp', 'votesDown', 'flagCount'] as const;

/** A stored comment as moderators see it (`ModerationAPIComment`): never its email or address. */
export function moderationComment(doc: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = { _id: doc['_id'] ?? doc['id'] };
  for (const field of MODERATION_FIELDS) {
    const value = doc[field];
    if (value !== undefined) out[field] = value;
  }
  out['commenterName'] ??= '';
  out['locale'] ??= null;
  // One shape whether read from storage or from a page actor's view (which leaves out false,
  // null and empty fields): every flag is a boolean, nullable fields are null, counts are numbers.
  for (const flag of FLAGS) out[flag] = out[flag] === true;
  for (const field of NULLABLE) out[field] ??= null;
  for (const field of COUNTS) out[field] = typeof out[field] === 'number' ? out[field] : 0;
  out['feedbackIds'] ??= [];
  const date = doc['date'];
  out['date'] = typeof date === 'number' ? new Date(date).toISOString() : typeof date === 'string' ? date : null;
  const expireAt = doc['expireAt'];
  if (typeof expireAt === 'number') out['expireAt'] = new Date(expireAt).toISOString();
  return out;
}

/** The storage filter of a moderation filter, limited to the moderator's groups. */
export function storageFilter(tenantId: string, filter: ModerationFilter, groups: readonly string[] | null): Filter {
  const out: Record<string, FieldCondition> = { tenantId };
  for (const flag of ['reviewed', 'approved', 'isSpam', 'isBannedUser', 'isLocked'] as const) {
    if (filter[flag] !== undefined) out[flag] = filter[flag]!;
  }
  if (filter.flagCountGt !== undefined) out['flagCount'] = { $gt: filter.flagCountGt };
  if (filter.userId !== undefined) out['userId'] = filter.userId;
  if (filter.urlId !== undefined) out['urlId'] = filter.urlId;
  if (filter.domain !== undefined) out['domain'] = filter.domain;
  let wanted = filter.moderationGroupIds && filter.moderationGroupIds.length > 0 ? filter.moderationGroupIds : null;
  if (groups !== null) wanted = wanted === null ? [...groups] : wanted.filter((g) => groups.includes(g));
  if (wanted !== null) out['moderationGroupIds'] = { $in: wanted.length > 0 ? wanted : ['\u0000none'] };
  return out;
}

/** Terms of a `text-search` parameter: words, and phrases in double quotes (`exact="..."` sets the exact text). */
export function parseTextSearch(text: string | undefined, filter: ModerationFilter): ModerationFilter {
  if (text === undefined || text.trim() === '') return filter;
  const terms: string[] = [...(filter.commentTextSearch ?? [])];
  let exact = filter.exactCommentText;
  const re = /exact="([^"]*)"|"([^"]*)"|(\S+)/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (m[1] !== undefined) exact = m[1];
    else if (m[2] !== undefined) terms.push(`"${m[2]}"`);
    else terms.push(m[3]!);
  }
  return { ...filter, commentTextSearch: terms, ...(exact !== undefined ? { exactCommentText: exact } : {}) };
}

/** Whether a comment's text meets the filter's text terms (every term; quoted terms as phrases). */
export function textMatches(doc: CommentDoc, filter: ModerationFilter): boolean {
  if (filter.exactCommentText !== undefined && doc.comment !== filter.exactCommentText) return false;
  const terms = filter.commentTextSearch;
  if (!terms || terms.length === 0) return true;
  const text = doc.comment.toLowerCase();
  return terms.every((term) => {
    const phrase = term.length >= 2 && term.startsWith('"') && term.endsWith('"') ? term.slice(1, -1) : term;
    return text.includes(phrase.toLowerCase());
  });
}

/** Whether the filter has text terms (matched in memory, so the read streams). */
export function hasText(filter: ModerationFilter): boolean {
  return filter.exactCommentText !== undefined || (filter.commentTextSearch?.length ?? 0) > 0;
}

/** A JSON parameter as an object, or 400 `invalid-param`. */
export function jsonParam<T>(raw: string | undefined, name: string): T | undefined {
  if (raw === undefined || raw === '') return undefined;
  try {
    const value = JSON.parse(raw) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
    return value as T;
  } catch {
    throw new ApiError('invalid-param', `${name} must be a JSON object.`);
  }
}
