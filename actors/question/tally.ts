/**
 * Tallies: running counts of a question's results by value, one document per day and one per
 * page, kept by the questions actor in the same durable batch as each result it stores, changes
 * or deletes. An aggregate without `userId` or `startDate` reads these (a question with results
 * on 1,000 pages over a year has 1,365 of them, however many results) instead of every result.
 */
import { hash } from 'node:crypto';
import type { Doc } from '../../storage/store.js';

export const QUESTION_TALLIES = 'questionTallies';

/** What a tally reads of a question result (`QuestionResultDoc`). */
export interface TalliedResult {
  readonly questionId: string;
  readonly urlId: string;
  /** ISO date-time. */
  readonly createdAt: string;
  readonly value: number;
}

/** `day`: results of one UTC day (`key` is `YYYY-MM-DD`); `url`: results of one page (`key` is its urlId). */
export type TallyKind = 'day' | 'url';

/** A stored tally. */
export interface TallyDoc extends Doc {
  tenantId: string;
  questionId: string;
  kind: TallyKind;
  key: string;
  /** Value (as text) → results with it; values with none are left out. */
  counts: Record<string, number>;
  total: number;
}

/** The ids of the two tallies a result counts in (question ids are unique across tenants). */
export function tallyKeys(doc: Pick<TalliedResult, 'questionId' | 'urlId' | 'createdAt'>): { kind: TallyKind; key: string; id: string }[] {
  const day = doc.createdAt.slice(0, 10);
  return [
    { kind: 'day', key: day, id: `${doc.questionId}:d:${day}` },
    { kind: 'url', key: doc.urlId, id: `${doc.questionId}:u:${hash('sha256', doc.urlId, 'hex').slice(0, 32)}` },
  ];
}

/** A tally with no results yet. */
export function emptyTally(tenantId: string, questionId: string, slot: { kind: TallyKind; key: string; id: string }): TallyDoc {
  return { _id: slot.id, tenantId, questionId, kind: slot.kind, key: slot.key, counts: {}, total: 0 };
}

/** The tally after counting one result of `value` once more (`delta` 1) or once less (-1). */
export function counted(tally: TallyDoc, value: number, delta: 1 | -1): TallyDoc {
  const counts = { ...tally.counts };
  const key = String(value);
  const next = (counts[key] ?? 0) + delta;
  if (next > 0) counts[key] = next;
  else delete counts[key];
  return { ...tally, counts, total: tally.total + delta };
}

/** The tallies of some results, as the actor would have written them: for seeding storage directly. */
export function talliesOf(tenantId: string, results: Iterable<TalliedResult>): TallyDoc[] {
  const tallies = new Map<string, TallyDoc>();
  for (const doc of results) {
    for (const slot of tallyKeys(doc)) tallies.set(slot.id, counted(tallies.get(slot.id) ?? emptyTally(tenantId, doc.questionId, slot), doc.value, 1));
  }
  return [...tallies.values()];
}
