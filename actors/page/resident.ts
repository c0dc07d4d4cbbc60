/**
 * The form in which a page holds a stored comment: what storage decoded, rebuilt compact.
 *
 * A decoded document costs about 4.4 KB of heap beyond its text (measured by `npm run bench --
 * hot-page`): the decoder builds objects property by property, and its strings are slices of
 * the whole record's text, which each keeps alive. Rebuilt as an object literal of one shape
 * (`copyComment`), with the strings every comment of a page repeats (tenant, page, url, author,
 * locale, parent) shared, its own strings copied flat and its empty lists shared, the same
 * comment costs about a quarter of that. Reads and writes see an ordinary `CommentDoc`:
 * documents are replaced, never changed in place, so shared values are never written through.
 */
import { type CommentDoc, copyComment } from './comment-doc.js';

/** Fields whose values repeat across a page's comments: held once per page. */
const SHARED = ['tenantId', 'urlId', 'url', 'pageTitle', 'commenterName', 'commenterEmail', 'commenterLink', 'userId', 'anonUserId', 'avatarSrc', 'locale', 'displayLabel', 'authorKey', 'domain', 'parentId'] as const;
/** The comment's own strings: copied, so that they no longer hold the decoded record. */
const OWN = ['comment', 'commentHTML', 'date', 'localDateString', 'verifiedDate', 'expireAt', 'externalId', 'externalParentId'] as const;
/** List fields that are usually empty: one frozen empty list serves them all. */
const LISTS = ['mentions', 'hashTags', 'hashTagKeys', 'feedbackIds'] as const;

const EMPTY: never[] = Object.freeze([]) as unknown as never[];

/** A copy of a string that holds no other string's memory (a decoder's slice keeps its source alive). */
function flat(s: string): string {
  return s.length < 13 ? s : Buffer.from(s, 'utf8').toString('utf8');
}

/** Makes stored comments resident: one per page, its shared strings forgotten with the page. */
export class Residents {
  readonly #strings = new Map<string, string>();

  #shared(s: string): string {
    const held = this.#strings.get(s);
    if (held !== undefined) return held;
    const copy = flat(s);
    this.#strings.set(copy, copy);
    return copy;
  }

  /** The compact copy of a comment as storage gave it. */
  comment(doc: CommentDoc): CommentDoc {
    const out = copyComment(doc) as unknown as Record<string, unknown>;
    // Its id is shared too: its replies name it as their parent.
    out['_id'] = this.#shared(doc._id);
    for (const key of SHARED) {
      const value = out[key];
      if (typeof value === 'string') out[key] = this.#shared(value);
    }
    for (const key of OWN) {
      const value = out[key];
      if (typeof value === 'string') out[key] = flat(value);
    }
    for (const key of LISTS) {
      const value = out[key];
      if (Array.isArray(value) && value.length === 0) out[key] = EMPTY;
    }
    return out as unknown as CommentDoc;
  }

  /** Forgets the shared strings (the page's comments are let go). */
  clear(): void {
    this.#strings.clear();
  }
}
