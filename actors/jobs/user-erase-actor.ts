/**
 * Deleting a user with their comments (`user-erase:<tenantId>:<userId>`): a durable job that
 * works through the user's comments a round at a time, each round through the page actors
 * that own them, and deletes the user last. The job document is written before the first
 * round and removed after the last, so a crash midway leaves it for the server to resume at
 * start-up (`resumeJobs`), and a retried DELETE drives the same job on.
 *
 * Memory stays bounded whatever the user wrote: a round holds at most `ROUND` comments, and
 * the comments a round erased no longer match the query of the next one (deleted, or
 * anonymized: their `userId` is gone), so no cursor is needed.
 *
 * The user's notification data goes in the last rounds (actors/notify/erase.ts), before the
 * user itself.
 *
 * Deadlock rules: it asks page, tenant, user, notifications and subscriptions actors; none of
 * them ever asks it.
 */
import { Actor, defineKind, type Handlers } from '../../engine/actor.js';
import type { ActorSystem } from '../../engine/actor-system.js';
import { clock } from '../../engine/clock.js';
import { ApiError } from '../../engine/errors.js';
import { log } from '../../engine/log.js';
import { eraseRecipientRound, forgetSenderRound } from '../notify/erase.js';
import { COMMENTS, type CommentDoc } from '../page/comment-doc.js';
import type { EraseMode } from '../page/protocol.js';
import { PageKind, pageActorId } from '../page/protocol.js';
import { TenantKind, tenantSettings } from '../tenant/tenant-actor.js';
import { type ApiUserKind, type UserDoc, UserKind, userActorId } from '../user/protocol.js';
import { JOBS, type JobDoc } from './jobs.js';
import { webhookTargets } from '../webhook/protocol.js';
import { badgeUserActorId } from '../badge/badge-model.js';
import { BadgeUserKind } from '../badge/protocol.js';

/** Comments read per round. */
export const ROUND = 250;
/** Pages asked at once within a round. */
const PAGES_AT_ONCE = 8;
/** Rounds in a row that change nothing before the job stops (to be resumed at the next start). */
const STALLED_ROUNDS = 3;

export interface UserEraseJob extends JobDoc {
  type: 'user-erase';
  userId: string;
  kind: ApiUserKind;
  mode: EraseMode;
  /** Comments erased so far. */
  erased: number;
}

export type UserEraseProtocol = {
  /** Records the job (a job already under way keeps its mode). */
  start: { in: { kind: ApiUserKind; mode: EraseMode }; out: null };
  /** One round; the last deletes the user and the job and answers the deleted user. */
  step: { in: null; out: { done: boolean; user: UserDoc | null; erased: number } };
};

/** `user-erase:<tenantId>:<userId>` */
export const UserEraseKind = defineKind<UserEraseProtocol>('user-erase');

export class UserEraseActor extends Actor<UserEraseProtocol> {
  #tenantId = '';
  #userId = '';
  #job: UserEraseJob | undefined;
  #stalled = 0;

  override async onStart(): Promise<void> {
    const colon = this.id.indexOf(':');
    this.#tenantId = this.id.slice(0, colon);
    this.#userId = this.id.slice(colon + 1);
    this.#job = await this.store.get<UserEraseJob>(JOBS, jobId(this.id));
  }

  readonly handlers: Handlers<UserEraseProtocol> = {
    start: ({ kind, mode }) => {
      if (this.#job !== undefined) return null;
      this.#job = { _id: jobId(this.id), type: 'user-erase', actorId: this.id, tenantId: this.#tenantId, createdAt: clock.now(), userId: this.#userId, kind, mode, erased: 0 };
      this.put(JOBS, this.#job);
      return null;
    },

    step: async () => {
      const job = this.#job;
      if (job === undefined) return { done: true, user: null, erased: 0 };
      // Refused (tenant-deleted) once the tenant's deletion began: that deletion takes the comments.
      await this.system.ask(TenantKind, this.#tenantId, 'read', null);
      const comments = await this.store.find<CommentDoc>(COMMENTS, { tenantId: this.#tenantId, userId: this.#userId }, { limit: ROUND });
      if (comments.length === 0) {
        // Then what the user caused in others' notifications, and what it received, a round per step.
        const forgotten = await forgetSenderRound(this.system, this.store, this.#tenantId, this.#userId, job.mode === 'remove');
        if (forgotten > 0 || (await eraseRecipientRound(this.system, this.#tenantId, this.#userId))) return { done: false, user: null, erased: job.erased };
        return this.#finish(job);
      }
      const byPage = new Map<string, string[]>();
      for (const doc of comments) {
        const ids = byPage.get(doc.urlId);
        if (ids === undefined) byPage.set(doc.urlId, [doc._id]);
        else ids.push(doc._id);
      }
      let changed = 0;
      const pages = [...byPage];
      for (let i = 0; i < pages.length; i += PAGES_AT_ONCE) {
        const answers = await Promise.all(pages.slice(i, i + PAGES_AT_ONCE).map(([urlId, commentIds]) => this.#erase(urlId, commentIds, job.mode)));
        for (const answer of answers) changed += answer;
      }
      this.#stalled = changed === 0 ? this.#stalled + 1 : 0;
      if (this.#stalled >= STALLED_ROUNDS) {
        this.#stalled = 0;
        throw new ApiError('internal-error', `Deleting the comments of ${this.#userId} made no progress; it resumes at the next start.`);
      }
      this.#job = { ...job, erased: job.erased + changed };
      this.put(JOBS, this.#job);
      return { done: false, user: null, erased: this.#job.erased };
    },
  };

  async #erase(urlId: string, commentIds: string[], mode: EraseMode): Promise<number> {
    const settings = await tenantSettings(this.system, this.#tenantId, urlId);
    const threadMode = settings.config['commentThreadDeleteMode'];
    const { changed } = await this.system.ask(PageKind, pageActorId(this.#tenantId, urlId), 'eraseUserComments', {
      userId: this.#userId,
      commentIds,
      mode,
      threadMode: typeof threadMode === 'number' ? threadMode : null,
      isLive: true,
      webhooks: await webhookTargets(this.system, this.#tenantId),
    });
    return changed;
  }

  async #finish(job: UserEraseJob): Promise<{ done: true; user: UserDoc | null; erased: number }> {
    let user: UserDoc | null = null;
    await this.system.ask(BadgeUserKind, badgeUserActorId(this.#tenantId, this.#userId), 'erase', null);
    try {
      user = await this.system.ask(UserKind, userActorId(this.#tenantId, this.#userId), 'remove', { kind: job.kind });
    } catch (err) {
      // Deleted already (a crash came after the user and before the job): nothing left to do.
      if (!(err instanceof ApiError) || err.code !== 'not-found') throw err;
    }
    await this.commitNow([{ op: 'delete', collection: JOBS, id: job._id }]);
    this.#job = undefined;
    return { done: true, user, erased: job.erased };
  }
}

function jobId(actorId: string): string {
  return `user-erase:${actorId}`;
}

/** The id of a user's erase job actor. */
export function userEraseId(tenantId: string, userId: string): string {
  return `${tenantId}:${userId}`;
}

/**
 * Deletes a user with their comments: records the job, then drives it round by round to the
 * end. Answers the deleted user (null when it was already gone). Safe to call again after a
 * failure or a crash: it carries the same job on.
 */
export async function eraseUser(system: ActorSystem, tenantId: string, userId: string, kind: ApiUserKind, mode: EraseMode): Promise<UserDoc | null> {
  const id = userEraseId(tenantId, userId);
  await system.ask(UserEraseKind, id, 'start', { kind, mode });
  return driveUserErase(system, id);
}

/** Steps the erase job `id` until it is done. */
export async function driveUserErase(system: ActorSystem, id: string): Promise<UserDoc | null> {
  for (;;) {
    const round = await system.ask(UserEraseKind, id, 'step', null);
    if (round.done) {
      log.debug('user-erased', { id, erased: round.erased });
      return round.user;
    }
  }
}
