/**
 * Page reactions: v1 likes (one per user per page) and v2 reactions (several ids per page, one
 * of each id per user). Owned by the page actor.
 */
import { createHash } from 'node:crypto';
import type { Doc } from '../../storage/store.js';

/** Collection of likes and reactions. */
export const PAGE_REACTS = 'pageReacts';

/** v1 likes and v2 reactions. */
export const REACT_KINDS = { like: 'like', react: 'react' } as const;
/** `like` or `react`. */
export type ReactKind = (typeof REACT_KINDS)[keyof typeof REACT_KINDS];

/** One user's like, or one reaction id of one user, on one page. */
export interface ReactDoc extends Doc {
  tenantId: string;
  urlId: string;
  kind: ReactKind;
  /** The caller's reaction id (v2); empty for likes. */
  reactId: string;
  /** `u:<userId>` (SSO users) or `a:<anonymous session id>`. */
  userKey: string;
  userId: string | null;
  createdAt: string;
}

/** Deterministic, so a repeated reaction is the same document. The urlId is hashed: it has no length limit. */
export function reactDocId(tenantId: string, urlId: string, kind: ReactKind, reactId: string, userKey: string): string {
  const page = createHash('sha256').update(urlId).digest('base64url').slice(0, 22);
  return `${tenantId}:${page}:${kind}:${reactId}:${userKey}`;
}
