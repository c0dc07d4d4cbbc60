/**
 * A notification job: the record that a new comment's notifications are still to be made.
 * The page actor writes it in the same batch as the comment (so a comment is never durable
 * without it), and the comment's job actor (`notify-job:<tenantId>:<commentId>`) works it off
 * the request path, then deletes it. Jobs left by a crash are found and resumed at start-up.
 */
import type { Doc } from '../../storage/store.js';
import { NOTIFY_COLLECTIONS } from './notification-doc.js';

/** `direct`: the reply's parent author and the mentioned users; `subscribers`: the page's subscribers, a batch at a time. */
export type JobStage = 'direct' | 'subscribers';

export interface NotifyJobDoc extends Doc {
  tenantId: string;
  urlId: string;
  commentId: string;
  stage: JobStage;
  /** A reply's: the parent comment's author (known to the page when the reply is made), or null. */
  parentUserId: string | null;
  /** Subscribers: the `_id` of the last subscription done (they are worked in `_id` order). */
  cursor: string | null;
  /** Epoch ms when the comment was made: subscriptions made later are not notified of it. */
  createdAt: number;
}

/** The job of a new comment, written by its page actor with the comment. */
export function notifyJob(tenantId: string, urlId: string, commentId: string, parentUserId: string | null, nowMs: number): { collection: string; doc: NotifyJobDoc } {
  return {
    collection: NOTIFY_COLLECTIONS.jobs,
    doc: { _id: commentId, tenantId, urlId, commentId, stage: 'direct', parentUserId, cursor: null, createdAt: nowMs },
  };
}

/** The id of a comment's job actor. */
export function notifyJobActorId(tenantId: string, commentId: string): string {
  return `${tenantId}:${commentId}`;
}
