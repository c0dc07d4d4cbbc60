/**
 * How routes reach a tenant's questions actor (`questions:<tenantId>`): the only writer of the
 * tenant's question configurations and results. It asks nobody.
 */
import { defineKind } from '../../engine/actor.js';
import type { QuestionConfigDoc, QuestionConfigInput, QuestionResultDoc, QuestionResultInput } from './question-model.js';

/** Filters of a result list (`startDate` inclusive, ISO). */
export interface ResultFilter {
  readonly urlId?: string;
  readonly userId?: string;
  readonly startDate?: string;
  readonly questionIds?: readonly string[];
}

/** A result given with a new comment: the question and the value as the widget sent it. */
export interface CommentAnswer {
  readonly questionId: string;
  readonly value: number;
}

/** Every message of the questions actor. */
export type QuestionsProtocol = {
  /** One page of configurations by question text ascending. */
  listConfigs: { in: { skip: number }; out: QuestionConfigDoc[] };
  getConfig: { in: { id: string }; out: QuestionConfigDoc };
  createConfig: { in: { input: QuestionConfigInput; createdBy: string }; out: QuestionConfigDoc };
  patchConfig: { in: { id: string; changes: QuestionConfigInput }; out: QuestionConfigDoc };
  /** Removes the configuration at once; its results are removed after, in steps (`purge`). */
  deleteConfig: { in: { id: string }; out: null };
  /** One step of removing a deleted configuration's results; sent by the actor to itself. */
  purge: { in: { questionId: string }; out: { done: boolean } };
  /** Ids of configurations whose results are still being removed: readers leave them out. */
  deleting: { in: null; out: string[] };
  listResults: { in: { filter: ResultFilter; skip: number; limit: number }; out: QuestionResultDoc[] };
  getResult: { in: { id: string }; out: QuestionResultDoc };
  createResult: { in: { input: QuestionResultInput }; out: QuestionResultDoc };
  patchResult: { in: { id: string; changes: QuestionResultInput }; out: QuestionResultDoc };
  deleteResult: { in: { id: string }; out: null };
  /** Checks the answers sent with a new comment, before the comment is made; writes nothing. */
  checkAnswers: { in: { answers: readonly CommentAnswer[] }; out: null };
  /** Stores the answers of a comment that was just made, tied to it. */
  recordAnswers: {
    in: { answers: readonly CommentAnswer[]; commentId: string; urlId: string; userId: string | null; anonUserId: string | null };
    out: QuestionResultDoc[];
  };
};

/** `questions:<tenantId>` */
export const QuestionsKind = defineKind<QuestionsProtocol>('questions');
