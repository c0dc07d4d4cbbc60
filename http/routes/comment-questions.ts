/**
 * Answers to questions sent with a new comment (`questionValues`: question id → value). They are
 * checked before the comment is made, so a bad answer refuses the comment and stores nothing,
 * and stored as question results tied to the comment once it exists (docs/questions.md).
 */
import { type CommentAnswer, QuestionsKind } from '../../actors/question/protocol.js';
import { ApiError } from '../../engine/errors.js';
import type { AppServices } from '../services.js';

/** Most answers one comment may carry. */
export const MAX_COMMENT_ANSWERS = 50;

/** The answers of `questionValues` (values as numbers or numeric text), checked against the tenant's questions. */
export async function checkCommentAnswers(app: AppServices, tenantId: string, questionValues: unknown): Promise<CommentAnswer[]> {
  if (questionValues === undefined || questionValues === null) return [];
  const entries = Object.entries(questionValues as Record<string, unknown>);
  if (entries.length > MAX_COMMENT_ANSWERS) throw new ApiError('invalid-param', `questionValues may answer at most ${MAX_COMMENT_ANSWERS} questions.`);
  const answers = entries.map(([questionId, raw]): CommentAnswer => {
    const value = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
    if (!Number.isFinite(value)) throw new ApiError('invalid-param', `questionValues.${questionId} must be a number.`);
    return { questionId, value };
  });
  if (answers.length > 0) await app.system.ask(QuestionsKind, tenantId, 'checkAnswers', { answers });
  return answers;
}

/** Stores the checked answers as results of the new comment (on its page, by its author). */
export async function recordCommentAnswers(app: AppServices, tenantId: string, answers: readonly CommentAnswer[], comment: Record<string, unknown>): Promise<void> {
  if (answers.length === 0) return;
  const text = (field: string) => (typeof comment[field] === 'string' && comment[field] !== '' ? (comment[field] as string) : null);
  await app.system.ask(QuestionsKind, tenantId, 'recordAnswers', {
    answers,
    commentId: String(comment['_id']),
    urlId: String(comment['urlId']),
    userId: text('userId'),
    anonUserId: text('anonUserId'),
  });
}
