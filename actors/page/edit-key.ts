/**
 * Edit keys: how an anonymous author proves a comment is theirs when the session cookie is
 * gone. A key is the HMAC of the comment id under the author's edit secret (made by the server
 * from its own secret, the tenant and the author's anonymous id: `LiveIds.authorEditSecret`),
 * so it names one comment of one author, cannot be made by anyone else, and is checked
 * without storing it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The edit key of one comment, under its author's edit secret. */
export function editKeyFor(authorSecret: string, commentId: string): string {
  return createHmac('sha256', authorSecret).update(commentId).digest('base64url').slice(0, 32);
}

/** Whether `given` is the edit key of the comment under its author's secret (constant time). */
export function editKeyMatches(authorSecret: string, commentId: string, given: string): boolean {
  const expected = Buffer.from(editKeyFor(authorSecret, commentId));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
