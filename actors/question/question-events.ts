/**
 * The live event of a question result (`question-result`, documented in docs/questions.md),
 * published on the result's page topic once the result is durable.
 */
import { clock } from '../../engine/clock.js';
import { newId } from '../../engine/ids.js';
import { LIVE_EVENT_TYPES, type LiveEvent } from '../live/live-events.js';
import { publicQuestionResult, type QuestionResultDoc } from './question-model.js';

/** A result was created or changed: its public projection (no user or anonymous id, no meta). */
export function questionResultEvent(doc: QuestionResultDoc): LiveEvent {
  const now = clock.now();
  return { type: LIVE_EVENT_TYPES.questionResult, timestamp: now, ts: now, broadcastId: newId(now), urlId: doc.urlId, questionResult: publicQuestionResult(doc) };
}
