/**
 * Parameters shared by the question routes: ids, the filters of result lists and aggregates
 * (`questionId` one or many, `startDate` as an ISO date-time or epoch ms), in their schemas and
 * as the actors and workers take them.
 */
import { ApiError } from '../../engine/errors.js';
import type { Schema } from '../route.js';
import { text } from './page-context.js';

/** A question configuration's or result's id. */
export const QUESTION_ID: Schema = text(128, 1);
export const BY_ID: Schema = { type: 'object', properties: { id: QUESTION_ID }, required: ['id'] };
/** Most questions one call may name. */
export const MAX_QUESTION_IDS = 100;
/** One id, or several (repeated, or comma-separated in `questionIds`). */
export const QUESTION_IDS: Schema = { type: 'array', items: text(4096, 1), maxItems: MAX_QUESTION_IDS };
/** `startDate`: an ISO 8601 date-time or epoch milliseconds. */
export const START_DATE: Schema = text(64, 1);

/** The questions named by `questionId` and `questionIds`, or undefined when neither names any. */
export function questionIdsOf(query: { questionId?: string[]; questionIds?: string[] }): string[] | undefined {
  const named = [...(query.questionId ?? []), ...(query.questionIds ?? []).flatMap((list) => list.split(','))].map((id) => id.trim());
  if (named.length === 0) return undefined;
  if (named.some((id) => id === '' || id.length > 128)) throw new ApiError('invalid-param', 'Every question id must be 1 to 128 characters.');
  const unique = [...new Set(named)];
  if (unique.length > MAX_QUESTION_IDS) throw new ApiError('invalid-param', `At most ${MAX_QUESTION_IDS} question ids may be named.`);
  return unique.sort();
}

/** `startDate` as the ISO date-time stored times compare with. */
export function startDateOf(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const ms = /^\d{1,15}$/.test(raw) ? Number(raw) : Date.parse(raw);
  if (!Number.isFinite(ms) || ms < 0 || ms > 8.64e15) throw new ApiError('invalid-date', 'startDate must be an ISO 8601 date-time or epoch milliseconds.');
  return new Date(ms).toISOString();
}
