/**
 * The rules of comment text and commenter identity, as pure functions. The route applies the
 * ones that need nothing but the request (so bad input never reaches an actor); the page actor
 * applies the ones that need the settings or the page.
 */
import { ApiError } from '../../engine/errors.js';
import type { Settings } from '../tenant/widget-config.js';
import { checkTag, hashTagId, hashTagKey, tagsInText } from '../hashtag/hashtag-model.js';
import { hasUnsafeCharacters } from '../text-rules.js';
import type { CommentHashTag } from './comment-doc.js';
import { maskProfanity } from './profanity.js';
import { renderComment, sanitizeHtml, type Rendered } from './render.js';

/** Limits of comment fields, whatever the settings. */
export const COMMENT_LIMITS = {
  nameMax: 200,
  emailMax: 254,
  /** Hard limit on comment text, whatever the settings say. */
  textMax: 50_000,
  /** The latest date a comment may carry: the end of year 9999. */
  dateMaxMs: 253_402_300_799_999,
} as const;

const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:".]+$/;

/** Fields a client may send but only the server calculates. */
export const CALCULATED_COMMENT_FIELDS = ['votes', 'votesUp', 'votesDown', 'flagCount'] as const;

/** Refuses a body that sets a calculated field. */
export function refuseCalculated(body: Readonly<Record<string, unknown>>): void {
  for (const field of CALCULATED_COMMENT_FIELDS) {
    if (body[field] !== undefined) {
      throw new ApiError('calculated-field', `"${field}" is calculated from the comment's votes and flags and cannot be set.`);
    }
  }
}

/** A commenter name: not blank, not too long, not an email address. Returns it trimmed. */
export function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > COMMENT_LIMITS.nameMax) {
    throw new ApiError('invalid-name', `The commenter name must be 1 to ${COMMENT_LIMITS.nameMax} characters.`);
  }
  if (EMAIL.test(trimmed)) throw new ApiError('invalid-name-is-email', 'The commenter name must not be an email address.');
  if (hasUnsafeCharacters(trimmed)) throw new ApiError('invalid-name', 'The commenter name may not hold control or bidirectional-override characters.');
  return trimmed;
}

/** An optional email: null when empty, else trimmed and checked. */
export function checkEmail(email: string | null | undefined): string | null {
  if (email === null || email === undefined || email.trim() === '') return null;
  const trimmed = email.trim();
  if (trimmed.length > COMMENT_LIMITS.emailMax || !EMAIL.test(trimmed)) {
    throw new ApiError('invalid-email', `"${trimmed.slice(0, 100)}" is not a valid email address.`);
  }
  return trimmed;
}

/**
 * A date as stored: an ISO date-time. Inputs give dates either way, as epoch milliseconds or as
 * an ISO date-time (answers give `APIComment.date` in milliseconds, so a client may send back
 * what it read); both must fall between 1970 and the end of the year 9999.
 */
export function checkDate(value: number | string, field = 'date'): string {
  const ms = typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(ms) || ms < 0 || ms > COMMENT_LIMITS.dateMaxMs) {
    throw new ApiError('invalid-date', `"${field}" must be milliseconds since 1970 or an ISO date-time, no earlier than 1970 and no later than the year 9999.`);
  }
  return new Date(Math.floor(ms)).toISOString();
}

/** Refuses blank text and text over the hard limit. */
export function checkText(text: string): void {
  if (text.trim() === '') throw new ApiError('empty-comment', 'The comment text is empty.');
  if (text.length > COMMENT_LIMITS.textMax) {
    throw new ApiError('comment-too-big', `A comment has at most ${COMMENT_LIMITS.textMax} characters.`, { maxCharacterLength: COMMENT_LIMITS.textMax });
  }
}

/** Refuses text longer than the page's `maxCommentCharacterLength`. */
export function checkLength(text: string, settings: Settings): void {
  const max = settings.maxCommentCharacterLength;
  if (max !== null && [...text].length > max) {
    throw new ApiError('comment-too-big', `The comment is longer than ${max} characters.`, { maxCharacterLength: max });
  }
}

/** A comment's stored text and its HTML. */
export interface PreparedText {
  readonly comment: string;
  readonly rendered: Rendered;
}

/**
 * The stored text and its HTML: profanity masked when the settings ask for it, HTML rendered
 * from the text, or (when the caller gives `html`) the caller's HTML cleaned of anything not
 * allowed.
 */
export function prepareText(text: string, settings: Settings, html?: string): PreparedText {
  const comment = settings.enableProfanityFilter ? maskProfanity(text) : text;
  if (html !== undefined) return { comment, rendered: sanitizeHtml(settings.enableProfanityFilter ? maskProfanity(html) : html) };
  return { comment, rendered: renderComment(comment) };
}

/**
 * A comment's hashtags: those written in its text, then those given with `retain` (added by
 * hand for querying). Each is identified by the tenant's tag id.
 */
export function commentHashTags(
  tenantId: string,
  text: string,
  given: readonly { tag: string; url?: string | null; retain?: boolean }[],
): { hashTags: CommentHashTag[]; keys: string[] } {
  const hashTags: CommentHashTag[] = [];
  const keys: string[] = [];
  const add = (tag: string, url: string | null, retain: boolean) => {
    const key = hashTagKey(tag);
    if (key === '' || keys.includes(key)) return;
    keys.push(key);
    hashTags.push(retain ? { id: hashTagId(tenantId, key), tag, url, retain: true } : { id: hashTagId(tenantId, key), tag, url });
  };
  for (const tag of tagsInText(text)) add(tag, null, false);
  for (const entry of given) {
    if (entry.retain !== true) continue;
    checkTag(entry.tag);
    add(entry.tag, entry.url ?? null, true);
  }
  return { hashTags, keys };
}
