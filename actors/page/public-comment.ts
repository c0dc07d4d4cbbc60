/**
 * The public projection of a stored comment (`PublicComment` of the widget API): what any
 * reader of the page may see. Built by allow-list from `PublicCommentBase`, so a field added to
 * the stored comment stays private until it is added here. Never carried: emails, IPs, `meta`,
 * moderation groups, and anonymous ids (an anonymous author's `anonUserId` goes to that author
 * only, see `ownFields`). `date` is an ISO date-time, as `PublicCommentBase` has it.
 */
import { publicPoll } from '../live/public-projection.js';
import type { CommentDoc } from './comment-doc.js';

/** Fields every reader sees, when set (the required ones always). */
const SHARED_FIELDS = [
  'userId',
  'commenterLink',
  'parentId',
  'avatarSrc',
  'hasImages',
  'isByAdmin',
  'isByModerator',
  'isPinned',
  'isLocked',
  'displayLabel',
  'rating',
  'badges',
  'isDeleted',
  'isDeletedUser',
  'feedbackIds',
] as const satisfies readonly (keyof CommentDoc)[];

/** The comment as every reader of its page may see it (a JSON object literal). */
export function publicCommentJson(doc: CommentDoc, poll: unknown): string {
  return JSON.stringify(project((field) => doc[field as keyof CommentDoc], poll));
}

/**
 * The same projection of a comment's API view (`commentView`: `date` in epoch ms, the poll
 * inside), for answers made from what a page actor returned.
 */
export function publicCommentOfView(view: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out = project((field) => (field === 'hasPoll' ? view['poll'] !== undefined : view[field]), view['poll']);
  if (typeof out['date'] === 'number') out['date'] = new Date(out['date']).toISOString();
  return out;
}

function project(get: (field: string) => unknown, poll: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {
    _id: get('_id'),
    id: get('_id'),
    commenterName: get('commenterName') ?? '',
    commentHTML: get('commentHTML'),
    date: get('date'),
    votes: get('votes'),
    votesUp: get('votesUp'),
    votesDown: get('votesDown'),
    verified: get('verified') === true,
  };
  for (const field of SHARED_FIELDS) {
    const value = get(field);
    if (value === null || value === undefined || value === false || (Array.isArray(value) && value.length === 0)) continue;
    out[field] = value;
  }
  if (!out['parentId']) out['parentId'] = null;
  // A held comment is shown to its author only, and marked so (the widget's "awaiting approval").
  if (get('approved') === false) out['approved'] = false;
  if (get('isSpam') === true) out['isSpam'] = true;
  if (get('hasPoll') === true && poll !== undefined && poll !== null) out['poll'] = publicPoll(poll as Record<string, unknown>);
  return out;
}

/**
 * Fields only the comment's own author sees: the anonymous id that ties it to their session,
 * and the `editKey` (anonymous authors) that proves it is theirs on edit and delete.
 */
export function ownFields(doc: CommentDoc, editKey: string | null): string {
  let extra = '';
  if (doc.anonUserId !== null) extra += `,"anonUserId":${JSON.stringify(doc.anonUserId)}`;
  if (editKey !== null) extra += `,"editKey":${JSON.stringify(editKey)}`;
  return extra;
}

/** Who a comment belongs to, for readers: its user id or its anonymous id. */
export function isOwnComment(doc: CommentDoc, owner: { readonly userId: string | null; readonly anonUserId: string | null }): boolean {
  return (owner.userId !== null && doc.userId === owner.userId) || (owner.anonUserId !== null && doc.anonUserId === owner.anonUserId);
}
