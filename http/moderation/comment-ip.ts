/**
 * Moderators' view of the address hashes comments keep (docs/moderation.md, "Bans by
 * address"): a comment's hash, and the "comments by IP of a comment" filter. The hash is read
 * from the comment's durable state; it never changes after the comment is written.
 */
import { ModerationQueryKind } from '../../actors/moderation/moderation-query-actor.js';
import type { Filter } from '../../storage/store.js';
import type { AppServices } from '../services.js';
import { moderatedComment } from './moderation-actions.js';
import type { Moderator } from './moderator.js';

/** Matches no comment: what a filter by the address of a comment that kept none finds. */
const NO_HASH = '\u0000none';

/** The stored address hash of a comment the moderator may see (404 `not-found` otherwise), or null. */
export async function commentIpHash(app: AppServices, moderator: Moderator, commentId: string): Promise<string | null> {
  await moderatedComment(app, moderator, commentId);
  return app.system.ask(ModerationQueryKind, moderator.tenantId, 'ipHashOf', { commentId });
}

/** `filter` limited to comments written from the address of `byIPFromComment`, when given. */
export async function withIpOf(app: AppServices, moderator: Moderator, filter: Filter, byIPFromComment: string | undefined): Promise<Filter> {
  if (byIPFromComment === undefined || byIPFromComment === '') return filter;
  const hash = await commentIpHash(app, moderator, byIPFromComment);
  return { ...filter, ipHash: hash ?? NO_HASH };
}
