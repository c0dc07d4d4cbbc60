/**
 * How other actors reach a poll actor (`poll:<tenantId>:<commentId>`). The poll actor's own
 * messages are added here by its implementation.
 *
 * Deadlock rule: the page actor may `ask` a poll actor; a poll actor only ever `tell`s the page
 * actor. Never the other way round.
 */
import { defineKind } from '../../engine/actor.js';

export type PollProtocol = {
  /**
   * From the page actor, when a comment that has a poll is locked or unlocked, moved to another
   * page, or deleted. Answered once the poll actor's state reflects it; a deleted comment's poll
   * and votes are removed durably before the answer.
   */
  commentChanged: { in: { isLocked: boolean; urlId: string; deleted: boolean }; out: null };
};

export const PollKind = defineKind<PollProtocol>('poll');

/** The id of a poll actor (its key without the `poll:` prefix). */
export function pollActorId(tenantId: string, commentId: string): string {
  return `${tenantId}:${commentId}`;
}
