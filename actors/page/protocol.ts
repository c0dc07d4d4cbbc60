/**
 * How other actors reach a page actor (`page:<tenantId>:<urlId>`). The page actor's own
 * messages are added here by its implementation.
 */
import { defineKind } from '../../engine/actor.js';
import type { PollView } from '../poll/poll-model.js';

export type PageProtocol = {
  /**
   * Told (never asked) by a poll actor after a poll change is durable, so the comment objects
   * the page serves embed the current poll. `poll` null: the poll was removed.
   */
  pollChanged: { in: { commentId: string; poll: PollView | null }; out: null };
};

export const PageKind = defineKind<PageProtocol>('page');

/** The id of a page actor (its key without the `page:` prefix). */
export function pageActorId(tenantId: string, urlId: string): string {
  return `${tenantId}:${urlId}`;
}
